"""ttnn features that were built apart, used together: bfloat8_b tensors in L1 shards,
and a row-major tensor next to sharded ones in one program."""

from __future__ import annotations

import pytest
import torch

from ttl.errors import TTLCompileError
from ttl.host import jit, ttnn
from ttl.runtime.profile import copy_totals

BFP8_TILE, BF16_TILE = 1088, 2048  # bytes per 32x32 tile


def test_bfloat8_b_shards_move_packed_and_add_exactly(sharded_add):
    jit.configure(profile=True)
    torch.manual_seed(3)
    config = sharded_add.sharded_config("block")
    a_tt, b_tt = (
        ttnn.from_torch(
            torch.randn((128, 128)),
            dtype=ttnn.bfloat8_b,
            layout=ttnn.TILE_LAYOUT,
            memory_config=config,
        )
        for _ in range(2)
    )
    y_tt = ttnn.from_torch(
        torch.zeros((128, 128), dtype=torch.bfloat16),
        layout=ttnn.TILE_LAYOUT,
        memory_config=config,
    )
    sharded_add.make_add(sharded_add.STRATEGIES["block"][0], 0)(a_tt, b_tt, y_tt)

    # The kernels add the dequantized BFP8_b values (each exact in bf16) in bf16.
    a, b = ttnn.to_torch(a_tt), ttnn.to_torch(b_tt)
    assert a.dtype == torch.bfloat16 and ttnn.is_sharded(a_tt)
    assert torch.equal(ttnn.to_torch(y_tt), (a.float() + b.float()).to(torch.bfloat16))
    # Every node reads its own 4 tiles of each input as packed 1088-byte pages.
    totals = copy_totals(jit.profile().calls[-1].noc_traffic.values())
    assert totals == {
        "DRAM": (0, 0),
        "local L1": (2 * 16 * BFP8_TILE, 16 * BF16_TILE),
        "remote L1": (0, 0),
    }


def test_a_row_major_tensor_cannot_be_sharded():
    config = ttnn.MemoryConfig(
        ttnn.TensorMemoryLayout.HEIGHT_SHARDED,
        ttnn.BufferType.L1,
        ttnn.ShardSpec(
            ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(0, 3))}),
            [32, 128],
            ttnn.ShardOrientation.ROW_MAJOR,
        ),
    )
    with pytest.raises(TTLCompileError) as info:
        ttnn.from_torch(torch.zeros((128, 128)), layout=ttnn.ROW_MAJOR_LAYOUT, memory_config=config)
    text = info.value.render()
    assert "ROW_MAJOR layout is not provided" in text and "hint:" in text
