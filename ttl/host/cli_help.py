"""``--help``, ``--version`` and closed pipes for the absl-based command-line tools
(``ttl run``, ``ttlc``).

absl's own ``--help`` prints the flags of the ``__main__`` module, which for a
console script is pip's generated wrapper: nothing. These print a usage line,
the tool's description and its flags with their help, and exit 0.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from absl import flags

from ttl.version import VERSION

HELP_FLAGS = ("--help", "-h", "--help=true", "-?")


def asks_for_help(args: Sequence[str]) -> bool:
    """True when ``--help`` comes among ``args`` before the first positional argument.

    What follows a positional argument belongs to it (``ttl run prog.py --help``
    is the program's ``--help``).
    """
    for arg in args:
        if arg in HELP_FLAGS:
            return True
        if arg == "--" or not arg.startswith("-"):
            return False
    return False


def print_help_and_exit(
    usage: str, description: str, flag_values: flags.FlagValues, module: str
) -> NoReturn:
    """Prints usage, description and the flags ``module`` defined, then exits 0."""
    flag_help = flag_values.module_help(module).strip().split("\n", 1)[-1]  # drop "module:"
    print(f"{usage}\n\n{description}\n\nflags:\n{flag_help}\n\n--helpfull lists absl's own flags.")
    sys.exit(0)


def print_version_and_exit(tool: str) -> NoReturn:
    """Prints ``<tool> <version>`` and exits 0."""
    print(f"{tool} {VERSION}")
    sys.exit(0)


@contextlib.contextmanager
def quiet_broken_pipe() -> Iterator[None]:
    """A closed reader of our output (``| head``) ends the tool quietly, with 128 +
    SIGPIPE as a shell reports it, instead of a ``BrokenPipeError`` traceback."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error flushing stdout at exit
        sys.exit(141)
