"""The spec's many-to-one barrier example ("Semaphore"), with data that proves it.

Every node copies its tile of ``x`` into ``y``; the others then increment node
0's semaphore, and node 0 waits until all of them have, then gathers ``y``
(which holds their tiles only if the barrier held) into ``z``.
"""

import numpy as np

import ttl

TILE = 32
GRID = (2, 2)
NODES = GRID[0] * GRID[1]

OPERATION = "barrier_many_to_one"
SPECS = {
    "x": f"bf16[32,{TILE * NODES}]",
    "y": f"bf16[32,{TILE * NODES}]",
    "z": f"bf16[32,{TILE * NODES}]",
}


@ttl.operation(grid=GRID)
def barrier_many_to_one(x, y, z):
    node_num = ttl.node(dims=1)
    my_barrier = ttl.Semaphore()
    node_0_barrier = my_barrier.get_remote((0, 0))
    non_0_node_count = ttl.grid_size(dims=1) - 1
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    row_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, NODES), block_count=1)

    @ttl.datamovement()
    def dm():
        # every node copies its tile of x into y
        with dfb.reserve() as blk:
            ttl.copy(x[0, node_num], blk).wait()
            ttl.copy(blk, y[0, node_num]).wait()
        if node_num != 0:
            node_0_barrier.inc(1)
        else:
            my_barrier.wait_eq(non_0_node_count)
            # non-0 nodes are done: gather what they wrote
            with row_dfb.reserve() as row:
                ttl.copy(y[0:1, 0:NODES], row).wait()
                ttl.copy(row, z[0:1, 0:NODES]).wait()


def reference(x):
    """NumPy reference for ``y`` and ``z``: node 0 gathered every node's tile of ``x``."""
    return np.asarray(x), np.asarray(x)
