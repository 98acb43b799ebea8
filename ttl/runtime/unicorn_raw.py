"""Two libunicorn entry points used directly, past the binding's per-call Python layers.

- MMIO writes are the emulator's hottest callback (every NOC barrier rings a
  doorbell). The binding's ``Uc.mmio_map`` wraps each callback in two Python
  layers (an exception guard and an adapter closure) that cost more than the
  work they dispatch, so the hart registers its handler through
  ``uc_mmio_map`` itself. The handler must not raise: ctypes would print and
  drop the exception (Hart._mmio_write records errors and stops the run
  instead).
- ``uc_emu_start`` runs once per scheduler turn; :func:`starter` calls it with
  the binding's own error checks but without its wrapper method.

Uses the binding's loaded library (``unicorn.unicorn_py3.unicorn.uclib``) of
the pinned unicorn release; tests/runtime exercises every doorbell through it.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from unicorn import Uc, UcError
from unicorn.unicorn_const import UC_ERR_OK
from unicorn.unicorn_py3.unicorn import uclib

# void (*uc_cb_mmio_write_t)(uc_engine *uc, uint64_t offset, unsigned size,
#                            uint64_t value, void *user_data)
_WRITE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint, ctypes.c_uint64, ctypes.c_void_p
)
# uint64_t (*uc_cb_mmio_read_t)(uc_engine *uc, uint64_t offset, unsigned size, void *user_data)
_READ = ctypes.CFUNCTYPE(
    ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint, ctypes.c_void_p
)


def _read_zero(handle, offset, size, user_data) -> int:
    return 0


_READ_ZERO = _READ(_read_zero)


def map_write_only(
    uc: Uc, base: int, size: int, on_write: Callable[[int, int, int], None]
) -> object:
    """Maps [base, base + size) as MMIO: writes call ``on_write(offset, size, value)``,
    reads return 0. Returns the ctypes callback, which the caller must keep alive
    as long as ``uc`` lives."""

    def write(handle, offset, width, value, user_data):
        on_write(offset, width, value)

    callback = _WRITE(write)
    status = uclib.uc_mmio_map(uc._uch, base, size, _READ_ZERO, None, callback, None)
    if status != UC_ERR_OK:
        raise UcError(status)
    return callback


def starter(uc: Uc) -> Callable[[int, int, int], None]:
    """``start(begin, until, count)``: ``uc.emu_start`` without the wrapper's overhead.

    Raises UcError on a failed start, and re-raises an exception a binding-level
    hook (``uc.hook_add``) raised during the run, as ``emu_start`` does."""
    emu_start, handle = uclib.uc_emu_start, uc._uch

    def start(begin: int, until: int, count: int) -> None:
        uc._hook_exception = None
        status = emu_start(handle, begin, until, 0, count)
        if status != UC_ERR_OK:
            raise UcError(status)
        if uc._hook_exception is not None:
            raise uc._hook_exception

    return start
