"""The TT-Lang operation ``y = a @ b`` used by the bfloat8_b example.

Each output tile (m, n) is one store of a (1, K) block row of ``a`` times a
(K, 1) block column of ``b``: the K tiles accumulate in DST. Any dtypes the
operation can mix (bf16 and bfp8 blocks unpack to the same DST values).
"""

import ttl

TILE = 32


@ttl.operation(grid=(1, 1))
def matmul(a, b, y):
    m_tiles = a.shape[0] // TILE
    k_tiles = a.shape[1] // TILE
    n_tiles = b.shape[1] // TILE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, k_tiles), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(k_tiles, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for m in range(m_tiles):
            for n in range(n_tiles):
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                    tx_a = ttl.copy(a[m, 0:k_tiles], a_blk)
                    tx_b = ttl.copy(b[0:k_tiles, n], b_blk)
                    tx_a.wait()
                    tx_b.wait()

    @ttl.compute()
    def compute():
        for _ in range(m_tiles):
            for _ in range(n_tiles):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
                    y_blk.store(a_blk @ b_blk)

    @ttl.datamovement()
    def write():
        for m in range(m_tiles):
            for n in range(n_tiles):
                with y_dfb.wait() as y_blk:
                    tx = ttl.copy(y_blk, y[m, n])
                    tx.wait()
