"""The transfer type's names: ``ttl.CopyTransferHandler`` (spec v0.21) and ``ttl.Transfer``
(before it), usable in annotations in and around kernels."""

from __future__ import annotations

import ttl

SOURCE = """
import ttl

def wait_for(xf: ttl.CopyTransferHandler) -> None:  # evaluated when the module loads
    xf.wait()

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            xf: ttl.CopyTransferHandler = ttl.copy(a[0, 0], blk)
            wait_for(xf)

    @ttl.datamovement()
    def write():
        with a_dfb.wait() as blk:
            xf: ttl.Transfer = ttl.copy(blk, y[0, 0])
            xf.wait()
"""


def test_both_names_annotate_transfers(compile_source):
    result = compile_source(SOURCE, "op", {"a": "bf16[32,32]", "y": "bf16[32,32]"})
    assert "noc_async_read_barrier();" in result.sources["read.cpp"]
    assert "noc_async_write_barrier();" in result.sources["write.cpp"]


def test_transfer_is_the_old_name_of_copy_transfer_handler():
    assert ttl.Transfer is ttl.CopyTransferHandler
