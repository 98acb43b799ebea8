"""``ttl-opt``: run ttl passes on IR text, like ``xdsl-opt`` / ``mlir-opt``.

Reads a ``.mlir`` file (or stdin) holding the ``ttl`` dialect with the
builtin, func, scf and arith dialects, runs the passes named by ``-p``
(``--passes``) in order, verifying the IR before and after each, and prints
the result::

    ttl-opt -p ttl-assign-slots,ttl-check-dfb-protocol kernel.mlir
    ttlc ... --emit=ir | ttl-opt -p ttl-compute-lifetimes

Built on xDSL's ``xDSLOptMain`` (so ``--print-between-passes``,
``--split-input-file``, ``--verify-diagnostics``, ``-o`` ... work as in
``xdsl-opt``), with only the dialects and passes of the ttl compiler.

Exit status: 0 on success; 1 when the input does not parse or verify or a
pass reports an error (the message only, no traceback); 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from ttl.compiler.dialect import TTL
from ttl.compiler.passes.common import TTLPassError
from ttl.compiler.passes.registry import DEFAULT_PIPELINE, available_passes
from ttl.errors import TTLCompileError

PROG = "ttl-opt"
EXIT_ERROR = 1
EXIT_BAD_ARGS = 2


def pass_summaries() -> list[tuple[str, str]]:
    """(name, first line of its docstring) of every pass ttl-opt knows, in pipeline order."""
    out = []
    for name, factory in available_passes().items():
        doc = (factory().__doc__ or "").strip()
        out.append((name, " ".join(doc.split("\n\n")[0].replace("``", "").split())))
    return out


def _epilog() -> str:
    width = max(len(n) for n, _ in pass_summaries())
    lines = ["passes:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in pass_summaries()]
    lines += [
        "",
        f"the compiler's pipeline (ttlc): -p {DEFAULT_PIPELINE}",
        "",
        "example:",
        f"  {PROG} -p ttl-check-dfb-protocol,ttl-compute-lifetimes,ttl-allocate-dfbs op.mlir",
    ]
    return "\n".join(lines)


class TTLOptMain(xDSLOptMain):
    """``xDSLOptMain`` with the ttl dialects and passes only."""

    def register_all_dialects(self) -> None:
        for dialect in (Builtin, Func, Scf, Arith, TTL):
            self.ctx.load_dialect(dialect)

    def register_all_passes(self) -> None:
        for name, factory in available_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"]}

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """The printed IR, ending in one newline (as ``ttlc --emit=ir`` writes it)."""
        return super().output_resulting_program(prog).rstrip("\n") + "\n"

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.prog = PROG
        arg_parser.description = (
            "Run ttl compiler passes on IR text (the ttl dialect with builtin, func, scf and "
            "arith) and print the result."
        )
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = _epilog()
        super().register_all_arguments(arg_parser)


def main(argv: Sequence[str]) -> int:
    """Run ttl-opt with ``argv`` (without the program name); returns the exit status."""
    try:
        tool = TTLOptMain(args=list(argv))
    except SystemExit as e:  # argparse: --help, --version or a usage error
        return e.code if isinstance(e.code, int) else EXIT_BAD_ARGS
    except (ValueError, ArgSpecParseError) as e:  # an unknown pass or a bad pass option
        print(f"{PROG}: error: {e}", file=sys.stderr)
        print(f"{PROG}: passes: {', '.join(available_passes())}", file=sys.stderr)
        return EXIT_BAD_ARGS
    where = tool.get_input_name()
    try:
        tool.run()
    except (OSError, ValueError) as e:  # unreadable input, unknown file extension
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except ParseError as e:
        print(f"{PROG}: {where}: error: the input does not parse:\n{e}", file=sys.stderr)
        return EXIT_ERROR
    except TTLPassError as e:
        print(f"{where}: {e.render()}", file=sys.stderr)
        return EXIT_ERROR
    except VerifyException as e:
        print(f"{where}: error: the IR does not verify: {_message(e)}", file=sys.stderr)
        return EXIT_ERROR
    except DiagnosticException as e:  # other xDSL diagnostics
        print(f"{where}: error: {_message(e)}", file=sys.stderr)
        return EXIT_ERROR
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_ERROR
    return 0


def _message(e: Exception) -> str:
    """The message of an xDSL diagnostic without the annotated IR xDSL appends as notes."""
    return str(e).strip() or type(e).__name__


def run() -> None:
    """Console-script entry point (``ttl-opt``)."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
