"""The spec's one-to-many barrier example ("Semaphore"), with data that proves it.

Node 0 writes a tile into the mailbox slot of ``y`` and then releases every
other node through a semaphore multicast to the whole grid; each other node
waits on its own semaphore, then reads the mailbox (which holds node 0's data
only if the barrier held) and writes it into its own slot of ``y``.
"""

import numpy as np

import ttl

TILE = 32
GRID = (2, 2)
NODES = GRID[0] * GRID[1]

OPERATION = "barrier_one_to_many"
SPECS = {"x": "bf16[32,32]", "y": f"bf16[32,{TILE * (NODES + 1)}]"}


@ttl.operation(grid=GRID)
def barrier_one_to_many(x, y):
    node_num = ttl.node(dims=1)
    my_barrier = ttl.Semaphore()
    all_barrier = my_barrier.get_remote_multicast()
    slot = node_num + 1  # y[:, 0] is the mailbox; node n writes slot n + 1
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        with dfb.reserve() as blk:
            if node_num == 0:
                # do something on node 0 while non-0 nodes wait...
                ttl.copy(x[0, 0], blk).wait()
                ttl.copy(blk, y[0, 0]).wait()
                all_barrier.set(1)
            else:
                my_barrier.wait_eq(1)
                # node 0 is done: its data is in the mailbox
                ttl.copy(y[0, 0], blk).wait()
            ttl.copy(blk, y[0, slot]).wait()


def reference(x):
    """NumPy reference for ``y``: the mailbox and every node's slot hold ``x``."""
    return np.tile(np.asarray(x), (1, NODES + 1))
