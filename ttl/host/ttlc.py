"""``ttlc``: compile a TT-Lang operation to IR, kernel C++ and a manifest.

Exit status: 0 on success, 1 on an error in the TT-Lang program (the
diagnostic only, no traceback), 2 on bad flags. ``--help`` prints the flags and
``--version`` the version; both exit 0.

Example::

    ttlc --src examples/basic/eltwise_single_tile.py --operation eltwise_single_tile \\
         --arg a=bf16[64,128] --arg b=bf16[64,128] --arg c=bf16[64,128] --arg y=bf16[64,128] \\
         --out build/eltwise
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from absl import app, flags

from ttl.host.cli_help import (
    asks_for_help,
    print_help_and_exit,
    print_version_and_exit,
    quiet_broken_pipe,
)
from ttl.specs import ConstantParam, TensorSpec, param_spec
from ttl.targets import DEFAULT_TARGET, TARGETS

EXIT_USER_ERROR = 1
EXIT_BAD_FLAGS = 2
REQUIRED_FLAGS = ("src", "operation")
_REQUIRED_MESSAGE = "--src and --operation are required"
USAGE = (
    "usage: ttlc --src=FILE.py --operation=NAME --arg NAME=SPEC [--arg ...] --out=DIR [flags]\n"
    "       (SPEC: a tensor, bf16[64,128][:row_major], or a constant, const:(2, 2))\n"
    "       ttlc --help | --version"
)
DESCRIPTION = (
    "Compiles a TT-Lang operation to its ttl IR, one C++ source per kernel and a\n"
    "manifest in --out (docs/compiler.md, docs/manifest.md). Exit status: 0 on\n"
    "success, 1 on an error in the program, 2 on bad flags."
)


class FlagError(Exception):
    """A bad ttlc command line; the message is printed after ``ttlc: error: ``."""


def define_flags(flag_values: flags.FlagValues) -> flags.FlagValues:
    """Defines ttlc's flags in ``flag_values`` and returns it.

    Nothing is defined at import time, so this module imports next to the other
    CLIs; the console script defines them in absl's global ``FLAGS`` (for
    ``--help``), the Bazel worker in a fresh :func:`new_flags` per request.
    """
    flags.DEFINE_string("src", None, "Python file defining the operation.", flag_values=flag_values)
    flags.DEFINE_string(
        "operation", None, "Name of the @ttl.operation in --src.", flag_values=flag_values
    )
    flags.DEFINE_multi_string(
        "arg",
        [],
        "Spec of a parameter: name=bf16[256,512] (a tensor) or name=const:(2, 2) (a "
        "compile-time constant). Repeat.",
        flag_values=flag_values,
    )
    flags.DEFINE_enum(
        "target", DEFAULT_TARGET, sorted(TARGETS), "Target device.", flag_values=flag_values
    )
    flags.DEFINE_string(
        "grid",
        None,
        "Override the operation's grid: XxY (e.g. 4x4) or 'full'.",
        flag_values=flag_values,
    )
    flags.DEFINE_multi_string(
        "include_dir",
        [],
        "Header search directory for external calls, in order. Repeat.",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "out",
        None,
        "Output directory. Without it, print the artifacts to stdout.",
        flag_values=flag_values,
    )
    flags.DEFINE_enum(
        "emit",
        "all",
        ["ir", "cpp", "manifest", "plan", "all"],
        "What to emit.",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "dump_ir_after",
        None,
        "Directory receiving the IR after the frontend and after each compiler pass "
        "(00-frontend.mlir, 01-<pass>.mlir, ...; rerun a pass with ttl-opt -p <pass>).",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "options",
        "",
        "TT-Lang compiler options overriding the operation's options= "
        "(e.g. '--no-ttl-maximize-dst'; see docs/language.md).",
        flag_values=flag_values,
    )
    flags.mark_flags_as_required(REQUIRED_FLAGS, flag_values=flag_values)
    return flag_values


def new_flags() -> flags.FlagValues:
    """A fresh, unparsed ``FlagValues`` holding ttlc's flags (one per worker request)."""
    return define_flags(flags.FlagValues())


def _parse_args(args: Sequence[str]) -> dict[str, TensorSpec | ConstantParam]:
    """``--arg`` values: a tensor spec (``a=bf16[64,64]``) or a compile-time constant
    (``scale=const:(2, 2)``)."""
    specs: dict[str, TensorSpec | ConstantParam] = {}
    for item in args:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise FlagError(
                f"--arg {item!r}: write name=spec, e.g. a=bf16[64,64] (or scale=const:(2, 2))"
            )
        if name.strip() in specs:
            raise FlagError(f"--arg {name.strip()!r} given twice")
        try:
            specs[name.strip()] = param_spec(text)
        except ValueError as e:
            raise FlagError(f"--arg {item!r}: {e}") from None
    return specs


def parse_flags(argv: Sequence[str], flag_values: flags.FlagValues) -> list[str]:
    """Parses ``argv`` (program name first) into ``flag_values``; returns what is left.

    Raises FlagError when --src or --operation is missing or empty, and absl's
    ``flags.Error`` for any other bad flag.
    """
    try:
        rest = flag_values(list(argv))
    except flags.IllegalFlagValueError:
        # Parsed, then a validator failed: the only validators are the required flags'.
        if flag_values.is_parsed() and not _required_given(flag_values):
            raise FlagError(_REQUIRED_MESSAGE) from None
        raise
    if not _required_given(flag_values):
        raise FlagError(_REQUIRED_MESSAGE)
    return rest


def _required_given(flag_values: flags.FlagValues) -> bool:
    return all(flag_values[name].value for name in REQUIRED_FLAGS)


def main(argv: Sequence[str], flag_values: flags.FlagValues) -> int:
    """Compiles with the parsed ``flag_values``; ``argv`` is what parsing left.

    Returns the exit status.
    """
    from ttl.errors import TTLCompileError
    from ttl.options import CompilerOptions

    fv = flag_values
    try:
        if len(argv) > 1:
            raise FlagError(f"unexpected positional arguments: {' '.join(argv[1:])}")
        specs = _parse_args(fv.arg)
        from ttl.targets import parse_grid_flag

        grid = parse_grid_flag(fv.grid)
        options = CompilerOptions.from_string(fv.options)
    except (FlagError, ValueError) as e:
        print(f"ttlc: error: {e}", file=sys.stderr)
        return EXIT_BAD_FLAGS
    from ttl.compiler.driver import compile_operation, load_operation

    try:
        op = load_operation(fv.src, fv.operation)
    except (OSError, LookupError) as e:
        print(f"ttlc: error: {e}", file=sys.stderr)
        return EXIT_BAD_FLAGS
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        result = compile_operation(
            op,
            specs,
            target=fv.target,
            grid=grid,
            include_dirs=tuple(fv.include_dir),
            dump_ir_after=fv.dump_ir_after,
            options=options,
        )
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    if fv.out:
        try:
            result.write(fv.out, fv.emit)
        except OSError as e:
            print(f"ttlc: error: cannot write --out {fv.out}: {e.strerror or e}", file=sys.stderr)
            return EXIT_BAD_FLAGS
    else:
        files = result.files(fv.emit)
        try:
            for name in files:
                if len(files) > 1:
                    print(f"// ----- {name}")
                sys.stdout.write(files[name])
            sys.stdout.flush()
        except BrokenPipeError:
            raise  # run() ends quietly (quiet_broken_pipe)
        except OSError as e:  # a full disk, say
            print(f"ttlc: error: cannot write the output: {e.strerror or e}", file=sys.stderr)
            return EXIT_USER_ERROR
    return 0


def run() -> None:
    """Console-script entry point (``ttlc``).

    The flags go into absl's global ``FLAGS`` here, in the entry point only, so
    absl's ``--help``, ``--helpfull`` and ``--flagfile`` work as usual.
    """
    if sys.argv[1:] == ["--version"]:
        print_version_and_exit("ttlc")
    flag_values = define_flags(flags.FLAGS)
    if asks_for_help(sys.argv[1:]):
        print_help_and_exit(USAGE, DESCRIPTION, flag_values, __name__)

    def flags_parser(argv: list[str]) -> list[str]:
        try:
            return parse_flags(argv, flag_values)
        except (FlagError, flags.Error) as e:
            print(f"ttlc: error: {e}", file=sys.stderr)
            sys.exit(EXIT_BAD_FLAGS)

    with quiet_broken_pipe():
        app.run(lambda argv: sys.exit(main(argv, flag_values)), flags_parser=flags_parser)


if __name__ == "__main__":
    run()
