"""The spec's "Tiled element-wise example" (TT-Lang specification v0.15, "Block"), as written.

Tiled element-wise with broadcast and reduce::

    y[n] = sum_m sqrt(a[n, m]^2 + b[n]^2 + c[m]^2 + d^2)
    z[m] = sum_n sqrt(a[n, m]^2 - b[n]^2 - c[m]^2 - d^2)

The kernels below are the spec's, verbatim; only the shapes are made concrete
(``N >> M`` is relaxed to ``N > M`` to keep the test small). The vectors live in
tiles as the compute kernel's broadcasts and reductions read and write them:
``b[n]`` in column 0 of a ``(N, 32)`` tensor (``broadcast(dims=[-1])``
replicates column 0), ``c[m]`` in row 0 of a ``(32, M)`` tensor, ``d`` at
element ``(0, 0)`` of a ``(32, 32)`` tensor; ``y[n]`` comes back in column 0 of
a ``(N, 32)`` tensor (``reduce_sum(dims=[-1])`` sums each row into column 0) and
``z[m]`` in row 0 of a ``(32, M)`` tensor; the rest of those tiles is 0.

``z`` takes square roots of ``a^2 - b^2 - c^2 - d^2``, NaN where that is
negative (as on hardware, and in the NumPy reference). The write kernel drains
``z`` before any ``y`` block, so the compute kernel can push at most
``block_count`` (2) ``y`` blocks first: ``N_BLOCKS <= 2``.
"""

# ruff: noqa: N806, RUF003  (the spec's upper-case names and × in its comments, kept verbatim)
import numpy as np

import ttl

TILE_SIZE = 32

OPERATION = "tiled_elementwise"
SPECS = {
    "a": "bf16[128,64]",
    "b": "bf16[128,32]",
    "c": "bf16[32,64]",
    "d": "bf16[32,32]",
    "y": "bf16[128,32]",
    "z": "bf16[32,64]",
}

N_BLOCK_SIZE = 2


@ttl.operation(grid=(1, 1))
def tiled_elementwise(a, b, c, d, y, z):
    N, M = a.shape

    # Shape in tiles (N and M are evenly divisible by TILE_SIZE)
    N_TILES = N // TILE_SIZE
    M_TILES = M // TILE_SIZE

    # Shape in blocks (N_TILES is evenly divisible by N_BLOCK_SIZE)
    N_BLOCKS = N_TILES // N_BLOCK_SIZE

    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(N_BLOCK_SIZE, M_TILES))

    # Tiled DFB shape needs to be at least two-dimensional;
    # When tiled the one-dimensional vector b is placed in row 0
    # of each tile in a row of N_TILES tiles
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(N_BLOCK_SIZE, 1))
    # When tiled the one-dimensional vector c is placed in column 0
    # of each tile in a column of M_TILES tiles
    c_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, M_TILES))
    # When tiled the scalar value d is placed at position (0, 0)
    # of a single tile
    d_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1))
    # When untiled the one-dimensional y vector is formed from row 0
    # of each tile in a row of N_TILES tiles
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(N_BLOCK_SIZE, 1))
    # When untiled the one-dimensional z vector is formed from column 0
    # of each tile in a column of M_TILES tiles
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(1, M_TILES))

    @ttl.datamovement()
    def elwise_read():
        # Reserve c_blk and d_blk blocks
        with (
            c_dfb.reserve() as c_blk,
            d_dfb.reserve() as d_blk,
        ):
            # Load entire (1×M_TILES) c
            c_xf = ttl.copy(c[0, :], c_blk)

            # Load entire (1×1) d
            d_xf = ttl.copy(d[0, 0], d_blk)

            c_xf.wait()
            d_xf.wait()

            # Push c_blk and d_blk to make them ready for elwise_compute

        for n_block in range(N_BLOCKS):
            # Reserve a_blk and b_blk blocks
            with (
                a_dfb.reserve() as a_blk,
                b_dfb.reserve() as b_blk,
            ):
                # Load N_BLOCK_SIZE×M_TILES block of a
                a_xf = ttl.copy(a[n_block * N_BLOCK_SIZE : (n_block + 1) * N_BLOCK_SIZE, :], a_blk)

                # Load N_BLOCK_SIZE×1 block of b
                b_xf = ttl.copy(b[n_block * N_BLOCK_SIZE : (n_block + 1) * N_BLOCK_SIZE, 0], b_blk)

                a_xf.wait()
                b_xf.wait()

                # Push a_blk and b_blk to make them ready for elwise_compute

    @ttl.compute()
    def elwise_compute():
        # Wait for c_blk and d_blk to be loaded and pushed by elwise_read;
        # Reserve z_blk
        with (
            c_dfb.wait() as c_blk,
            d_dfb.wait() as d_blk,
            z_dfb.reserve() as z_blk,
        ):
            c_squared = c_blk**2
            d_squared = d_blk**2

            # Broadcast c_squared along dimension 0 (first) to get N_BLOCK_SIZE×M_TILES;
            # This first broadcasts column 0 to fill each of M_TILES tiles
            # then it broadcasts column of M_TILES tiles to get N_BLOCK_SIZE×M_TILES tiles
            c_squared_bcast = ttl.math.broadcast(c_squared, dims=[0], shape=(N_BLOCK_SIZE, M_TILES))

            # Broadcast d_squared along all dimensions (0 and 1) to N_BLOCK_SIZE×M_TILES;
            # This first broadcasts single scalar element at position (0, 0) to fill a single tile
            # then it broadcasts single tile to get N_BLOCK_SIZE×M_TILES tiles
            d_squared_bcast = ttl.math.broadcast(
                d_squared, dims=[0, 1], shape=(N_BLOCK_SIZE, M_TILES)
            )

            # Zero-initialize the accumulator z before summing N_BLOCKS partial sums
            z = ttl.math.fill(0, shape=(1, M_TILES))

            for _ in range(N_BLOCKS):
                # Wait for a_blk and b_blk to be loaded and pushed by elwise_read;
                # Reserve y_blk
                with (
                    a_dfb.wait() as a_blk,
                    b_dfb.wait() as b_blk,
                    y_dfb.reserve() as y_blk,
                ):
                    a_squared = a_blk**2
                    b_squared = b_blk**2

                    # Broadcast b_squared along dim -1 (last) to get N_BLOCK_SIZE×M_TILES;
                    # This first broadcasts row 0 to fill each of N_BLOCK_SIZE tiles
                    # then it broadcasts row of N_BLOCK_SIZE tiles to get N_BLOCK_SIZE×M_TILES tiles
                    b_squared_bcast = ttl.math.broadcast(
                        b_squared, dims=[-1], shape=(N_BLOCK_SIZE, M_TILES)
                    )

                    # Perform elementwise math on N_BLOCK_SIZE×M_TILES tiles
                    expanded_y = ttl.math.sqrt(
                        a_squared + b_squared_bcast + c_squared_bcast + d_squared_bcast
                    )
                    expanded_z = ttl.math.sqrt(
                        a_squared - b_squared_bcast - c_squared_bcast - d_squared_bcast
                    )

                    # Reduce expanded_y along dim -1 (last) to get N_BLOCK_SIZE×1 row of tiles
                    y = ttl.math.reduce_sum(expanded_y, dims=[-1], shape=(N_BLOCK_SIZE, 1))

                    # Reduce expanded_z along dim 0 (first) to get 1×M_TILES column of tiles;
                    z_partial = ttl.math.reduce_sum(expanded_z, dims=[0], shape=(1, M_TILES))

                    # Store y
                    y_blk.store(y)

                    # Accumulate-add partial z
                    z += z_partial

                    # Pop a_blk and b_dfb to make them available for elwise_read to load and
                    # push next blocks;
                    # Push y_blk to make it ready for elwise_write

            # Store z
            z_blk.store(z)

        # Pop c_blk and d_blk;
        # Push z_blk to make it ready for elwise_write

    @ttl.datamovement()
    def elwise_write():
        # Wait for elwise_compute to store and push z_blk
        with z_dfb.wait() as z_blk:
            # Store entire (1xM_TILES) z
            z_xf = ttl.copy(z_blk, z[0, :])
            z_xf.wait()

            # Pop z_blk

        for n_block in range(N_BLOCKS):
            n_slice = slice(n_block * N_BLOCK_SIZE, (n_block + 1) * N_BLOCK_SIZE)

            # Wait for elwise_compute to store and push y_blk
            with y_dfb.wait() as y_blk:
                # Store N_BLOCK_SIZExM_TILES of y
                y_xf = ttl.copy(y_blk, y[n_slice, :])
                y_xf.wait()

                # Pop y_blk to make it available for elwise_compute to store and push next block


def reference(a, b, c, d):
    """NumPy reference: ``(y, z)`` in the tiles the kernels write (see the docstring)."""
    a, b, c, d = (np.asarray(x, dtype=np.float64) for x in (a, b, c, d))
    bv, cv, dv = b[:, 0], c[0, :], d[0, 0]
    outer = bv[:, None] ** 2 + cv[None, :] ** 2 + dv**2
    y = np.zeros((a.shape[0], TILE_SIZE))
    z = np.zeros((TILE_SIZE, a.shape[1]))
    with np.errstate(invalid="ignore"):
        y[:, 0] = np.sqrt(a**2 + outer).sum(axis=1)
        z[0, :] = np.sqrt(a**2 - outer).sum(axis=0)
    return y, z


def inputs(rng):
    """Inputs where every ``a^2 - b^2 - c^2 - d^2`` is positive (``z`` is finite)."""
    shapes = [(128, 64), (128, 32), (32, 64), (32, 32)]
    a = rng.uniform(1.5, 2.5, shapes[0]) * rng.choice([-1.0, 1.0], shapes[0])
    rest = [rng.uniform(-0.5, 0.5, s) for s in shapes[1:]]
    return [a, *rest]
