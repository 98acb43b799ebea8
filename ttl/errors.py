"""User-facing diagnostics for TT-Lang programs."""

from __future__ import annotations

import linecache
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A position in a user's Python source (1-based line, 0-based column)."""

    filename: str
    line: int
    col: int

    def source_line(self) -> str:
        """The text of the line, without its newline ('' if unavailable)."""
        return linecache.getline(self.filename, self.line).rstrip("\n")


class TTLCompileError(Exception):
    """An error in a TT-Lang program, reported at the construct that caused it.

    The message names ``file:line:col``, shows the offending source line with a
    caret under the column, says what is wrong and what to write instead.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None, hint: str | None = None):
        self.message = message
        self.loc = loc
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """The full diagnostic text."""
        parts = []
        if self.loc is not None:
            parts.append(
                f"{self.loc.filename}:{self.loc.line}:{self.loc.col + 1}: error: {self.message}"
            )
            text = self.loc.source_line()
            if text:
                parts.append(f"    {text}")
                parts.append("    " + " " * self.loc.col + "^")
        else:
            parts.append(f"error: {self.message}")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


def caller_loc(depth: int = 2) -> SourceLoc:
    """Source location (line and column) of the call expression ``depth`` frames up."""
    frame = sys._getframe(depth)
    code = frame.f_code
    line, col = frame.f_lineno, 0
    positions = list(code.co_positions())
    idx = frame.f_lasti // 2
    if 0 <= idx < len(positions):
        pline, _, pcol, _ = positions[idx]
        if pline is not None and pcol is not None:
            line, col = pline, pcol
    return SourceLoc(code.co_filename, line, col)


def exit_status(code: object) -> int:
    """The process exit status for a ``SystemExit`` code, as the interpreter computes it:
    None is 0, an int is itself, anything else is printed to stderr and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
