"""``y = a + b`` on L1-sharded tensors (spec Appendix D, TT-NN L1 sharded tensors).

Each node adds one rectangle of tiles. With ``--shift 0`` the rectangle is the
shard the node holds (height sharding over a column of nodes, width sharding
over a row, block sharding over a 2x2 grid), so every copy is a local L1 read
or write; with ``--shift 1`` each node adds its neighbour's shard, so every
copy crosses the NOC to another node's L1 (``ttl run --profile`` shows the
bytes of each kind):

    ttl run --profile examples/ttnn/sharded_add.py --strategy block --shift 0
"""

import argparse

import numpy
import torch
import ttnn

import ttl

TILE = 32
ROWS, COLS = 128, 128  # elements: 4 x 4 tiles

# strategy -> (operation grid (x, y), the nodes of the shards, shard shape in elements)
STRATEGIES = {
    "height": ((1, 4), ((0, 0), (0, 3)), (ROWS // 4, COLS)),
    "width": ((4, 1), ((0, 0), (3, 0)), (ROWS, COLS // 4)),
    "block": ((2, 2), ((0, 0), (1, 1)), (ROWS // 2, COLS // 2)),
}


def make_add(grid, shift):
    """``y = a + b``; node (x, y) adds the tiles of the shard of node ((x + shift) % gx, y)."""

    @ttl.operation(grid=grid)
    def sharded_add(a, b, y):
        gx, gy = ttl.grid_size(dims=2)
        tr = a.shape[0] // TILE // gy  # tile rows per node
        tc = a.shape[1] // TILE // gx  # tile columns per node
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.compute()
        def compute():
            for _ in range(tr * tc):
                with a_dfb.wait() as av, b_dfb.wait() as bv, y_dfb.reserve() as yv:
                    yv.store(av + bv)

        @ttl.datamovement()
        def read():
            nx, ny = ttl.node(dims=2)
            c0 = ((nx + shift) % gx) * tc
            for r in range(ny * tr, ny * tr + tr):
                for c in range(c0, c0 + tc):
                    with a_dfb.reserve() as ab, b_dfb.reserve() as bb:
                        ta = ttl.copy(a[r, c], ab)
                        tb = ttl.copy(b[r, c], bb)
                        ta.wait()
                        tb.wait()

        @ttl.datamovement()
        def write():
            nx, ny = ttl.node(dims=2)
            c0 = ((nx + shift) % gx) * tc
            for r in range(ny * tr, ny * tr + tr):
                for c in range(c0, c0 + tc):
                    with y_dfb.wait() as yb:
                        ttl.copy(yb, y[r, c]).wait()

    return sharded_add


def sharded_config(strategy):
    _, (start, end), shard = STRATEGIES[strategy]
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(*start), ttnn.CoreCoord(*end))})
    layout = getattr(ttnn.TensorMemoryLayout, f"{strategy.upper()}_SHARDED")
    return ttnn.MemoryConfig(
        layout,
        ttnn.BufferType.L1,
        ttnn.ShardSpec(cores, list(shard), ttnn.ShardOrientation.ROW_MAJOR),
    )


def run(strategy, shift, device=None):
    """Runs ``y = a + b`` with the three tensors sharded by ``strategy``; returns a, b, y."""
    # Values exact in bf16 and independent of random streams (tt-lang-sim runs torch's
    # bfloat16 as float32), so both runs see the same inputs.
    index = torch.arange(ROWS * COLS, dtype=torch.float32).reshape(ROWS, COLS)
    a = ((index * 7) % 255 / 64).to(torch.bfloat16)
    b = ((index * 13) % 251 / 32).to(torch.bfloat16)
    config = sharded_config(strategy)

    def on_device(t):
        return ttnn.from_torch(
            t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=config
        )

    a_tt, b_tt = on_device(a), on_device(b)
    y_tt = on_device(torch.zeros((ROWS, COLS), dtype=torch.bfloat16))
    make_add(STRATEGIES[strategy][0], shift)(a_tt, b_tt, y_tt)
    assert ttnn.is_sharded(y_tt) and ttnn.get_memory_config(y_tt) == config
    return a, b, ttnn.to_torch(y_tt)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), default="block")
    parser.add_argument("--shift", type=int, default=0)
    parser.add_argument("--out", help="save y (float32) to this .npy file")
    args = parser.parse_args()

    device = ttnn.open_device(device_id=0)
    try:
        a, b, y = run(args.strategy, args.shift, device)
        expected = (a.float() + b.float()).to(torch.bfloat16)
        if args.out:
            numpy.save(args.out, y.float().numpy())
        print(f"sharded_add {args.strategy} shift {args.shift}: {list(y.shape)} {y.dtype}")
        print("PASS" if torch.equal(y, expected) else "FAIL")
    finally:
        ttnn.close_device(device)


if __name__ == "__main__":
    main()
