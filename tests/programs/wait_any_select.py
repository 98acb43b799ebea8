"""``ttl.wait_any`` (spec v0.21): select a completed pipe receive in cyclic order.

Nodes (1, 0), (2, 0) and (3, 0) each send their tile of ``x`` to node (0, 0)
through a pipe; (0, 0) posts the three receives (``ttl.copy(pipe, blk)`` with
each ``ttl.Pipe``, guarded by ``is_src()`` / ``is_dst()``), waits on a semaphore
until all three senders are done, so every receive has completed, and selects one
with ``ttl.wait_any(..., start=START)``: the first completed request in cyclic
order from ``START`` modulo 3, which is ``START % 3`` itself. The selected block
goes to output tile 3, every block to its own tile (the nonselected ones after
their own ``wait()``). ``START`` of 1, 5 and -1 select requests 1, 2 and 2.
"""

# not for tt-lang-sim 1.1.6: ttl.wait_any and receive requests are spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
SENDERS = 3


@ttl.operation(grid=(SENDERS + 1, 1))
def select_one(x: ttnn.Tensor, out: ttnn.Tensor, start: int) -> None:
    pipes = [ttl.Pipe(src=(k + 1, 0), dst=(0, 0)) for k in range(SENDERS)]
    gather = ttl.PipeNet(pipes)
    sent = ttl.Semaphore(initial_value=0)
    send_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    landing = [ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1) for _ in pipes]

    @ttl.datamovement()
    def send():
        if gather.is_src():
            node_x, _ = ttl.node(dims=2)
            with send_dfb.reserve() as blk:
                ttl.copy(x[0, node_x - 1], blk).wait()
            for k, pipe in enumerate(pipes):
                if node_x == k + 1:
                    with send_dfb.wait() as blk:
                        ttl.copy(blk, pipe).wait()
            sent.get_remote((0, 0)).inc(1)

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def receive():
        if gather.is_dst():
            first_block = landing[0].reserve()
            second_block = landing[1].reserve()
            third_block = landing[2].reserve()
            first_request = ttl.copy(pipes[0], first_block)
            second_request = ttl.copy(pipes[1], second_block)
            third_request = ttl.copy(pipes[2], third_block)
            sent.wait_ge(SENDERS)  # every receive has completed
            ready = ttl.wait_any((first_request, second_request, third_request), start=start)
            selected = ready.index()
            if selected == 0:
                ttl.copy(first_block, out[0, SENDERS]).wait()
            elif selected == 1:
                ttl.copy(second_block, out[0, SENDERS]).wait()
            elif selected == 2:
                ttl.copy(third_block, out[0, SENDERS]).wait()
            first_request.wait()
            second_request.wait()
            third_request.wait()
            ttl.copy(first_block, out[0, 0]).wait()
            ttl.copy(second_block, out[0, 1]).wait()
            ttl.copy(third_block, out[0, 2]).wait()
            first_block.push()
            second_block.push()
            third_block.push()
        for dfb in landing:
            if gather.is_dst():
                with dfb.wait():
                    pass


torch.manual_seed(0)
device = ttnn.open_device(device_id=0)
try:
    x_torch = torch.rand((TILE, SENDERS * TILE), dtype=torch.bfloat16)
    x = ttnn.from_torch(x_torch, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    for start, want in ((1, 1), (5, 2), (-1, 2)):
        out = ttnn.from_torch(
            torch.zeros((TILE, (SENDERS + 1) * TILE), dtype=torch.bfloat16),
            dtype=ttnn.bfloat16,
            layout=ttnn.TILE_LAYOUT,
            device=device,
        )
        select_one(x, out, start)
        got = ttnn.to_torch(out)
        assert torch.equal(got[:, : SENDERS * TILE], x_torch), start
        assert torch.equal(got[:, SENDERS * TILE :], x_torch[:, want * TILE : (want + 1) * TILE])
    print("PASS")
finally:
    ttnn.close_device(device)
