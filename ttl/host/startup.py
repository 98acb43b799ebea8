"""Garbage collection while a `ttl run` program starts up.

Importing torch and ttl leaves about 170 000 long-lived objects. CPython's full
collections traverse every one of them each time the objects created since the
last one reach a quarter of them, which importing does several times over, and
once more at exit: collections that find next to nothing.

`ttl run` therefore defers full collections while its program starts up
(:func:`begin`; young collections go on, so short-lived cycles are still
freed). Start-up ends when the program opens a device or calls its first
operation (:func:`end`): everything alive then is moved to the permanent
generation (``gc.freeze``, as the gc documentation advises for state kept for
the life of a process) and the thresholds are restored, so later collections,
the one at exit included, traverse only what the program creates from then on.
A tutorial's whole process at 512 x 512 went from 1.24 s to 0.87 s (medians of
5, `ttl run` of elementwise step 1), about 0.2 s of it at exit. (Objects frozen
in reference cycles are not finalized at exit; CPython does not promise that anyway.)

Only `ttl run` calls :func:`begin`: a program that imports ttl under its own
interpreter keeps its collector as it is, and :func:`end` is then a no-op.
"""

from __future__ import annotations

import gc

# gc.set_threshold's third value: full collections wait for this many collections
# of the middle generation (CPython's default is 10).
DEFERRED_FULL_COLLECTIONS = 1000

_saved: tuple[int, int, int] | None = None


def begin() -> None:
    """Defers full collections until :func:`end` (start-up of a `ttl run` program)."""
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        young, middle, _ = _saved
        gc.set_threshold(young, middle, DEFERRED_FULL_COLLECTIONS)


def end(freeze: bool = True) -> None:
    """Ends start-up (once): freezes what is alive now, unless not ``freeze`` (the
    program has ended), and restores the thresholds."""
    global _saved
    if _saved is not None:
        saved, _saved = _saved, None
        if freeze:
            gc.collect(1)  # young cycles made while starting up are freed, not frozen
            gc.freeze()
        gc.set_threshold(*saved)


def in_startup() -> bool:
    """Whether full collections are deferred (between :func:`begin` and :func:`end`)."""
    return _saved is not None
