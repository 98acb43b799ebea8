"""The spec's "Tiled matmul example" (TT-Lang specification v0.15, "Block"), as written.

Batched matrix multiplication with bias: ``y[i, m, n] = sum_k a[i, m, k] * b[k, n] + c[m, n]``.
The kernels below are the spec's, verbatim; only the shapes are made concrete.

Two notes on the spec's text:

* The spec computes ``I_TILES = I // TILE_SIZE``, but only the two innermost
  dims of a tiled tensor are in tiles (the spec's own "Dataflow buffer" section:
  a ``(2, 128, 32)`` tensor is a ``(2, 4, 1)`` block); the batch dim ``I`` is in
  elements, so here ``I_TILES = I``.
* The compute kernel broadcasts ``b`` (``K_BLOCK_SIZE x N_BLOCK_SIZE``) to
  ``(I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE)`` where ``(I_BLOCK_SIZE,
  K_BLOCK_SIZE, N_BLOCK_SIZE)`` is meant. The program is valid only when
  ``M_BLOCK_SIZE == K_BLOCK_SIZE``, so these shapes choose that.
"""

# ruff: noqa: N806, RUF003  (the spec's upper-case names and × in its comments, kept verbatim)
import numpy as np

import ttl

TILE_SIZE = 32

OPERATION = "tiled_matmul"
SPECS = {
    "a": "bf16[4,64,128]",
    "b": "bf16[128,64]",
    "c": "bf16[64,64]",
    "y": "bf16[4,64,64]",
}

I_BLOCK_SIZE = 2
M_BLOCK_SIZE = 2
N_BLOCK_SIZE = 1
K_BLOCK_SIZE = 2  # == M_BLOCK_SIZE: the spec broadcasts b to (I, M, N) block sizes


@ttl.operation(grid=(1, 1))
def tiled_matmul(a, b, c, y):
    I, M, K = a.shape  # noqa: E741  (the spec's names)
    N = b.shape[1]

    # Shape in tiles (M, N and K are evenly divisible by TILE_SIZE; I is not tiled)
    I_TILES = I
    M_TILES = M // TILE_SIZE
    N_TILES = N // TILE_SIZE
    K_TILES = K // TILE_SIZE

    # Shape in blocks (I_TILES, M_TILES, N_TILES and K_TILES are evenly
    # divisible by I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE and K_BLOCK_SIZE)
    I_BLOCKS = I_TILES // I_BLOCK_SIZE
    M_BLOCKS = M_TILES // M_BLOCK_SIZE
    N_BLOCKS = N_TILES // N_BLOCK_SIZE
    K_BLOCKS = K_TILES // K_BLOCK_SIZE

    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(I_BLOCK_SIZE, M_BLOCK_SIZE, K_BLOCK_SIZE))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(K_BLOCK_SIZE, N_BLOCK_SIZE))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(M_BLOCK_SIZE, N_BLOCK_SIZE))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE))

    @ttl.datamovement()
    def matmul_read():
        for i_block in range(I_BLOCKS):
            i_slice = slice(i_block * I_BLOCK_SIZE, (i_block + 1) * I_BLOCK_SIZE)

            for m_block in range(M_BLOCKS):
                m_slice = slice(m_block * M_BLOCK_SIZE, (m_block + 1) * M_BLOCK_SIZE)

                for n_block in range(N_BLOCKS):
                    n_slice = slice(n_block * N_BLOCK_SIZE, (n_block + 1) * N_BLOCK_SIZE)

                    # Reserve c_blk
                    with c_dfb.reserve() as c_blk:
                        # Load M_BLOCK_SIZE×N_BLOCK_SIZE block of c into c_blk
                        c_xf = ttl.copy(c[m_slice, n_slice], c_blk)
                        c_xf.wait()

                        # Push c_blk to make it ready for matmul_compute

                    # Repeat for each K block
                    for k_block in range(K_BLOCKS):
                        k_slice = slice(k_block * K_BLOCK_SIZE, (k_block + 1) * K_BLOCK_SIZE)

                        # Reserve a_blk and b_blk
                        with (
                            a_dfb.reserve() as a_blk,
                            b_dfb.reserve() as b_blk,
                        ):
                            # Load I_BLOCK_SIZE×M_BLOCK_SIZE×K_BLOCK_SIZE of a into a_blk
                            # and K_BLOCK_SIZE×N_BLOCK_SIZE of b into b_blk
                            a_xf = ttl.copy(a[i_slice, m_slice, k_slice], a_blk)
                            b_xf = ttl.copy(b[k_slice, n_slice], b_blk)

                            a_xf.wait()
                            b_xf.wait()

                            # Push a_blk and b_blk to make it ready for matmul_compute

    @ttl.compute()
    def matmul_compute():
        for _ in range(I_BLOCKS):
            for _ in range(M_BLOCKS):
                for _ in range(N_BLOCKS):
                    # Reserve y_blk
                    with y_dfb.reserve() as y_blk:
                        # Zero-initialize the accumulator y before summing K_BLOCKS partial products
                        y = ttl.math.fill(0, shape=(I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE))

                        # Repeat for each K block
                        for _ in range(K_BLOCKS):
                            # Wait for a_blk and b_blk to be loaded and pushed by matmul_read
                            with (
                                a_dfb.wait() as a_blk,
                                b_dfb.wait() as b_blk,
                            ):
                                # b_blk has shape K_BLOCK_SIZE×N_BLOCK_SIZE;
                                # unsqueeze it to 1×K_BLOCK_SIZE×N_BLOCK_SIZE and then
                                # broadcast it over dim 0 to I_BLOCK_SIZE×K_BLOCK_SIZE×N_BLOCK_SIZE
                                # (the spec writes M_BLOCK_SIZE: equal to K_BLOCK_SIZE here)
                                b = ttl.math.broadcast(
                                    ttl.math.unsqueeze(b_blk, dim=0),
                                    dims=[0],
                                    shape=(I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE),
                                )

                                # Accumulate dot product of I_BLOCK_SIZE×M_BLOCK_SIZE×K_BLOCK_SIZE
                                # of a_blk and I_BLOCK_SIZE×K_BLOCK_SIZE×N_BLOCK_SIZE of b in y
                                y += a_blk @ b

                                # Pop a_blk and b_blk to make them available for matmul_read
                                # to load and push next blocks

                        # Wait for c_blk to be loaded and pushed by matmul_read
                        with c_dfb.wait() as c_blk:
                            # c_blk has shape M_BLOCK_SIZE×N_BLOCK_SIZE;
                            # unsqueeze it to 1×M_BLOCK_SIZE×N_BLOCK_SIZE and then
                            # broadcast it over dim 0 to I_BLOCK_SIZE×M_BLOCK_SIZE×N_BLOCK_SIZE
                            c = ttl.math.broadcast(
                                ttl.math.unsqueeze(c_blk, dim=0),
                                dims=[0],
                                shape=(I_BLOCK_SIZE, M_BLOCK_SIZE, N_BLOCK_SIZE),
                            )

                            y = y + c

                            # Pop c_blk to make it available for matmul_read to load and push
                            # next block

                        y_blk.store(y)

                        # Push y_blk to make it ready for matmul_write

    @ttl.datamovement()
    def matmul_write():
        for i_block in range(I_BLOCKS):
            for m_block in range(M_BLOCKS):
                for n_block in range(N_BLOCKS):
                    # Wait for matmul_compute to store and push y_blk
                    with y_dfb.wait() as y_blk:
                        # Store I_BLOCK_SIZE×M_BLOCK_SIZE×N_BLOCK_SIZE y_blk block into y
                        y_xf = ttl.copy(
                            y_blk,
                            y[
                                i_block * I_BLOCK_SIZE : (i_block + 1) * I_BLOCK_SIZE,
                                m_block * M_BLOCK_SIZE : (m_block + 1) * M_BLOCK_SIZE,
                                n_block * N_BLOCK_SIZE : (n_block + 1) * N_BLOCK_SIZE,
                            ],
                        )
                        y_xf.wait()

                        # Pop y_blk to make it available for matmul_compute to store and push
                        # next block


def reference(a, b, c):
    """NumPy reference: ``y = a @ b + c`` per batch."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    return np.einsum("imk,kn->imn", a, b) + c
