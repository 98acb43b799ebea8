"""`ttlc` as a Bazel action: one-shot (`ttlc @flagfile`) or persistent worker.

The `ttl_operation` rule runs this wrapper around the compiler CLI
(`ttl.host.ttlc`). Both modes take the same flagfile and go through the
same code path, so their outputs are byte-identical:

* Flags the wrapper consumes (everything else goes to the compiler):
  ``--action_input=PATH`` (repeated) the user's declared inputs (the operation
  source, its Python deps, headers); ``--action_python_root=DIR`` (repeated)
  import roots among them; ``--action_out_kernels=DIR`` (the kernel tree),
  ``--action_out_manifest=FILE``, ``--action_out_ir=FILE``,
  ``--action_out_plan=FILE`` (moved out of the compiler's ``--out``).
* The compiler runs in a private staging directory holding symlinks to the
  declared inputs only, with the import roots on ``sys.path``: an undeclared
  Python module or header is invisible even to a non-sandboxed worker.
* In worker mode (``--persistent_worker``) the interpreter, xDSL and the
  compiler stay imported across requests; modules imported from the staging
  directory (the user's code) and the line cache are dropped after each
  request, so an edited source is never served stale.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import linecache
import os
import re
import shutil
import sys
import traceback
from typing import TYPE_CHECKING

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

if TYPE_CHECKING:  # the type checker sees the tools as modules of the ttl package
    from ttl.rules.private.tools import worker_protocol
else:  # Bazel runs this file as a script: worker_protocol sits next to it
    import worker_protocol

_WRAPPER_FLAGS = {
    "--action_input": "inputs",
    "--action_python_root": "python_roots",
    "--action_out_kernels": "out_kernels",
    "--action_out_manifest": "out_manifest",
    "--action_out_ir": "out_ir",
    "--action_out_plan": "out_plan",
    "--action_label": "label",
}
_SINGLE = ("out_kernels", "out_manifest", "out_ir", "out_plan")


class ActionError(Exception):
    """A wrapper-level failure (bad action flags, missing compiler output)."""


def expand_flagfiles(argv: list[str]) -> list[str]:
    """Expands `@file` arguments (Bazel's multiline param files)."""
    out: list[str] = []
    for arg in argv:
        if arg.startswith("@") and not arg.startswith("@@"):
            with open(arg[1:], encoding="utf-8") as f:
                out.extend(line for line in f.read().split("\n") if line)
        else:
            out.append(arg)
    return out


def split_args(argv: list[str]) -> tuple[dict, list[str]]:
    """Separates the wrapper's flags from the compiler's."""
    own: dict = {"inputs": [], "python_roots": [], "label": []}
    rest: list[str] = []
    for arg in argv:
        name, sep, value = arg.partition("=")
        key = _WRAPPER_FLAGS.get(name)
        if key is None or not sep:
            rest.append(arg)
        elif key in _SINGLE:
            own[key] = value
        else:
            own[key].append(value)
    own["label"] = own["label"][-1] if own["label"] else ""
    missing = [f for f, k in _WRAPPER_FLAGS.items() if k in _SINGLE and k not in own]
    if missing:
        raise ActionError("ttlc action: missing " + ", ".join(missing))
    return own, rest


def _stage(stage: str, inputs: list[str]) -> None:
    if os.path.lexists(stage):
        shutil.rmtree(stage)
    os.makedirs(stage)
    for path in inputs:
        if os.path.isabs(path) or ".." in path.split("/"):
            raise ActionError(f"ttlc action: input {path!r} is not an exec-root relative path")
        link = os.path.join(stage, path)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(path), link)


def _from_stage(module, stage: str) -> bool:
    """Whether a module came from the user's staged inputs (or was made from them)."""
    prefix = stage + os.sep
    module_file = getattr(module, "__file__", None)
    if module_file:
        return os.path.abspath(module_file).startswith(prefix)
    spec = getattr(module, "__spec__", None)
    if spec is None:
        return True  # built at run time (e.g. the operation's source): never reuse
    if spec.origin in ("built-in", "frozen"):
        return False
    locations = list(spec.submodule_search_locations or [])
    return any(os.path.abspath(p).startswith(prefix) for p in locations)


def _call_compiler(argv: list[str]) -> int:
    """Runs ttlc on ``argv`` with its flags parsed into a fresh ``FlagValues``.

    A fresh ``FlagValues`` per request (never absl's global ``FLAGS``) means no
    value of an earlier request survives, with no ``unparse_flags`` needed.
    """
    from absl import flags

    from ttl.errors import exit_status
    from ttl.host import ttlc as cli  # stays imported across requests

    flag_values = cli.new_flags()
    try:
        remaining = cli.parse_flags(["ttlc", *argv], flag_values)
    except cli.FlagError as error:
        print(f"ttlc: error: {error}", file=sys.stderr)
        return 2
    except flags.Error as error:
        print(f"ttlc: {error}", file=sys.stderr)
        return 2
    try:
        return cli.main(remaining, flag_values)
    except SystemExit as stop:
        return exit_status(stop.code)


def _finish_outputs(own: dict) -> None:
    """Moves the manifest and the IR out of the compiler's --out directory."""
    out = own["out_kernels"]
    manifest = os.path.join(out, "manifest.json")
    if not os.path.isfile(manifest):
        raise ActionError(f"ttlc action: the compiler wrote no manifest.json into {out}")
    os.replace(manifest, own["out_manifest"])
    plan = os.path.join(out, "plan.json")
    if not os.path.isfile(plan):
        raise ActionError(f"ttlc action: the compiler wrote no plan.json into {out}")
    os.replace(plan, own["out_plan"])
    irs = sorted(n for n in os.listdir(out) if n.endswith((".mlir", ".ir", ".ttl")))
    if len(irs) != 1:
        raise ActionError(f"ttlc action: expected one IR file in {out}, found {irs}")
    os.replace(os.path.join(out, irs[0]), own["out_ir"])


def run_request(argv: list[str]) -> int:
    """Runs one compilation; prints diagnostics to sys.stdout/sys.stderr."""
    own, compiler_argv = split_args(argv)
    out = os.path.abspath(own["out_kernels"])
    for key in _SINGLE:
        own[key] = os.path.abspath(own[key])
    stage = out + ".stage"
    cwd = os.getcwd()
    saved_path = list(sys.path)
    before = set(sys.modules)
    linecache.clearcache()
    importlib.invalidate_caches()
    _stage(stage, own["inputs"])
    if os.path.lexists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    try:
        os.chdir(stage)
        for root in reversed(own["python_roots"]):
            sys.path.insert(0, os.path.join(stage, root) if root != "." else stage)
        code = _call_compiler([*compiler_argv, f"--out={out}"])
        if code == 0:
            _finish_outputs(own)
        return code
    finally:
        for name in set(sys.modules) - before:
            if _from_stage(sys.modules[name], stage):
                del sys.modules[name]
        sys.path[:] = saved_path
        os.chdir(cwd)
        linecache.clearcache()
        shutil.rmtree(stage, ignore_errors=True)


def _relative_paths(text: str, argv: list[str]) -> str:
    """Diagnostics name the user's files as the user wrote them (exec-root relative)."""
    cwd = os.getcwd()
    for arg in argv:
        if arg.startswith("--action_out_kernels="):
            stage = os.path.abspath(arg.partition("=")[2]) + ".stage"
            text = text.replace(stage + os.sep, "")
    return text.replace(cwd + os.sep, "")


# The compiler's hints spell tensor specs as ttlc flags (and the JIT's specs=);
# in a Bazel action they are the `args` attribute of the ttl_operation.
_ARG_HINT = re.compile(r"--arg (\w+)=(\w+\[[^\]]*\](?::\w+)?)(?: or specs=\{[^}]*\})?")


def bazel_spelling(text: str, label: str) -> str:
    """Diagnostics with the compiler's `--arg NAME=SPEC` hints written as the Bazel attribute."""
    where = f" of {label}" if label else ""
    return _ARG_HINT.sub(lambda m: f'`args = {{..., "{m[1]}": "{m[2]}"}}`{where}', text)


def _one_request(argv: list[str]) -> tuple[int, str]:
    argv = expand_flagfiles(argv)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            code = run_request(argv)
        except ActionError as error:
            print(error)
            code = 1
        except Exception:
            traceback.print_exc()
            code = 1
    label = next((a.partition("=")[2] for a in argv if a.startswith("--action_label=")), "")
    return code, bazel_spelling(_relative_paths(buffer.getvalue(), argv), label)


def serve() -> int:
    """The persistent-worker loop: WorkRequest in on stdin, WorkResponse out on stdout."""
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # stray writes to fd 1 must not corrupt the protocol stream
    sys.stdout = sys.stderr
    stdin = os.fdopen(os.dup(0), "rb", buffering=0)
    while True:
        try:
            data = worker_protocol.read_delimited(stdin)
            if data is None:
                return 0
            request = worker_protocol.WorkRequest.parse(data)
        except (ValueError, EOFError) as e:  # not Bazel's protocol: stop, Bazel restarts us
            sys.stderr.write(f"ttlc worker: malformed WorkRequest on stdin ({e}); exiting\n")
            return 1
        if request.cancel:
            continue
        code, output = _one_request(request.arguments)
        response = worker_protocol.WorkResponse(
            exit_code=code, output=output, request_id=request.request_id
        )
        worker_protocol.write_delimited(protocol_out, response.serialize())


def main(argv: list[str]) -> int:
    if "--persistent_worker" in argv:
        return serve()
    code, output = _one_request(argv)
    sys.stderr.write(output)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
