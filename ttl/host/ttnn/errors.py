"""Errors the ttnn shim raises for bad host code: located at the user's call."""

from __future__ import annotations

from ttl.errors import TTLCompileError


class TtnnError(TTLCompileError, ValueError):
    """Bad input to a ttnn function: the user's line, what is wrong, what to write."""


class MissingTtnnFunctionError(TTLCompileError, AttributeError):
    """A ttnn name the emulator's subset does not provide (``hasattr`` sees it as absent)."""


def ttnn_error(message: str, hint: str) -> TtnnError:
    """A :class:`TtnnError` located at the first frame outside the ttl package."""
    from ttl.host.jit import user_loc

    return TtnnError(message, user_loc(), hint)
