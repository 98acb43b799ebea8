"""Errors the ttnn shim raises for bad host code: located at the user's call."""

from __future__ import annotations

from typing import Any

from ttl.errors import TTLCompileError


class TtnnError(TTLCompileError, ValueError):
    """Bad input to a ttnn function: the user's line, what is wrong, what to write."""


class MissingTtnnFunctionError(TTLCompileError, AttributeError):
    """A ttnn name the emulator's subset does not provide (``hasattr`` sees it as absent)."""


def ttnn_error(message: str, hint: str) -> TtnnError:
    """A :class:`TtnnError` located at the first frame outside the ttl package."""
    from ttl.host.jit import user_loc

    return TtnnError(message, user_loc(), hint)


def reject_options(options: dict[str, Any], known: set[str], function: str) -> None:
    """An error naming the options of ``function`` the emulator does not know."""
    unknown = sorted(set(options) - known)
    if unknown:
        raise ttnn_error(
            f"ttnn.{function}: the emulator's ttnn has no option {', '.join(unknown)}",
            "remove it (docs/ttnn.md lists the options each function takes)",
        )
