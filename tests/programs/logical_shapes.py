"""Tensors whose logical shape is not whole tiles, read at the operation's top level.

A ttnn ``TILE_LAYOUT`` tensor of shape ``[1, 1]`` is stored as one 32 x 32 tile,
its one element at row 0, column 0 and zeros around it. The operation's top level
sees the logical shapes (``c.shape == (1, 1)``, as ttnn's ``tensor.shape``) and
``padded_shape`` the stored one; the kernels move and compute whole tiles. Here
the scalar ``c`` is broadcast from its tile's first element over every tile of
``a``, and ``v`` (one row of 40 elements: row 0 of two tiles) is added to the
first row of ``a``'s first two tile columns.
"""

# not for tt-lang-sim 1.1.6: its ttnn reports a TILE_LAYOUT tensor's padded shape as
# its shape ([32, 32] for a [1, 1] tensor); ttnn reports the logical shape, as here.

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1))
def scale_shift(a: ttnn.Tensor, c: ttnn.Tensor, v: ttnn.Tensor, out: ttnn.Tensor) -> None:
    assert c.shape == (1, 1), f"c must be 1x1, got {c.shape}"
    assert tuple(c.padded_shape) == (TILE, TILE)
    assert v.shape == (1, 40) and tuple(v.padded_shape) == (TILE, 2 * TILE)
    rows, cols = a.shape[0] // TILE, a.shape[1] // TILE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=1)
    v_dfb = ttl.make_dataflow_buffer_like(v, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with c_dfb.reserve() as blk:
            ttl.copy(c[0, 0], blk).wait()
        for r in range(rows):
            for k in range(cols):
                with a_dfb.reserve() as blk:
                    ttl.copy(a[r, k], blk).wait()
                with v_dfb.reserve() as blk:
                    # v's tiles are row 0 of a tile row: tile column k for the first two
                    # columns of a's first tile row, else a zero tile (v's padding).
                    ttl.copy(v[0, k if r == 0 and k < 2 else 1], blk).wait()

    @ttl.compute()
    def compute():
        with c_dfb.wait() as cb:
            for r in range(rows):
                for k in range(cols):
                    with a_dfb.wait() as ab, v_dfb.wait() as vb, out_dfb.reserve() as ob:
                        scalar = ttl.math.broadcast(cb, dims=[0, 1])
                        if r == 0 and k < 2:
                            ob.store(ab * scalar + vb)
                        else:
                            ob.store(ab * scalar)

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for k in range(cols):
                with out_dfb.wait() as blk:
                    ttl.copy(blk, out[r, k]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    a = torch.randn(2 * TILE, 3 * TILE, dtype=torch.bfloat16)
    c = torch.tensor([[1.5]], dtype=torch.bfloat16)
    v = torch.randn(1, 40, dtype=torch.bfloat16)
    tiled = (ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device) for t in (a, c, v))
    ta, tc, tv = tiled
    tout = ttnn.from_torch(torch.zeros_like(a), layout=ttnn.TILE_LAYOUT, device=device)
    assert tuple(tc.shape) == (1, 1)
    scale_shift(ta, tc, tv, tout)
    want = a.float() * 1.5
    want[0, :40] += v[0].float()
    got = ttnn.to_torch(tout).float()
    assert torch.allclose(got, want, rtol=2e-2, atol=2e-2), (got - want).abs().max()
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
