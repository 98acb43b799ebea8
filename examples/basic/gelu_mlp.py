"""A GELU MLP block: ``y = gelu(x @ w + bias)``.

Each output block of MB x NB tiles is one matmul of a (MB, K) row panel of
``x`` with a (K, NB) column panel of ``w`` (the whole K in one block, so no
accumulator is needed), plus the bias row broadcast down the rows
(``dims=[-2]``; ``bias`` is row 0 of a (32, N) tensor), through ``gelu``, all
in one block expression evaluated in DST. Output blocks are split over the
grid's nodes.
"""

import math

import numpy as np

import ttl

TILE = 32
MB = 2  # tiles per block along M
NB = 2  # along N

OPERATION = "gelu_mlp"
SPECS = {
    "x": "bf16[128,256]",
    "w": "bf16[256,128]",
    "bias": "bf16[32,128]",
    "y": "bf16[128,128]",
}


# fp32_dest_acc_en: DST keeps fp32, so the matmul over K accumulate without rounding to bf16
# at every step (a 16-bit DST, the default for bf16 tensors, loses about 1%).
@ttl.operation(grid=(2, 2), fp32_dest_acc_en=True)
def gelu_mlp(x, w, bias, y):
    k_tiles = x.shape[1] // TILE
    m_blocks = x.shape[0] // TILE // MB
    n_blocks = w.shape[1] // TILE // NB
    blocks = m_blocks * n_blocks
    nodes = ttl.grid_size(dims=1)
    per_node = -(-blocks // nodes)

    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(MB, k_tiles), block_count=2)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(k_tiles, NB), block_count=2)
    bias_dfb = ttl.make_dataflow_buffer_like(bias, shape=(1, NB), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(MB, NB), block_count=2)

    @ttl.compute()
    def compute():
        me = ttl.node(dims=1)
        for i in range(per_node):
            if me * per_node + i < blocks:
                with (
                    x_dfb.wait() as x_blk,
                    w_dfb.wait() as w_blk,
                    bias_dfb.wait() as bias_blk,
                    y_dfb.reserve() as y_blk,
                ):
                    y_blk.store(
                        ttl.math.gelu(
                            x_blk @ w_blk + ttl.block.broadcast(bias_blk, dims=[-2], shape=(MB, NB))
                        )
                    )

    @ttl.datamovement()
    def read():
        me = ttl.node(dims=1)
        for i in range(per_node):
            blk_id = me * per_node + i
            if blk_id < blocks:
                m = blk_id // n_blocks
                n = blk_id % n_blocks
                with x_dfb.reserve() as x_blk, w_dfb.reserve() as w_blk:
                    tx_x = ttl.copy(x[m * MB : (m + 1) * MB, 0:k_tiles], x_blk)
                    tx_w = ttl.copy(w[0:k_tiles, n * NB : (n + 1) * NB], w_blk)
                    tx_x.wait()
                    tx_w.wait()
                with bias_dfb.reserve() as bias_blk:
                    ttl.copy(bias[0, n * NB : (n + 1) * NB], bias_blk).wait()

    @ttl.datamovement()
    def write():
        me = ttl.node(dims=1)
        for i in range(per_node):
            blk_id = me * per_node + i
            if blk_id < blocks:
                m = blk_id // n_blocks
                n = blk_id % n_blocks
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m * MB : (m + 1) * MB, n * NB : (n + 1) * NB]).wait()


def reference(x, w, bias):
    """NumPy reference: exact (erf) GELU of ``x @ w + bias[0]``."""
    h = np.asarray(x, dtype=np.float64) @ np.asarray(w, dtype=np.float64)
    h = h + np.asarray(bias, dtype=np.float64)[:1]
    return 0.5 * h * (1.0 + np.vectorize(math.erf)(h / math.sqrt(2.0)))
