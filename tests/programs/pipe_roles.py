"""``PipeNet.is_src()``, ``is_dst()`` and ``is_active()`` guard a node's pipe work.

On a 2x2 grid, net ``fan`` multicasts a tile from node (0, 0) to (1, 0) and
(1, 1), and net ``back`` sends one from (0, 1) to (0, 0). Every receiver writes
what it received to its output tile; node (0, 1), active on ``back`` but not a
destination of it, writes a third input tile instead.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(2, 2))
def pipe_roles(a: ttnn.Tensor, out: ttnn.Tensor) -> None:
    fan = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, slice(0, 2)))])
    back = ttl.PipeNet([ttl.Pipe(src=(0, 1), dst=(0, 0))])
    send_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    recv_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def move():
        for net, tile in ((fan, 0), (back, 1)):
            if net.is_src():
                with send_dfb.reserve() as blk:
                    ttl.copy(a[0, tile], blk).wait()
                with send_dfb.wait() as blk:

                    def send(pipe):
                        ttl.copy(blk, pipe).wait()

                    net.if_src(send)
        for net in (fan, back):
            if net.is_dst():
                with recv_dfb.reserve() as blk:

                    def receive(pipe):
                        ttl.copy(pipe, blk).wait()

                    net.if_dst(receive)
        if back.is_active() and not back.is_dst():
            with recv_dfb.reserve() as blk:
                ttl.copy(a[0, 2], blk).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def write():
        x, y = ttl.node(dims=2)
        if fan.is_dst() or back.is_active():
            with recv_dfb.wait() as blk:
                ttl.copy(blk, out[x, y]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    a = torch.randn(TILE, 3 * TILE, dtype=torch.bfloat16)
    zeros = torch.zeros(2 * TILE, 2 * TILE, dtype=torch.bfloat16)
    ta, tout = (ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device) for t in (a, zeros))
    pipe_roles(ta, tout)
    got = ttnn.to_torch(tout).to(torch.bfloat16)
    tile = [a[:, i * TILE : (i + 1) * TILE] for i in range(3)]
    want = torch.cat([torch.cat([tile[1], tile[2]], 1), torch.cat([tile[0], tile[0]], 1)])
    assert torch.equal(got, want)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
