"""L1-sharded ttnn tensors (spec Appendix D): the memory-config API and its errors, which
node holds which shard, and operations reading and writing shards in the nodes' L1
(local and remote NOC copies) checked against torch and the profile's copy bytes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from jit_support import assert_located

import ttl
from ttl.errors import TTLCompileError
from ttl.host import jit, ttnn
from ttl.host.ttnn.errors import MissingTtnnFunctionError, TtnnError
from ttl.runtime import ShardLayout
from ttl.runtime.profile import copy_totals
from ttl.targets import TARGETS

L1 = ttnn.BufferType.L1
HEIGHT = ttnn.TensorMemoryLayout.HEIGHT_SHARDED
WIDTH = ttnn.TensorMemoryLayout.WIDTH_SHARDED
BLOCK = ttnn.TensorMemoryLayout.BLOCK_SHARDED
ROW, COL = ttnn.ShardOrientation.ROW_MAJOR, ttnn.ShardOrientation.COL_MAJOR


def _cores(x0: int, y0: int, x1: int, y1: int) -> ttnn.CoreRangeSet:
    return ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1))})


def _layout(config: ttnn.MemoryConfig, shape=(128, 128)) -> ShardLayout:
    t = ttnn.from_torch(torch.zeros(shape), layout=ttnn.TILE_LAYOUT, memory_config=config)
    layout = t.__ttl_l1_shards__()
    assert layout is not None
    return layout


# ------------------------------------------------------------------ constructors
def test_memory_config_forms_agree():
    spec = ttnn.ShardSpec(_cores(0, 0, 3, 0), [32, 128], ROW)
    positional = ttnn.MemoryConfig(HEIGHT, L1, spec)
    keywords = ttnn.MemoryConfig(memory_layout=HEIGHT, buffer_type=L1, shard_spec=spec)
    sim_style = ttnn.MemoryConfig(strategy=ttnn.ShardingStrategy.HEIGHT_SHARDED, shard_spec=spec)
    sim_layout = ttnn.MemoryConfig(tensor_memory_layout=HEIGHT, shard_spec=spec)
    by_keyword = ttnn.ShardSpec(
        grid=_cores(0, 0, 3, 0), shard_shape=[32, 128], shard_orientation=ROW
    )
    sim_spec = ttnn.ShardSpec(_cores(0, 0, 3, 0), (32, 128), orientation=ROW)
    assert spec == by_keyword == sim_spec and hash(spec) == hash(by_keyword)
    assert positional == keywords == sim_style == sim_layout
    assert positional.buffer_type is L1 and positional.is_sharded()  # L1 is a sharded default
    assert positional.strategy is ttnn.ShardingStrategy.HEIGHT_SHARDED
    assert positional.tensor_memory_layout is HEIGHT and positional.shard_spec is spec
    assert not ttnn.DRAM_MEMORY_CONFIG.is_sharded() and ttnn.L1_MEMORY_CONFIG.buffer_type is L1
    assert ttnn.MemoryConfig() == ttnn.DRAM_MEMORY_CONFIG
    assert "HEIGHT_SHARDED" in repr(positional) and "CoreCoord(3, 0)" in repr(positional)


def test_core_ranges_and_grids():
    r = ttnn.CoreRange(ttnn.CoreCoord(1, 0), ttnn.CoreCoord(2, 3))
    assert r.num_cores() == 8 and r.grid_size() == ttnn.CoreCoord(2, 4)
    other = ttnn.CoreRange(ttnn.CoreCoord(0, 4), ttnn.CoreCoord(0, 4))
    s = ttnn.CoreRangeSet({other, r})  # a set: ordered by start, row by row
    assert s.ranges() == [r, other] and s.num_cores() == 9
    assert s.bounding_box() == ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(2, 4))
    assert ttnn.CoreGrid(y=2, x=4).num_cores == 8
    assert ttnn.num_cores_to_corerangeset(8, [8, 7], row_wise=True) == _cores(0, 0, 7, 0)
    two_rows = ttnn.num_cores_to_corerangeset(10, ttnn.CoreCoord(8, 8), row_wise=True)
    assert two_rows.ranges()[1] == ttnn.CoreRange(ttnn.CoreCoord(0, 1), ttnn.CoreCoord(1, 1))
    assert ttnn.num_cores_to_corerangeset(3, [8, 8]) == _cores(0, 0, 0, 2)  # column-wise


def test_create_sharded_memory_config():
    height = ttnn.create_sharded_memory_config(
        (2, 128, 64), ttnn.CoreGrid(y=2, x=4), ttnn.ShardStrategy.HEIGHT
    )
    assert height.memory_layout is HEIGHT and height.buffer_type is L1
    assert height.shard_spec.shard_shape == (32, 64) and height.shard_spec.grid == _cores(
        0, 0, 3, 1
    )
    block = ttnn.create_sharded_memory_config(
        [128, 256], ttnn.CoreGrid(y=2, x=4), ttnn.ShardStrategy.BLOCK
    )
    assert block.shard_spec.shard_shape == (64, 64)
    width = ttnn.create_sharded_memory_config(
        (64, 96),
        _cores(0, 0, 2, 0),
        ttnn.ShardStrategy.WIDTH,
        ROW,
        use_height_and_width_as_shard_shape=True,
    )
    assert width.memory_layout is WIDTH and width.shard_spec.shard_shape == (64, 96)


# ------------------------------------------------------------------ shard placement
def test_height_and_width_shards_go_to_the_cores_in_orientation_order():
    spec = ttnn.ShardSpec(_cores(0, 0, 1, 1), [32, 128], ROW)
    assert _layout(ttnn.MemoryConfig(HEIGHT, L1, spec)).cores == ((0, 0), (1, 0), (0, 1), (1, 1))
    spec = ttnn.ShardSpec(_cores(0, 0, 1, 1), [32, 128], COL)
    col = _layout(ttnn.MemoryConfig(HEIGHT, L1, spec))
    assert col.cores == ((0, 0), (0, 1), (1, 0), (1, 1)) and col.shard_pages == (1, 4)
    spec = ttnn.ShardSpec(_cores(2, 3, 7, 3), [128, 64], ROW)  # 2 shards on 6 cores: the first 2
    assert _layout(ttnn.MemoryConfig(WIDTH, L1, spec)).cores == ((2, 3), (3, 3))


def test_block_shards_map_to_the_grid_and_col_major_transposes_it():
    spec = ttnn.ShardSpec(_cores(1, 1, 2, 2), [64, 64], ROW)
    # shard (row i, col j) -> core (x0 + j, y0 + i); shards are numbered row-major
    assert _layout(ttnn.MemoryConfig(BLOCK, L1, spec)).cores == ((1, 1), (2, 1), (1, 2), (2, 2))
    spec = ttnn.ShardSpec(_cores(1, 1, 2, 2), [64, 64], COL)
    assert _layout(ttnn.MemoryConfig(BLOCK, L1, spec)).cores == ((1, 1), (1, 2), (2, 1), (2, 2))


def test_sim_style_shard_grid_uses_the_devices_first_nodes():
    spec = ttnn.ShardSpec(shard_grid=(4,), shard_shape=(32, 128))
    assert _layout(
        ttnn.MemoryConfig(strategy=ttnn.ShardingStrategy.HEIGHT_SHARDED, shard_spec=spec)
    ).cores == (
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
    )
    spec = ttnn.ShardSpec(shard_grid=(2, 2), shard_shape=(64, 64))
    config = ttnn.MemoryConfig(strategy=ttnn.ShardingStrategy.BLOCK_SHARDED, shard_spec=spec)
    assert _layout(config).cores == ((0, 0), (1, 0), (0, 1), (1, 1))


def test_pages_by_shard_and_descriptor():
    layout = ShardLayout((2, 1), ((0, 0), (1, 0), (0, 1), (1, 1)))  # 4x2 pages in 2x2 blocks
    np.testing.assert_array_equal(
        layout.pages_by_shard((128, 64)), [[0, 2], [1, 3], [4, 6], [5, 7]]
    )
    wormhole = TARGETS["wormhole_b0"]
    noc = [wormhole.noc_coord(core) for core in layout.cores]  # 18 + logical
    words = layout.descriptor((128, 64), l1_base=0x4000, noc_coords=noc)
    assert list(words[:6]) == [0x4000, 2, 2, 1, 2, 4]
    assert list(words[8:]) == [18 | 18 << 8, 19 | 18 << 8, 18 | 19 << 8, 19 | 19 << 8]


# ------------------------------------------------------------------ tensors
def test_sharded_tensor_round_trip_and_memory_config_moves():
    src = torch.arange(128 * 96, dtype=torch.float32).reshape(128, 96)
    config = ttnn.MemoryConfig(WIDTH, L1, ttnn.ShardSpec(_cores(0, 0, 2, 0), [128, 32], ROW))
    dev = ttnn.open_device(device_id=0)
    t = ttnn.from_torch(src, layout=ttnn.TILE_LAYOUT, device=dev, memory_config=config)
    assert (
        t.memory_config() == config and ttnn.get_memory_config(t) == config and ttnn.is_sharded(t)
    )
    assert torch.equal(ttnn.to_torch(t), src)
    back = ttnn.to_memory_config(t, ttnn.DRAM_MEMORY_CONFIG)
    assert not ttnn.is_sharded(back) and back.__ttl_l1_shards__() is None
    assert torch.equal(ttnn.to_torch(back), src)
    again = ttnn.to_device(ttnn.from_torch(src, layout=ttnn.TILE_LAYOUT), dev, memory_config=config)
    assert again.__ttl_l1_shards__() == t.__ttl_l1_shards__()
    f32 = ttnn.to_memory_config(back, config, dtype=ttnn.bfloat16)
    assert f32.dtype is ttnn.bfloat16 and ttnn.is_sharded(f32)
    made = ttnn.zeros((128, 96), device=dev, memory_config=config)
    assert made.__ttl_l1_shards__().cores == ((0, 0), (1, 0), (2, 0))
    ttnn.close_device(dev)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "make, fragments",
    [
        (lambda: ttnn.MemoryConfig(HEIGHT, L1), ["HEIGHT_SHARDED tensor needs a shard_spec"]),
        (
            lambda: ttnn.MemoryConfig(
                HEIGHT, ttnn.BufferType.DRAM, ttnn.ShardSpec(_cores(0, 0, 0, 0), [32, 32])
            ),
            ["in DRAM is not provided", "BufferType.L1"],
        ),
        (
            lambda: ttnn.MemoryConfig(
                ttnn.TensorMemoryLayout.INTERLEAVED,
                L1,
                ttnn.ShardSpec(_cores(0, 0, 0, 0), [32, 32]),
            ),
            ["INTERLEAVED tensor takes no shard_spec"],
        ),
        (
            lambda: ttnn.MemoryConfig(ttnn.TensorMemoryLayout.ND_SHARDED),
            ["ND_SHARDED tensors are not provided"],
        ),
        (
            lambda: ttnn.MemoryConfig(HEIGHT, L1, nd_shard_spec=object()),
            ["ND sharding (nd_shard_spec)"],
        ),
        (lambda: ttnn.MemoryConfig("height"), ["is not a ttnn.TensorMemoryLayout"]),
        (lambda: ttnn.MemoryConfig(HEIGHT, "L1"), ["is not a ttnn.BufferType"]),
        (
            lambda: ttnn.MemoryConfig(HEIGHT, L1, {"grid": 1}),
            ["shard_spec must be a ttnn.ShardSpec"],
        ),
        (lambda: ttnn.ShardSpec(_cores(0, 0, 1, 0)), ["needs shard_shape"]),
        (
            lambda: ttnn.ShardSpec(_cores(0, 0, 1, 0), [32, 0]),
            ["shard_shape [32, 0] is not 2 positive"],
        ),
        (lambda: ttnn.ShardSpec(shard_shape=[32, 32]), ["needs the nodes to shard over"]),
        (lambda: ttnn.ShardSpec([(0, 0)], [32, 32]), ["grid must be a ttnn.CoreRangeSet"]),
        (
            lambda: ttnn.ShardSpec(_cores(0, 0, 0, 0), [32, 32], "row"),
            ["is not a ttnn.ShardOrientation"],
        ),
        (lambda: ttnn.CoreCoord(-1, 0), ["two non-negative integers"]),
        (
            lambda: ttnn.CoreRange(ttnn.CoreCoord(2, 0), ttnn.CoreCoord(1, 0)),
            ["the end is before the start"],
        ),
        (lambda: ttnn.CoreRangeSet([]), ["non-empty set or list"]),
        (
            lambda: ttnn.CoreRangeSet(
                [ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 1))] * 2
            ),
            ["overlap"],
        ),
        (lambda: ttnn.CoreGrid(y=0, x=2), ["two positive integers"]),
        (lambda: ttnn.num_cores_to_corerangeset(65, [8, 8]), ["65 cores do not fit a 8x8 grid"]),
        (
            lambda: ttnn.create_sharded_memory_config(
                (96, 64), ttnn.CoreGrid(y=1, x=5), ttnn.ShardStrategy.HEIGHT
            ),
            ["96x64 tensor does not divide into 5x1 height shards"],
        ),
        (
            lambda: ttnn.create_sharded_memory_config((64, 64), ttnn.CoreGrid(y=1, x=2), "height"),
            ["ttnn.ShardStrategy"],
        ),
    ],
)
def test_bad_memory_configs_are_located_errors(make, fragments):
    with pytest.raises(TtnnError) as info:
        make()
    assert_located(info, *fragments)


def _sharded(kind, x1, y1, shard, orientation=ROW, shape=(128, 128)):
    config = ttnn.MemoryConfig(kind, L1, ttnn.ShardSpec(_cores(0, 0, x1, y1), shard, orientation))
    return ttnn.from_torch(torch.zeros(shape), layout=ttnn.TILE_LAYOUT, memory_config=config)


@pytest.mark.parametrize(
    "make, fragments",
    [
        (
            lambda: _sharded(HEIGHT, 3, 0, [48, 128]),
            ["[48, 128] is not a whole number of 32x32 tiles"],
        ),
        (
            lambda: _sharded(HEIGHT, 3, 0, [96, 128]),
            ["[96, 128] does not divide the tensor's 128x128"],
        ),
        (
            lambda: _sharded(HEIGHT, 3, 0, [32, 64]),
            ["HEIGHT_SHARDED shard must be the tensor's full width"],
        ),
        (
            lambda: _sharded(WIDTH, 3, 0, [64, 32]),
            ["WIDTH_SHARDED shard must be the tensor's full height"],
        ),
        (
            lambda: _sharded(HEIGHT, 1, 0, [32, 128]),
            ["4 HEIGHT_SHARDED shards need 4 nodes but the core range set has 2"],
        ),
        (
            lambda: _sharded(BLOCK, 1, 0, [64, 64]),
            ["2x2 BLOCK_SHARDED shards do not fit the 1x2 nodes"],
        ),
        (lambda: _sharded(BLOCK, 0, 1, [64, 64], COL), ["do not fit the 1x2 nodes", "COL_MAJOR"]),
        (
            lambda: _sharded(HEIGHT, 8, 0, [32, 128]),
            ["shard grid has node (8,0), outside the device's 8x8 grid"],
        ),
        (
            lambda: ttnn.from_torch(
                torch.zeros(64, 64),
                memory_config=ttnn.MemoryConfig(
                    HEIGHT, L1, ttnn.ShardSpec(_cores(0, 0, 1, 0), [32, 64])
                ),
            ),
            ["in ROW_MAJOR layout is not provided"],
        ),
        (
            lambda: ttnn.from_torch(
                torch.zeros(64, 64), layout=ttnn.TILE_LAYOUT, memory_config="L1"
            ),
            ["memory_config 'L1' is not a ttnn.MemoryConfig"],
        ),
        (
            lambda: ttnn.to_memory_config(torch.zeros(2), ttnn.L1_MEMORY_CONFIG),
            ["takes a ttnn.Tensor"],
        ),
        (
            lambda: ttnn.to_memory_config(_sharded(HEIGHT, 3, 0, [32, 128]), "DRAM"),
            ["'DRAM' is not a ttnn.MemoryConfig"],
        ),
    ],
)
def test_configs_that_cannot_hold_the_tensor_are_located_errors(make, fragments):
    with pytest.raises(TtnnError) as info:
        make()
    assert_located(info, *fragments)


def test_nd_sharding_names_are_absent():
    for name in ("NdShardSpec", "TensorSpec"):
        with pytest.raises(MissingTtnnFunctionError):
            getattr(ttnn, name)


# ------------------------------------------------------------------ operations


def _run(example, strategy: str, shift: int, out_config=None):
    jit.configure(profile=True)
    torch.manual_seed(1)
    a, b = (torch.rand((128, 128), dtype=torch.bfloat16) for _ in range(2))
    config = example.sharded_config(strategy)
    a_tt, b_tt = (ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, memory_config=config) for t in (a, b))
    y_tt = ttnn.from_torch(
        torch.zeros((128, 128), dtype=torch.bfloat16),
        layout=ttnn.TILE_LAYOUT,
        memory_config=out_config or config,
    )
    example.make_add(example.STRATEGIES[strategy][0], shift)(a_tt, b_tt, y_tt)
    assert torch.equal(ttnn.to_torch(y_tt), (a.float() + b.float()).to(torch.bfloat16))
    return copy_totals(jit.profile().calls[-1].noc_traffic.values())


@pytest.mark.parametrize("strategy", ["height", "width", "block"])
def test_each_node_reads_and_writes_its_own_shard_locally(sharded_add, strategy):
    tiles = 16 * 2048
    assert _run(sharded_add, strategy, 0) == {
        "DRAM": (0, 0),
        "local L1": (2 * tiles, tiles),
        "remote L1": (0, 0),
    }


def test_reading_a_neighbours_shard_goes_over_the_noc(sharded_add):
    tiles = 16 * 2048
    assert _run(sharded_add, "width", 1) == {
        "DRAM": (0, 0),
        "local L1": (0, 0),
        "remote L1": (2 * tiles, tiles),
    }


def test_sharded_inputs_with_an_interleaved_dram_output(sharded_add):
    tiles = 16 * 2048
    totals = _run(sharded_add, "block", 0, out_config=ttnn.DRAM_MEMORY_CONFIG)
    assert totals == {"DRAM": (0, tiles), "local L1": (2 * tiles, 0), "remote L1": (0, 0)}


def test_a_shard_outside_the_operations_grid_is_a_located_error(sharded_add):
    config = sharded_add.sharded_config("width")  # nodes (0..3, 0)
    a = ttnn.from_torch(torch.zeros(128, 128), layout=ttnn.TILE_LAYOUT, memory_config=config)
    op = sharded_add.make_add((2, 2), 0)
    with pytest.raises(TTLCompileError) as info:
        op(a, a, a)
    assert_located(
        info, "tensor 'a' of operation 'sharded_add' has a shard on node (2, 0)", "2x2 grid"
    )


@ttl.operation(grid=(2, 2))
def show_pages(a):
    @ttl.datamovement()
    def dm():
        x, y = ttl.node(dims=2)
        if x == 1 and y == 1:
            print("a: ", a, num_pages=2)


def test_a_kernel_prints_a_sharded_tensors_pages_from_the_nodes_l1(needs_device_cxx, tmp_path):
    # tile (0, c) holds c + 1; block shards of one tile: page 1 lives on node (1, 0)
    data = torch.ones(64, 64) + (torch.arange(64) // 32).float()
    config = ttnn.MemoryConfig(BLOCK, L1, ttnn.ShardSpec(_cores(0, 0, 1, 1), [32, 32], ROW))
    a = ttnn.from_torch(data, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, memory_config=config)
    out = tmp_path / "prints.txt"
    jit.configure(prints=str(out))
    show_pages(a)
    jit.close_prints()
    lines = out.read_text().splitlines()
    assert "Printing first 2 page(s):" in "\n".join(lines)
    page1 = lines.index(next(line for line in lines if "page 1 (tile (0, 1)):" in line))
    assert lines[page1 + 1].split("]", 1)[1].split() == ["2"] * 32
    assert lines[page1 - 1].split("]", 1)[1].split() == ["1"] * 32


def test_l1_sharding_on_every_device_of_a_mesh(sharded_add, monkeypatch):
    monkeypatch.delenv("TTL_NUM_DEVICES", raising=False)
    mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    config = sharded_add.sharded_config("width")
    torch.manual_seed(2)
    a, b = (torch.rand((256, 128), dtype=torch.bfloat16) for _ in range(2))

    def put(t):
        mapper = ttnn.ShardTensorToMesh(mesh, dim=0)
        return ttnn.from_torch(
            t, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=mapper, memory_config=config
        )

    y = put(torch.zeros(256, 128, dtype=torch.bfloat16))
    jit.configure(profile=True)
    sharded_add.make_add((4, 1), 0)(put(a), put(b), y)
    out = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    assert torch.equal(out, (a.float() + b.float()).to(torch.bfloat16))
    calls = jit.profile().calls[-2:]
    assert [c.operation for c in calls] == ["sharded_add (device 0)", "sharded_add (device 1)"]
    for call in calls:
        assert copy_totals(call.noc_traffic.values())["local L1"] == (2 * 16 * 2048, 16 * 2048)
    ttnn.close_mesh_device(mesh)


def test_outer_dimensions_fold_into_the_height_and_padding_counts():
    config = ttnn.create_sharded_memory_config(
        (2, 64, 64), ttnn.CoreGrid(y=1, x=4), ttnn.ShardStrategy.HEIGHT
    )
    assert config.shard_spec.shard_shape == (32, 64)
    layout = _layout(config, shape=(2, 64, 64))
    assert layout.shard_pages == (1, 2) and len(layout.cores) == 4
    np.testing.assert_array_equal(
        layout.pages_by_shard((2, 64, 64)), [[0, 1], [2, 3], [4, 5], [6, 7]]
    )
    # a (50, 64) tile tensor is stored as (64, 64): two 32-row shards
    spec = ttnn.ShardSpec(_cores(0, 0, 1, 0), [32, 64], ROW)
    assert _layout(ttnn.MemoryConfig(HEIGHT, L1, spec), shape=(50, 64)).shard_pages == (1, 2)


def test_a_core_range_set_of_one_range_and_the_sim_single_strategy_form():
    r = ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 0))
    assert ttnn.CoreRangeSet(r) == ttnn.CoreRangeSet([r]) == ttnn.CoreRangeSet({r})
    spec = ttnn.ShardSpec(ttnn.CoreRangeSet(r), [64, 32])
    assert spec.orientation is ROW and spec.num_cores() == 2
    config = ttnn.MemoryConfig(ttnn.ShardingStrategy.WIDTH_SHARDED, shard_spec=spec)
    assert config.memory_layout is WIDTH and config.buffer_type is L1
    assert _layout(config, shape=(64, 64)).cores == ((0, 0), (1, 0))
