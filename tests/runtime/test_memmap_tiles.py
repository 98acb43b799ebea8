"""Host/device agreement on the address map, and the TT tile layout."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from ttl.host import toolchain
from ttl.runtime import memmap, tilize, untilize
from ttl.runtime.errors import DeviceFault

_DEFINE = re.compile(r"^#define TTL_(\w+) (0x[0-9A-Fa-f]+|\d+)u?\b", re.MULTILINE)


def test_device_header_matches_host_memmap():
    header = (toolchain.INCLUDE_DIR / "ttl" / "device_map.h").read_text()
    defines = dict(_DEFINE.findall(header))
    assert len(defines) > 60
    for name, value in defines.items():
        assert hasattr(memmap, name), f"memmap.py lacks {name}"
        assert getattr(memmap, name) == int(value, 0), name


def test_linker_script_local_region_matches_memmap():
    ld = (toolchain.DEVICE_DIR / "link" / "kernel.ld").read_text()
    m = re.search(r"ORIGIN = (0x[0-9A-Fa-f]+), LENGTH = (\d+)M", ld)
    assert (int(m[1], 16), int(m[2]) << 20) == (memmap.LOCAL_BASE, memmap.LOCAL_SIZE)
    stack = re.search(r"__stack_top - (0x[0-9A-Fa-f]+) - (0x[0-9A-Fa-f]+)", ld)
    assert int(stack[1], 16) == memmap.STACK_SIZE
    assert memmap.LOCAL_BASE + memmap.LOCAL_SIZE - int(stack[1], 16) - int(stack[2], 16) == (
        memmap.STACK_GUARD
    )


def test_tilize_face_layout():
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64)
    t = tilize(x)
    assert t.shape == (2, 1024)
    # Tile 0: face 0 = rows 0-15 cols 0-15, face 1 = rows 0-15 cols 16-31, face 2 below face 0.
    assert t[0, 0] == x[0, 0] and t[0, 15] == x[0, 15] and t[0, 16] == x[1, 0]
    assert t[0, 256] == x[0, 16]
    assert t[0, 512] == x[16, 0]
    assert t[0, 768] == x[16, 16]
    assert t[1, 0] == x[0, 32]


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_tilize_untilize_round_trip(dtype):
    x = np.random.default_rng(0).standard_normal((3, 64, 96)).astype(dtype)
    t = tilize(x)
    assert t.shape == (3 * 2 * 3, 1024) and t.dtype == x.dtype
    np.testing.assert_array_equal(untilize(t, x.shape), x)


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_tilize_and_untilize_into_given_buffers(dtype):
    x = np.random.default_rng(1).standard_normal((2, 64, 96)).astype(dtype)
    staging = np.empty(x.size, dtype)
    tiles = tilize(x, out=staging)
    assert np.shares_memory(tiles, staging)
    np.testing.assert_array_equal(tiles, tilize(x))
    back = np.empty_like(x)
    assert untilize(tiles, x.shape, out=back) is back
    np.testing.assert_array_equal(back, x)


def test_untilize_refuses_an_out_it_cannot_fill_in_place():
    tiles = tilize(np.zeros((64, 32), np.float32))
    transposed = np.empty((32, 64), np.float32).T  # right shape, not C-contiguous
    with pytest.raises(ValueError, match="C-contiguous float32 array of 2048 elements"):
        untilize(tiles, (64, 32), out=transposed)
    with pytest.raises(ValueError, match="C-contiguous float32"):
        tilize(np.zeros((64, 32), np.float32), out=np.empty(2048, np.float64))


def test_untileable_shape_is_rejected():
    with pytest.raises(ValueError, match="multiples of 32"):
        tilize(np.zeros((30, 32)))


def test_crt0_mailbox_address_matches_memmap():
    crt0 = (toolchain.DEVICE_DIR / "link" / "crt0.S").read_text()
    m = re.search(r"lui t0, (0x[0-9A-Fa-f]+)\s+sw ra, (\d+)\(t0\)", crt0)
    assert int(m[1], 16) << 12 == memmap.HART_ARGS_BASE + memmap.MAILBOX_OFFSET
    assert int(m[2]) == 4 * memmap.MB_RESUME


def test_take_queue_returns_entries_and_empties_the_queue():
    queue = np.zeros(64, dtype=np.uint32)
    queue[0] = 2
    queue[8:24] = np.arange(16)
    assert memmap.take_queue(queue, 32, 8, 7, "NOC") == list(range(16))
    assert queue[0] == 0
    assert memmap.take_queue(queue, 32, 8, 7, "NOC") == []
    queue[0] = 1  # the harts pass memoryviews of the mapped queue
    assert memmap.take_queue(memoryview(queue), 32, 8, 7, "NOC") == list(range(8))
    assert queue[0] == 0


def test_take_queue_rejects_a_corrupt_count():
    queue = np.zeros(64, dtype=np.uint32)
    queue[0] = 8
    with pytest.raises(DeviceFault, match="coprocessor queue count 8 is corrupt"):
        memmap.take_queue(queue, 32, 8, 7, "coprocessor")


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.parametrize("nbytes", [4096 * 64, 4096 * 64 + 100, 100])
def test_zero_clears_a_buffer_and_gives_its_pages_back(nbytes):
    buf = memmap.page_aligned_buffer(nbytes)
    assert buf.ctypes.data % 4096 == 0 and buf.size == nbytes and not buf.any()
    buf[:] = 7
    memmap.zero(buf)
    assert not buf.any()
    buf[-1] = 1  # still the same writable memory
    assert buf[-1] == 1


def test_zeroing_a_touched_buffer_does_not_keep_its_memory():
    # Each hart's 1 MiB LOCAL and each node's L1 are zeroed at every launch: writing
    # zeros would fault in every page (about 220 MB on a full 8x8 grid, measured).
    buf = memmap.page_aligned_buffer(64 << 20)
    buf[:] = 1
    touched = _rss_kib()
    memmap.zero(buf)
    assert touched - _rss_kib() > 48 << 10  # KiB: most of the 64 MiB went back
