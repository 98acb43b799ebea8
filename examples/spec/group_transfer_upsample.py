"""The spec's group-transfer example ("Group transfer", spec v0.15), as written:
nearest-neighbour upsampling of row-major images, pixel by pixel.

Both tensors are row-major (N, H, W, C) images, so the DFB's shape unit is an
element: a block of ``shape=(C,)`` holds one pixel's channels. The reader
copies each input pixel (``input_t[n, hi, wi, :]``, one DRAM row) into a
block; the writer copies the block to its ``H_SCALE_FACTOR x W_SCALE_FACTOR``
output pixels, adds the transfer handles to one ``ttl.GroupTransfer`` and
waits for them all at once. Only the sizes and the operation's signature are
ours; the body between ``spec:begin`` and ``spec:end`` is the spec's.
"""

import numpy as np

import ttl

N, HI, WI, C = 2, 3, 4, 48  # batch, input height and width, channels
H_SCALE_FACTOR, W_SCALE_FACTOR = 2, 3

OPERATION = "group_transfer_upsample"
SPECS = {
    "input_images": f"bf16[{N},{HI},{WI},{C}]:row_major",
    "output": f"bf16[{N},{HI * H_SCALE_FACTOR},{WI * W_SCALE_FACTOR},{C}]:row_major",
}


@ttl.operation(grid=(1, 1))
def group_transfer_upsample(input_images, output):
    input_t = input_images
    # spec:begin
    # ---------------------
    # Nearest Neighbor Upsample
    #
    # Tensor              Torch shape
    # input_images        N, HI, WI, C
    # output_images       N, HO, WO, C
    #
    # All tensors have row-major layout

    HO = HI * H_SCALE_FACTOR  # noqa: F841, N806 (the spec's names for the output size)
    WO = WI * W_SCALE_FACTOR  # noqa: F841, N806

    io_dfb = ttl.make_dataflow_buffer_like(input_images, shape=(C,), block_count=2)

    @ttl.datamovement()
    def reader():
        for n in range(N):
            for hi in range(HI):
                for wi in range(WI):
                    with io_dfb.reserve() as io_blk:
                        # Load input pixel channels

                        xf = ttl.copy(input_t[n, hi, wi, :], io_blk)

                        xf.wait()

    @ttl.datamovement()
    def writer():
        for n in range(N):
            for hi in range(HI):
                for wi in range(WI):
                    with io_dfb.wait() as io_blk:
                        gxf = ttl.GroupTransfer()

                        for h_scale_index in range(H_SCALE_FACTOR):
                            for w_scale_index in range(W_SCALE_FACTOR):
                                # Copy output pixel channels

                                xf = ttl.copy(
                                    io_blk,
                                    output[
                                        n,
                                        hi * H_SCALE_FACTOR + h_scale_index,
                                        wi * W_SCALE_FACTOR + w_scale_index,
                                        :,
                                    ],
                                )

                                # Add transfer handle to a group

                                gxf.add(xf)

                        # Wait for all transfers to complete

                        gxf.wait_all()

    # spec:end


def reference(input_images):
    """NumPy reference for ``output``: every pixel repeated H x W times."""
    x = np.asarray(input_images)
    return np.repeat(np.repeat(x, H_SCALE_FACTOR, axis=1), W_SCALE_FACTOR, axis=2)
