"""Kernels calling the program's own Python: helper functions, builtins, f-strings.

Ten tiles are split over three nodes as ``split_work_to_cores`` splits work: the
first ``extra`` nodes take one more. Helpers at the operation's top level
(with ``if``/``else`` returns on the runtime node index) give each node its
range; a helper defined in the compute kernel doubles each tile; ``min``,
``max`` and ``abs`` work on runtime integers and ``divmod`` on
compile-time ones; each node prints its share with an f-string.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
N_TILES = 10


def tile_slice(t):
    return slice(t, t + 1)


@ttl.operation(grid=(3, 1))
def doubled(a: ttnn.Tensor, out: ttnn.Tensor) -> None:
    nodes = ttl.grid_size(dims=1)
    per_node, extra = divmod(a.shape[1] // TILE, nodes)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    def tiles_for(node):
        if node < extra:
            return per_node + 1
        return per_node

    def first_tile(node):
        if node < extra:
            return node * (per_node + 1)
        else:
            return extra * (per_node + 1) + (node - extra) * per_node

    @ttl.datamovement()
    def read():
        me = ttl.node(dims=1)
        start = first_tile(me)
        for i in range(max(tiles_for(me), 0)):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, tile_slice(start + i)], blk).wait()

    @ttl.compute()
    def compute():
        me = ttl.node(dims=1)

        def twice(x):
            return x + x

        print(f"node {me}: {tiles_for(me)} tiles, {abs(me - 1)} from the middle")
        for _ in range(tiles_for(me)):
            with a_dfb.wait() as x, out_dfb.reserve() as y:
                y.store(twice(x))

    @ttl.datamovement()
    def write():
        me = ttl.node(dims=1)
        start = first_tile(me)
        for t in range(start, min(start + tiles_for(me), N_TILES)):
            with out_dfb.wait() as blk:
                ttl.copy(blk, out[0, t]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    a = torch.randn(TILE, N_TILES * TILE, dtype=torch.bfloat16)
    ta = ttnn.from_torch(a, layout=ttnn.TILE_LAYOUT, device=device)
    tout = ttnn.from_torch(torch.zeros_like(a), layout=ttnn.TILE_LAYOUT, device=device)
    doubled(ta, tout)
    assert torch.equal(ttnn.to_torch(tout).to(torch.bfloat16), a * 2)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
