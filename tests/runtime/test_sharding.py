"""The runtime's L1-sharded tensors: layouts, placement in L1, descriptors, and the launch
errors (shards that do not tile the tensor, nodes outside the grid, L1 or descriptor
space exhausted)."""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import (
    Device,
    DFBConfig,
    KernelFaultError,
    KernelSpec,
    LaunchError,
    Program,
    ShardLayout,
    memmap,
)
from ttl.runtime.errors import DeviceFault
from ttl.runtime.sharding import DESCRIPTOR_BASE, place_in_l1, read_pages

FOUR = ((0, 0), (1, 0), (0, 1), (1, 1))


def test_place_and_gather_round_trip_through_the_nodes_l1():
    dev = Device("wormhole_b0", (2, 2))
    data = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    t = dev.write_sharded(data, "f32", ShardLayout((1, 2), FOUR), DESCRIPTOR_BASE)
    place_in_l1([t], 4096, dev.target.l1_bytes, "wormhole_b0")
    assert t.l1_base == 4096
    t.place(dev.nodes)
    # shard 1 (tile row 0, tile columns 2..3) lives on node (1, 0), its pages row-major
    np.testing.assert_array_equal(
        dev.nodes[1, 0].l1[4096 : 4096 + 2 * 4096], t.pages[2:4].reshape(-1)
    )
    pages = read_pages(dev.nodes[0, 0].regs32, DESCRIPTOR_BASE, 4096, 8, dev.noc.by_noc)
    np.testing.assert_array_equal(pages, t.pages)
    t.pages[:] = 0
    t.gather(dev.nodes)
    np.testing.assert_array_equal(dev.read_tensor(t), data)


def test_layouts_that_do_not_fit_the_tensor_or_grid_are_launch_errors():
    dev = Device("wormhole_b0", (2, 2))
    data = np.zeros((64, 128), np.float32)
    with pytest.raises(LaunchError, match=r"shards of 3x1 pages do not tile the 2x4 page grid"):
        dev.write_sharded(data, "f32", ShardLayout((3, 1), FOUR), DESCRIPTOR_BASE)
    with pytest.raises(LaunchError, match=r"has 4 shards of 1x2 pages but its layout names 2"):
        dev.write_sharded(data, "f32", ShardLayout((1, 2), FOUR[:2]), DESCRIPTOR_BASE)
    outside = ((0, 0), (1, 0), (0, 1), (2, 1))
    with pytest.raises(LaunchError, match=r"op: a shard lives on node \(2,1\), outside the"):
        dev.write_sharded(data, "f32", ShardLayout((1, 2), outside), DESCRIPTOR_BASE, "op")
    twice = ((0, 0), (1, 0), (0, 1), (0, 0))
    with pytest.raises(LaunchError, match=r"two shards live on the same node"):
        dev.write_sharded(data, "f32", ShardLayout((1, 2), twice), DESCRIPTOR_BASE)


def test_l1_and_descriptor_space_are_checked():
    dev = Device("wormhole_b0", (2, 2))
    big = dev.write_sharded(
        np.zeros((32 * 800, 64), np.float32), "f32", ShardLayout((200, 2), FOUR), DESCRIPTOR_BASE
    )
    with pytest.raises(
        LaunchError, match=r"the DFBs \(4096 B\) and the L1-sharded tensors' shards"
    ):
        place_in_l1([big], 4096, dev.target.l1_bytes, "wormhole_b0")
    small = ShardLayout((1, 2), FOUR)
    late = dev.write_sharded(
        np.zeros((64, 128), np.float32),
        "f32",
        small,
        DESCRIPTOR_BASE + memmap.SHARD_DESC_SIZE - small.descriptor_bytes + 4,
    )
    with pytest.raises(LaunchError, match=r"descriptors need \d+ bytes but a node has 4096"):
        place_in_l1([late], 0, dev.target.l1_bytes, "wormhole_b0")


def test_reading_through_a_bad_descriptor_is_a_fault():
    dev = Device("wormhole_b0", (1, 1))
    with pytest.raises(DeviceFault, match=r"is not an L1-sharded tensor's descriptor"):
        read_pages(dev.nodes[0, 0].regs32, 0xF0000000, 2048, 1, dev.noc.by_noc)


PAGE_COPIER = """#include <cstdint>
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const auto t = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 4096);
  cb_reserve_back(0, 1);
  uint32_t buf = get_write_ptr(0);
  noc_async_read_page(get_arg_val<uint32_t>(1), t, buf);  // the page to copy
  noc_async_read_barrier();
  noc_async_write_page(get_arg_val<uint32_t>(2), t, buf);  // where it goes
  noc_async_write_barrier();
  noc_async_read(t.get_noc_addr(6), buf, 4096);  // through the accessor's NOC address
  noc_async_read_barrier();
  noc_async_write(buf, t.get_noc_addr(1), 4096);
  noc_async_write_barrier();
}
"""


def _copier_run(build, src_page: int):
    """Node (0, 0) copies pages of a 2x4-page f32 tensor width-sharded over (0,0), (1,0)."""
    dev = Device("wormhole_b0", (2, 1))
    data = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    t = dev.write_sharded(data, "f32", ShardLayout((2, 2), ((0, 0), (1, 0))), DESCRIPTOR_BASE)
    elf = build(PAGE_COPIER, ct_args=[2, 4096], name="copier")
    report = dev.launch(
        Program(
            [KernelSpec("copier", elf, "dm0", [t.descriptor, src_page, 4], nodes=[(0, 0)])],
            dfbs=[DFBConfig(0, 4096, 1, 1, "f32")],
            sharded=[t],
        )
    )
    return data, dev.read_tensor(t), report


def test_kernels_read_and_write_pages_in_their_owners_l1(build):
    data, out, report = _copier_run(build, 3)
    tiles = data.reshape(2, 32, 4, 32).transpose(0, 2, 1, 3).reshape(8, 32, 32)
    got = out.reshape(2, 32, 4, 32).transpose(0, 2, 1, 3).reshape(8, 32, 32)
    want = tiles.copy()
    want[4] = tiles[3]  # page 3 (node (1,0)) written to page 4 (node (0,0))
    want[1] = tiles[6]  # page 6 (node (1,0)) written to page 1 (node (0,0))
    np.testing.assert_array_equal(got, want)
    traffic = report.noc_traffic[0, 0]
    assert (traffic.remote_l1_bytes_read, traffic.local_l1_bytes_written) == (4096, 4096)
    assert traffic.dram_bytes_read == traffic.dram_bytes_written == 0


def test_a_page_past_the_shards_stops_the_kernel(build):
    with pytest.raises(KernelFaultError, match=r"page 9 of an L1-sharded tensor of 8 pages"):
        _copier_run(build, 9)
