"""The runtime's L1-sharded tensors: layouts, placement in L1, descriptors, and the launch
errors (shards that do not tile the tensor, nodes outside the grid, L1 or descriptor
space exhausted)."""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import Device, LaunchError, ShardLayout, memmap
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
    pages = read_pages(dev.nodes[0, 0].regs32, DESCRIPTOR_BASE, 4096, 8, dev.nodes)
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
        read_pages(dev.nodes[0, 0].regs32, 0xF0000000, 2048, 1, dev.nodes)
