"""bf16 and f32 meeting in copies and in block expressions.

Issue 28 item 2: "a copy from an f32 DFB into a bf16 tensor ... is rejected, and an
expression or store mixing f32 and bf16 blocks is rejected. The hardware converts
formats in its unpacker and packer; so must we." A copy never passes through the
unpacker or packer, so the data-movement core converts each page in software
(``ttl-stage-converting-copies``, ``emit/convert.py``); a compute kernel whose CBs
differ in format points the unpacker and packer at each CB's format. The numbers
are checked on both targets in ``tests/programs/dtype_copies.py`` and
``tests/programs/mixed_dtypes.py``.
"""

from __future__ import annotations

from compiler_testlib import filecheck

COPIES = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)

    @ttl.datamovement()
    def dm():
        with dfb.reserve() as blk:
            ttl.copy(y[0, 0:2], blk).wait()
            ttl.copy(blk, y[1, 0:2]).wait()
"""


def test_a_copy_between_f32_and_bf16_converts_each_page_through_l1(compile_source):
    r = compile_source(COPIES, "op", {"a": "f32[64,64]", "y": "bf16[64,64]"})
    filecheck(
        r.sources["dm.cpp"],
        """
        CHECK: inline void ttl_bf16_to_f32(uint32_t dst, uint32_t src, uint32_t count) {
        CHECK: inline void ttl_f32_to_bf16(uint32_t dst, uint32_t src, uint32_t count) {
        CHECK: ttl.copy(y[0, 0:2], blk).wait()
        CHECK-NEXT: cb_reserve_back(dfb_convert_dm, 1);
        CHECK-NEXT: const uint32_t staged = get_write_ptr(dfb_convert_dm);
        CHECK-NEXT: for (uint32_t tile1 = 0; tile1 < 2; ++tile1) {
        CHECK-NEXT:   noc_async_read_page(tile1, tensor_y, staged);
        CHECK-NEXT:   noc_async_read_barrier();
        CHECK-NEXT:   ttl_bf16_to_f32(blk_addr + tile1 * 4096, staged, 1024);
        CHECK: ttl.copy(blk, y[1, 0:2]).wait()
        CHECK: ttl_f32_to_bf16(staged_1, blk_addr + tile1_1 * 4096, 1024);
        CHECK-NEXT: noc_async_write_page(1 * 2 + tile1_1, tensor_y, staged_1);
        CHECK-NEXT: noc_async_write_barrier();
        """,
    )
    staging = [f for f in r.manifest["logical_dfbs"] if f["name"].startswith("convert_")]
    assert [f["name"] for f in staging] == ["convert_dm"]


def test_a_copy_of_matching_dtypes_has_no_staging_page(compile_source):
    r = compile_source(COPIES, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "ttl_bf16_to_f32" not in r.sources["dm.cpp"]
    assert all(not f["name"].startswith("convert_") for f in r.manifest["logical_dfbs"])


def test_a_copy_between_bfp8_and_another_dtype_names_what_converts(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def dm():
            with dfb.reserve() as blk:
                ttl.copy(y[0, 0], blk).wait()  # ERROR
    """
    err = compile_error(src, "op", {"a": "f32[32,32]", "y": "bfp8[32,32]"})
    assert err.message == (
        "tensor 'y' is bfp8 but 'dfb' holds f32: a copy converts only between bf16 and f32 "
        "(the data-movement core converts in software; docs/language.md)"
    )
    assert err.hint == (
        "make the DFB like a bfp8 tensor, or convert in a compute kernel (its unpacker and "
        "packer convert any format)"
    )


MIXED = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
            o.store(x * z + x)
"""


def test_an_expression_of_f32_and_bf16_blocks_reconfigures_unpacker_and_packer(
    compile_source,
):
    r = compile_source(MIXED, "op", {"a": "f32[32,32]", "b": "bf16[32,32]", "y": "bf16[32,32]"})
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: #include "api/compute/reconfig_data_format.h"
        CHECK: tile_regs_acquire();
        CHECK-NEXT: reconfig_data_format(dfb_a_dfb, dfb_b_dfb);
        CHECK-NEXT: mul_init(dfb_a_dfb, dfb_b_dfb, false);
        CHECK-NEXT: mul_tiles(dfb_a_dfb, dfb_b_dfb, 0, 0, 0);
        CHECK-NEXT: reconfig_data_format_srca(dfb_a_dfb);
        CHECK-NEXT: copy_init(dfb_a_dfb);
        CHECK: tile_regs_wait();
        CHECK-NEXT: pack_reconfig_data_format(dfb_y_dfb);
        CHECK-NEXT: pack_tile(0, dfb_y_dfb, 0);
        """,
    )
    # The f32 operand is read converted to the stored block's bf16.
    filecheck(r.ir, "CHECK: ttl.read %x {{.*}}!ttl.block<1x1xf32> -> !ttl.tiles<1x1xbf16>")


def test_a_kernel_of_one_format_does_not_reconfigure(compile_source):
    r = compile_source(MIXED, "op", {"a": "bf16[32,32]", "b": "bf16[32,32]", "y": "bf16[32,32]"})
    assert "reconfig_data_format" not in r.sources["compute.cpp"]
