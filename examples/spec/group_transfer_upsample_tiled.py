"""A tiled variant of the spec's group-transfer example ("Group transfer"):
nearest-neighbour upsampling of whole tiles.

The spec upsamples row-major images pixel by pixel (group_transfer_upsample.py);
with tiled tensors the unit is a tile. The writer copies each input tile to its
``F x F`` output positions, adds the transfer handles to one
``ttl.GroupTransfer`` and waits for them all at once.
"""

import numpy as np

import ttl

TILE = 32
H, W = 2, 3  # input size in tiles
F = 2  # scale factor in both dimensions

OPERATION = "group_transfer_upsample_tiled"
SPECS = {"x": f"bf16[{TILE * H},{TILE * W}]", "y": f"bf16[{TILE * H * F},{TILE * W * F}]"}


@ttl.operation(grid=(1, 1))
def group_transfer_upsample_tiled(x, y):
    io_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def reader():
        for h in range(H):
            for w in range(W):
                with io_dfb.reserve() as io_blk:
                    xf = ttl.copy(x[h, w], io_blk)
                    xf.wait()

    @ttl.datamovement()
    def writer():
        for h in range(H):
            for w in range(W):
                with io_dfb.wait() as io_blk:
                    gxf = ttl.GroupTransfer()
                    for i in range(F):
                        for j in range(F):
                            xf = ttl.copy(io_blk, y[h * F + i, w * F + j])
                            gxf.add(xf)
                    gxf.wait_all()


def reference(x):
    """NumPy reference for ``y``: every tile of ``x`` repeated F x F times."""
    tiles = np.asarray(x).reshape(H, TILE, W, TILE)
    up = np.repeat(np.repeat(tiles, F, axis=0), F, axis=2)
    return up.reshape(H * F * TILE, W * F * TILE)
