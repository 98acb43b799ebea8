"""``y = relu(a @ b + c)`` on a 4x4 grid, each node computing output blocks.

Output blocks are assigned round-robin over the flattened grid
(``ttl.node(dims=1)``, ``ttl.grid_size(dims=1)``); the ``if`` bound check keeps
it correct for any grid, including ``grid="full"``.
"""

import numpy as np

import ttl

TILE = 32
MB = 1
NB = 2
KB = 2

OPERATION = "matmul_grid"
SPECS = {"a": "bf16[256,256]", "b": "bf16[256,256]", "c": "bf16[256,256]", "y": "bf16[256,256]"}


# fp32_dest_acc_en: DST keeps fp32, so the matmul over K accumulate without rounding to bf16
# at every step (a 16-bit DST, the default for bf16 tensors, loses about 1%).
@ttl.operation(grid=(4, 4), fp32_dest_acc_en=True)
def matmul_grid(a, b, c, y):
    nodes = ttl.grid_size(dims=1)
    m_blocks = a.shape[0] // TILE // MB
    n_blocks = b.shape[1] // TILE // NB
    k_blocks = a.shape[1] // TILE // KB
    blocks = m_blocks * n_blocks
    blocks_per_node = -(-blocks // nodes)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(MB, KB), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(KB, NB), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(MB, NB), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(MB, NB), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(MB, NB), block_count=2)

    @ttl.compute()
    def compute():
        me = ttl.node(dims=1)
        for i in range(blocks_per_node):
            blk_id = me * blocks_per_node + i
            if blk_id < blocks:
                with acc_dfb.reserve() as acc:
                    acc.store(ttl.block.fill(0.0, shape=(MB, NB)))
                    for _ in range(k_blocks):
                        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                            acc.store(a_blk @ b_blk, acc=True)
                with acc_dfb.wait() as acc, c_dfb.wait() as c_blk, y_dfb.reserve() as y_blk:
                    y_blk.store(ttl.math.relu(acc + c_blk))

    @ttl.datamovement()
    def read():
        me = ttl.node(dims=1)
        for i in range(blocks_per_node):
            blk_id = me * blocks_per_node + i
            if blk_id < blocks:
                m = blk_id // n_blocks
                n = blk_id % n_blocks
                with c_dfb.reserve() as c_blk:
                    ttl.copy(c[m * MB : (m + 1) * MB, n * NB : (n + 1) * NB], c_blk).wait()
                for k in range(k_blocks):
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        tx_a = ttl.copy(a[m * MB : (m + 1) * MB, k * KB : (k + 1) * KB], a_blk)
                        tx_b = ttl.copy(b[k * KB : (k + 1) * KB, n * NB : (n + 1) * NB], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.datamovement()
    def write():
        me = ttl.node(dims=1)
        for i in range(blocks_per_node):
            blk_id = me * blocks_per_node + i
            if blk_id < blocks:
                m = blk_id // n_blocks
                n = blk_id % n_blocks
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m * MB : (m + 1) * MB, n * NB : (n + 1) * NB]).wait()


def reference(a, b, c):
    """NumPy reference for the output ``y``."""
    return np.maximum(np.asarray(a) @ np.asarray(b) + np.asarray(c), 0)
