"""``ttl``: run TT-Lang programs written for hardware on the emulator.

    ttl --help | --version
    ttl run --help
    ttl run [--target=wormhole_b0] [--grid=XxY|full] [--profile] [--trace=FILE]
            [--print_file=FILE] program.py [program args...]
    ttl plot [--title=TEXT] TRACE.json OUT.png

``ttl plot`` draws a trace's timeline as a PNG (``ttl.host.plot_cli``).

``--ttl-*`` compiler options among the program's arguments are taken out and
apply to every operation call (docs/language.md, "Compute options";
``--ttl-help`` lists them). The program runs as ``__main__`` with
``sys.argv = [program.py, args...]``;
``import ttnn`` inside it resolves to the emulator's host subset
(``ttl.host.ttnn``) and every ``@ttl.operation`` it calls goes through the
JIT (compile once, cache, dispatch). Exit status: the program's own, 1 when
it raised or an operation failed to compile or run, 2 for usage errors (an
unknown command prints the usage). ``--help`` exits 0.
What is printed on failure: a TT-Lang diagnostic for compile errors, the
emulator's message for deadlocks, runaways and faults, and for an exception
the program raised, its traceback restricted to the program's own frames
(never ours).
"""

from __future__ import annotations

import errno
import os
import runpy
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from absl import app, flags

from ttl.errors import TTLCompileError, exit_status
from ttl.host.cli_help import (
    HELP_FLAGS,
    asks_for_help,
    print_help_and_exit,
    print_version_and_exit,
    quiet_broken_pipe,
)
from ttl.options import CompilerOptions, OptionsError, help_requested, split_argv
from ttl.targets import DEFAULT_TARGET, TARGETS, parse_grid_flag


def define_flags(flag_values: flags.FlagValues) -> flags.FlagValues:
    """Defines ``ttl run``'s flags in ``flag_values`` and returns it.

    Nothing is defined at import time, so this module imports next to the other
    CLIs; the console script defines them in absl's global ``FLAGS`` (for
    ``--help``), tests may use a fresh :func:`new_flags`.
    """
    flags.DEFINE_enum(
        "target",
        DEFAULT_TARGET,
        sorted(TARGETS),
        "Device target to emulate.",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "grid",
        None,
        "Run every operation on this grid instead of its own: XxY (e.g. 4x4) or 'full'.",
        flag_values=flag_values,
    )
    flags.DEFINE_boolean(
        "profile",
        False,
        "After the program, print the per-call profile table "
        "(kernels, exact instructions executed, blocks and cycles waited per DFB wait, "
        "tiles moved, coprocessor ops); slows emulation.",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "trace",
        None,
        "Write a Chrome Trace Event Format timeline (Perfetto, chrome://tracing) of every "
        "call to this file: per node and kernel, lifetimes, signposts and blocking waits, "
        "in model cycles; profiles the run (slower).",
        flag_values=flag_values,
    )
    flags.DEFINE_string(
        "print_file",
        None,
        "Write the kernels' print() lines to this file instead of standard output.",
        flag_values=flag_values,
    )
    return flag_values


def new_flags() -> flags.FlagValues:
    """A fresh, unparsed ``FlagValues`` holding ``ttl run``'s flags."""
    return define_flags(flags.FlagValues())


RUN_USAGE = (
    "usage: ttl run [--target=T] [--grid=XxY|full] [--profile] [--trace=FILE] "
    "[--print_file=FILE]\n"
    "               program.py [args...]\n"
    "       (--ttl-* compiler options among args are ttl's: --ttl-help lists them)"
)
USAGE = (
    f"{RUN_USAGE}\n       ttl plot [--title=TEXT] TRACE.json OUT.png\n       ttl --help | --version"
)
HELP = f"""{USAGE}

Run TT-Lang programs written for Tenstorrent hardware on the emulated device.

commands:
  run     run program.py; its @ttl.operation calls compile, cache and run on the
          emulator, and `import ttnn` is the emulator's host subset (ttl run --help)
  plot    draw a timeline written by `ttl run --trace` as a PNG (ttl plot --help)

options:
  -h, --help  print this help and exit
  --version   print the version and exit

Docs: docs/jit.md (ttl run), docs/runtime.md (the emulator)."""
RUN_DESCRIPTION = (
    "Runs program.py as __main__ with sys.argv = [program.py, args...]; flags after\n"
    "program.py are the program's own. Exit status: the program's, 1 when it raised\n"
    "or an operation failed to compile or run, 2 for usage errors."
)
_INTERNAL = (
    str(Path(__file__).resolve().parent.parent),
    os.path.dirname(runpy.__file__),
    "<frozen runpy>",
)


def parse(argv: list[str], flag_values: flags.FlagValues) -> list[str]:
    """``ttl run <flags> program args`` -> [program, args...]; flags stop at the program."""
    if len(argv) < 2 or argv[1] != "run":
        _usage_error(f"unknown command '{argv[1]}'" if len(argv) > 1 else "no command")
    flag_values.set_gnu_getopt(False)  # the program's own --flags belong to the program
    try:
        rest = flag_values([argv[0], *argv[2:]])
        parse_grid_flag(flag_values.grid)
    except (flags.Error, ValueError) as e:
        _usage_error(str(e))
    return rest[1:]


def _usage_error(message: str) -> NoReturn:
    print(f"ttl: error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def main(argv: list[str], flag_values: flags.FlagValues) -> int:
    """Runs the program with the parsed ``flag_values``; returns the exit status."""
    if not argv:
        _usage_error("no program given")
    program, args = argv[0], argv[1:]
    if not os.path.isfile(program):
        print(f"ttl run: error: no such file: {program}", file=sys.stderr)
        return 1
    grid = parse_grid_flag(flag_values.grid)
    option_flags, args = split_argv(args)  # --ttl-* flags are ours, not the program's
    if help_requested(option_flags):
        print(CompilerOptions.usage())
        return 0
    try:
        options = CompilerOptions.from_string(" ".join(option_flags))
    except OptionsError as e:
        _usage_error(str(e))
    from ttl.host import jit, startup, ttnn
    from ttl.runtime.errors import DeviceError, InterruptedRunError
    from ttl.runtime.trace import check_writable

    try:  # unwritable output paths fail before anything runs
        if flag_values.trace:
            check_writable(flag_values.trace)
        jit.configure(
            target=flag_values.target,
            grid=grid,
            profile=flag_values.profile,
            options=options,
            prints=flag_values.print_file,
            trace=bool(flag_values.trace),
        )
    except OSError as e:
        print(f"ttl run: error: {e}", file=sys.stderr)
        return 2
    ttnn.install()
    sys.argv = [program, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    status = 0
    startup.begin()
    try:
        # __file__ is absolute, as CPython (3.9+) makes it for a script it runs.
        runpy.run_path(os.path.abspath(program), run_name="__main__")
    except SystemExit as e:
        status = exit_status(e.code)
    except TTLCompileError as e:
        print(e.render(), file=sys.stderr)
        status = 1
    except InterruptedRunError as e:  # Ctrl-C while kernels ran: where they were
        print(f"ttl run: {program}: {e}", file=sys.stderr)
        return 130
    except DeviceError as e:
        print(f"ttl run: {program}: {type(e).__name__}: {e}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        print("ttl run: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # `ttl run prog.py | head`: run() ends quietly
    except BaseException as e:
        if isinstance(e, OSError) and e.errno in _DISK_FULL:  # our prints' file, say
            print(f"ttl run: error: {_disk_full(e)}", file=sys.stderr)
            return 1
        print(_user_traceback(e), file=sys.stderr, end="")
        status = 1
    finally:
        startup.end(freeze=False)  # a program that never opened a device nor called one
    if flag_values.profile:
        sys.stdout.flush()
        print(jit.profile().table())
    try:
        if flag_values.trace:
            jit.write_trace(flag_values.trace)
            print(f"ttl run: trace written to {flag_values.trace}", file=sys.stderr)
        jit.close_prints()
    except OSError as e:
        if e.errno not in _DISK_FULL:
            raise
        print(f"ttl run: error: {_disk_full(e)}", file=sys.stderr)
        return 1
    return status


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _disk_full(error: OSError) -> str:
    """What to tell a user whose output (prints, trace) hit a full disk."""
    where = f" writing {error.filename}" if error.filename else " writing an output file"
    return f"{error.strerror}{where}: free some space, or write it to another disk"


def _user_traceback(error: BaseException) -> str:
    """The exception with only the program's frames (ttl and runpy frames dropped)."""
    exc = traceback.TracebackException.from_exception(error)
    frames = [f for f in exc.stack if not f.filename.startswith(_INTERNAL)]
    internal = bool(exc.stack) and exc.stack[-1].filename.startswith(_INTERNAL)
    exc.stack = traceback.StackSummary.from_list(frames)
    text = "".join(exc.format(chain=False))
    if internal:
        text += (
            "ttl run: the error was raised inside ttl, called from the line above; if the "
            "message does not say what to change, please report it\n"
        )
    return text


def run() -> None:
    """Console-script entry point (``ttl``).

    The flags go into absl's global ``FLAGS`` here, in the entry point only, so
    absl's ``--help`` and ``--helpfull`` work as usual.
    """
    command = sys.argv[1:2]
    if command and command[0] in (*HELP_FLAGS, "help"):
        print(HELP)
        sys.exit(0)
    if command == ["--version"]:
        print_version_and_exit("ttl")
    if command == ["plot"]:
        from ttl.host.plot_cli import main as plot_main

        sys.exit(plot_main(sys.argv[2:]))
    flag_values = define_flags(flags.FLAGS)
    if command == ["run"] and asks_for_help(sys.argv[2:]):
        print_help_and_exit(RUN_USAGE, RUN_DESCRIPTION, flag_values, __name__)
    with quiet_broken_pipe():
        app.run(
            lambda argv: sys.exit(main(argv, flag_values)),
            flags_parser=lambda argv: parse(argv, flag_values),
        )


if __name__ == "__main__":
    run()
