"""``ttlc``: compile a TT-Lang operation to IR, kernel C++ and a manifest.

Exit status: 0 on success, 1 on an error in the TT-Lang program (the
diagnostic only, no traceback), 2 on bad flags.

Example::

    ttlc --src examples/basic/eltwise_single_tile.py --operation eltwise_single_tile \\
         --arg a=bf16[64,128] --arg b=bf16[64,128] --arg c=bf16[64,128] --arg y=bf16[64,128] \\
         --out build/eltwise
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from absl import app, flags

from ttl.specs import TensorSpec
from ttl.targets import DEFAULT_TARGET, TARGETS

FLAGS = flags.FLAGS

flags.DEFINE_string("src", None, "Python file defining the operation.")
flags.DEFINE_string("operation", None, "Name of the @ttl.operation in --src.")
flags.DEFINE_multi_string("arg", [], "Tensor spec of a parameter: name=bf16[256,512]. Repeat.")
flags.DEFINE_enum("target", DEFAULT_TARGET, sorted(TARGETS), "Target device.")
flags.DEFINE_string("grid", None, "Override the operation's grid: XxY (e.g. 4x4) or 'full'.")
flags.DEFINE_multi_string(
    "include_dir", [], "Header search directory for external calls, in order. Repeat."
)
flags.DEFINE_string("out", None, "Output directory. Without it, print the artifacts to stdout.")
flags.DEFINE_enum("emit", "all", ["ir", "cpp", "manifest", "plan", "all"], "What to emit.")

EXIT_USER_ERROR = 1
EXIT_BAD_FLAGS = 2


class _FlagError(Exception):
    pass


def _parse_args(args: Sequence[str]) -> dict[str, TensorSpec]:
    specs: dict[str, TensorSpec] = {}
    for item in args:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise _FlagError(f"--arg {item!r}: write name=spec, e.g. a=bf16[64,64]")
        if name.strip() in specs:
            raise _FlagError(f"--arg {name.strip()!r} given twice")
        try:
            specs[name.strip()] = TensorSpec.parse(text)
        except ValueError as e:
            raise _FlagError(f"--arg {item!r}: {e}") from None
    return specs


def main(argv: Sequence[str]) -> int:
    """absl entry point; returns the exit status."""
    from ttl.errors import TTLCompileError

    try:
        if len(argv) > 1:
            raise _FlagError(f"unexpected positional arguments: {' '.join(argv[1:])}")
        if not FLAGS.src or not FLAGS.operation:
            raise _FlagError("--src and --operation are required")
        specs = _parse_args(FLAGS.arg)
        from ttl.compiler.evaluate import parse_grid_flag

        grid = parse_grid_flag(FLAGS.grid)
    except (_FlagError, ValueError) as e:
        print(f"ttlc: error: {e}", file=sys.stderr)
        return EXIT_BAD_FLAGS
    from ttl.compiler.driver import load_operation

    try:
        op = load_operation(FLAGS.src, FLAGS.operation)
    except (OSError, LookupError) as e:
        print(f"ttlc: error: {e}", file=sys.stderr)
        return EXIT_BAD_FLAGS
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        result = op.compile(
            specs, target=FLAGS.target, grid=grid, include_dirs=tuple(FLAGS.include_dir)
        )
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    if FLAGS.out:
        result.write(FLAGS.out, FLAGS.emit)
    else:
        files = result.files(FLAGS.emit)
        for name in files:
            if len(files) > 1:
                print(f"// ----- {name}")
            sys.stdout.write(files[name])
    return 0


def _flags_parser(argv: list[str]) -> list[str]:
    try:
        return FLAGS(argv)
    except flags.Error as e:
        print(f"ttlc: error: {e}", file=sys.stderr)
        sys.exit(EXIT_BAD_FLAGS)


def run() -> None:
    """Console-script entry point (``ttlc``)."""
    app.run(lambda argv: sys.exit(main(argv)), flags_parser=_flags_parser)


if __name__ == "__main__":
    run()
