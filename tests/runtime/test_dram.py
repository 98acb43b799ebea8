"""DRAM: interleaved placement, the striped host layout, allocation and bounds."""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import Device, LaunchError
from ttl.runtime.dram import DRAM_FIRST_ADDRESS, STRIPE, Dram, DramAccessError


@pytest.mark.parametrize("page_size", [64, STRIPE, 2 * STRIPE, 96])
@pytest.mark.parametrize("num_pages", [1, 11, 12, 29])
def test_pages_land_where_the_device_formula_puts_them(page_size, num_pages):
    """Page i is in bank i % banks at base + (i // banks) * page_size, for every page
    size: whole-stripe pages take the strided fast path, others go page by page."""
    dram = Dram(12)
    dram.allocate(3, 64)  # the buffer under test does not start at the first address
    base = dram.allocate(num_pages, page_size)
    assert base % STRIPE == 0
    pages = np.random.default_rng(num_pages).integers(0, 256, (num_pages, page_size), np.uint8)
    dram.write_pages(base, page_size, pages)
    for i in range(num_pages):
        got = dram.read(i % 12, base + (i // 12) * page_size, page_size)
        np.testing.assert_array_equal(got, pages[i])
    np.testing.assert_array_equal(dram.read_pages(base, page_size, num_pages), pages)


def test_stripe_pages_are_contiguous_on_the_host_in_page_order():
    dram = Dram(8)
    base = dram.allocate(20, STRIPE)
    view = dram.pages_view(base, STRIPE, 20)
    view[...] = np.arange(20, dtype=np.uint8)[:, None]
    for i in range(20):
        assert dram.read(i % 8, base + (i // 8) * STRIPE, STRIPE)[0] == i
    assert dram.pages_view(base, 2 * STRIPE, 10) is None  # other page sizes are strided


def test_a_bank_range_across_stripes_reads_and_writes_in_pieces():
    dram = Dram(12)
    base = dram.allocate(24, STRIPE)
    data = np.arange(3000, dtype=np.uint32).view(np.uint8)[: STRIPE + 100]
    dram.write(5, base + 1000, data)
    np.testing.assert_array_equal(dram.read(5, base + 1000, data.size), data)
    assert not dram.read(6, base, 2 * STRIPE).any()  # the neighbouring bank is untouched


def test_growth_keeps_contents():
    dram = Dram(12)
    base = dram.allocate(12, STRIPE)
    dram.write(3, base, np.full(16, 7, np.uint8))
    size = dram.host.size
    dram.allocate(12 * 9000, STRIPE)  # beyond the initial host memory
    assert dram.host.size > size
    assert (dram.read(3, base, 16) == 7).all()


def test_accesses_outside_allocated_dram_are_errors():
    dram = Dram(12)
    base = dram.allocate(12, STRIPE)
    with pytest.raises(DramAccessError, match="DRAM bank 12 does not exist"):
        dram.read(12, base, 4)
    with pytest.raises(DramAccessError, match="outside allocated DRAM"):
        dram.read(0, base + STRIPE, 4)
    with pytest.raises(DramAccessError, match="outside allocated DRAM"):
        dram.write(0, DRAM_FIRST_ADDRESS - 4, np.zeros(4, np.uint8))


def test_release_frees_everything_allocated_after_the_mark():
    dram = Dram(12)
    first = dram.allocate(12, STRIPE)
    mark = dram.mark()
    dram.allocate(100, STRIPE)
    dram.release(mark)
    assert dram.allocate(12, STRIPE) == first + STRIPE


def test_a_buffer_larger_than_the_device_dram_is_a_launch_error():
    dram = Dram(12, bank_bytes=1 << 20)
    dram.allocate(12 * 256, 2048)  # 512 KiB per bank
    with pytest.raises(LaunchError, match=r"does not fit the device DRAM: 12 banks of 1 MiB"):
        dram.allocate(12 * 512, 2048)
    assert Device("wormhole_b0").dram.bank_bytes == 1 << 30  # 12 GiB in 12 banks
    with pytest.raises(LaunchError, match="does not fit the device DRAM"):
        Device("wormhole_b0").dram.allocate(1 << 20, 1 << 16)  # 64 GiB
