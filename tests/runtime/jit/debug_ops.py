"""The spec's debugging examples (v0.15, "Performance and debugging") as runnable operations.

``matmul_read`` is the spec's data-movement kernel with its signposts and
prints (2-D tensors; the copies wait before ``c_blk`` is printed, so the block
holds data); a compute kernel consumes the blocks and a writer stores ``y``.
"""

import ttl

M_TILES, N_TILES, K_TILES = 1, 2, 2


@ttl.operation(grid=(1, 1))
def spec_debugging(a, b, c, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def matmul_read():
        print("c: ", c, num_pages=2)
        print("a: ", a)
        for m_tile in range(M_TILES):
            for n_tile in range(N_TILES):
                with ttl.signpost("i_m_n iteration"):
                    with ttl.signpost("push c"):  # noqa: SIM117 (the spec's layout)
                        with c_dfb.reserve() as c_blk:
                            print("c_dfb after reserve: ", c_dfb)
                            with ttl.signpost("read c"):
                                c_xf = ttl.copy(c[m_tile, n_tile], c_blk)
                                c_xf.wait()
                            print("m_tile=", m_tile, " n_tile=", n_tile, " c_blk: ", c_blk)
                    print("c_dfb after push: ", c_dfb)
                    for k_tile in range(K_TILES):
                        with ttl.signpost("push a and b"):  # noqa: SIM117
                            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                                print("k_tile=", k_tile)
                                with ttl.signpost("read a and b"):
                                    a_xf = ttl.copy(a[m_tile, k_tile], a_blk)
                                    b_xf = ttl.copy(b[k_tile, n_tile], b_blk)
                                    a_xf.wait()
                                    b_xf.wait()

    @ttl.compute()
    def compute():
        for _ in range(M_TILES * N_TILES):
            with c_dfb.wait() as c_blk, y_dfb.reserve() as y_blk:
                y_blk.store(c_blk * 2)
                print("y_blk: ", y_blk)
            for _ in range(K_TILES):
                with a_dfb.wait(), b_dfb.wait():
                    pass

    @ttl.datamovement()
    def write():
        for m_tile in range(M_TILES):
            for n_tile in range(N_TILES):
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m_tile, n_tile]).wait()


@ttl.operation(grid=(1, 1))
def stuck(a, b, y):
    """Deadlocks: the reader pushes both ``a`` tiles before any ``b`` tile, but the
    one-block DFBs make its second ``a`` wait for a pop that needs a ``b`` tile."""
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def read():
        with ttl.signpost("outer"), ttl.signpost("all of a first"):
            for col in range(2):
                print("pushing a tile", col)
                with a_dfb.reserve() as blk:
                    ttl.copy(a[0, col], blk).wait()
        for col in range(2):
            with b_dfb.reserve() as blk:
                ttl.copy(b[0, col], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, b_dfb.wait() as w, y_dfb.reserve() as z:
                z.store(x + w)

    @ttl.datamovement()
    def write():
        for col in range(2):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, col]).wait()
