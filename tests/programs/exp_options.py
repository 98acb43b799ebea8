"""``ttl.math.exp``'s hardware options (spec v0.20) and the ``exp(x * C)`` canonicalisation.

Four exponentials of one input: scaled (``scale=``), written as ``exp(x * C)`` (the
compiler passes ``C`` to the SFPU as the scale), approximate with the clamp check
skipped, and with ``iterations=2``, which covers the first 2 x 32 elements (rows 0-3)
of each 16x16 face and leaves the rest of the tile as it was. The emulator computes
approximate mode exactly (docs/math.md); inputs stay above -88.5.
"""

# not for tt-lang-sim 1.1.6: exp's options are spec v0.20

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1))
def exps(
    a: ttnn.Tensor, scaled: ttnn.Tensor, times: ttnn.Tensor, fast: ttnn.Tensor, partial: ttnn.Tensor
) -> None:
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(scaled, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for _ in range(4):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, out_dfb.reserve() as o:
            o.store(ttl.math.exp(x, scale=0.5))
        with a_dfb.wait() as x, out_dfb.reserve() as o:
            o.store(ttl.math.exp(x * 2.0))
        with a_dfb.wait() as x, out_dfb.reserve() as o:
            o.store(ttl.math.exp(x, approx=True, skip_clamp_check=True))
        with a_dfb.wait() as x, out_dfb.reserve() as o:
            o.store(ttl.math.exp(x, iterations=2))

    @ttl.datamovement()
    def write():
        for out in (scaled, times, fast, partial):
            with out_dfb.wait() as blk:
                ttl.copy(blk, out[0, 0]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    a = (torch.rand(TILE, TILE) * 6.0 - 3.0).to(torch.bfloat16)

    def tiled(t):
        return ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)

    outs = [tiled(torch.zeros(TILE, TILE, dtype=torch.bfloat16)) for _ in range(4)]
    exps(tiled(a), *outs)
    scaled, times, fast, partial = (ttnn.to_torch(o).float() for o in outs)
    x = a.float()

    def close(got, want):
        assert torch.allclose(got, want, rtol=2**-7, atol=1e-6), (got - want).abs().max()

    close(scaled, torch.exp(0.5 * x))
    close(times, torch.exp(2.0 * x))
    close(fast, torch.exp(x))
    covered = (torch.arange(TILE) % 16 < 4)[:, None].expand(TILE, TILE)
    close(partial[covered], torch.exp(x)[covered])
    assert torch.equal(partial[~covered], x[~covered])
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
