"""Row softmax: ``y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))``.

Each node takes whole rows of tiles (a (1, COLS) block): ``reduce_max`` over
dim -1 leaves each row's maximum in column 0 of a (1, 1) block,
``broadcast(..., dims=[-1])`` spreads it back over the row, ``exp``,
``reduce_sum`` and ``recip`` give each row's normaliser. Written with the
spec's ``reduce_*(x, dims=..., shape=...)`` form, which tt-lang-sim runs too.
"""

import numpy as np

import ttl

TILE = 32

OPERATION = "softmax"
SPECS = {"x": "bf16[128,256]", "y": "bf16[128,256]"}


# fp32_dest_acc_en: DST keeps fp32, so the row sums accumulate without rounding to bf16
# at every step (a 16-bit DST, the default for bf16 tensors, loses about 1%).
@ttl.operation(grid=(2, 2), fp32_dest_acc_en=True)
def softmax(x, y):
    rows = x.shape[0] // TILE
    cols = x.shape[1] // TILE
    nodes = ttl.grid_size(dims=1)
    per_node = rows // nodes  # rows of tiles split evenly over the nodes

    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, cols), block_count=2)
    m_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    e_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, cols), block_count=2)
    s_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, cols), block_count=2)

    @ttl.compute()
    def compute():
        first = ttl.node(dims=1) * per_node
        last = first + per_node
        for _ in range(first, last):
            with x_dfb.wait() as x_blk:
                with m_dfb.reserve() as m_blk:
                    m_blk.store(ttl.math.reduce_max(x_blk, dims=[-1], shape=(1, 1)))
                with m_dfb.wait() as m_blk:
                    with e_dfb.reserve() as e_blk:
                        e_blk.store(
                            ttl.math.exp(
                                x_blk - ttl.block.broadcast(m_blk, dims=[-1], shape=(1, cols))
                            )
                        )
                    with e_dfb.wait() as e_blk, s_dfb.reserve() as s_blk:
                        s_blk.store(
                            ttl.math.recip(ttl.math.reduce_sum(e_blk, dims=[-1], shape=(1, 1)))
                        )
                    # exp again in fp32 DST rather than the bf16-rounded e: one rounding less
                    with s_dfb.wait() as s_blk, y_dfb.reserve() as y_blk:
                        y_blk.store(
                            ttl.math.exp(
                                x_blk - ttl.block.broadcast(m_blk, dims=[-1], shape=(1, cols))
                            )
                            * ttl.block.broadcast(s_blk, dims=[-1], shape=(1, cols))
                        )

    @ttl.datamovement()
    def read():
        first = ttl.node(dims=1) * per_node
        last = first + per_node
        for r in range(first, last):
            with x_dfb.reserve() as x_blk:
                ttl.copy(x[r, 0:cols], x_blk).wait()

    @ttl.datamovement()
    def write():
        first = ttl.node(dims=1) * per_node
        last = first + per_node
        for r in range(first, last):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[r, 0:cols]).wait()


def reference(x):
    """NumPy reference: softmax along each row."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
