"""print(...) and ttl.signpost in kernels: IR, C++ and every located error."""

# ruff: noqa: E501  (FileCheck lines quote whole IR and C++ lines)

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

SPECS = {"a": "bf16[64,64]", "y": "bf16[64,64]"}

OP = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
        for r in range(2):
            with ttl.signpost("row"):
                with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                    y_blk.store(a_blk * 2)
                    print("r=", r, y_blk)

    @ttl.datamovement()
    def read():
        print("a: ", a, num_pages=2)
        for r in range(2):
            with a_dfb.reserve() as a_blk:
                print("state", a_dfb)
                ttl.copy(a[r, 0:2], a_blk).wait()
            print("r=", r, "n", r > 0, 7, 'q"\\\\', sep="|", end="")

    @ttl.datamovement()
    def write():
        for r in range(2):
            with ttl.signpost("outer"), y_dfb.wait() as y_blk:
                with ttl.signpost("inner"):
                    ttl.copy(y_blk, y[r, 0:2]).wait()
"""


def test_print_and_signpost_ir_and_cpp(compile_source):
    result = compile_source(OP, "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.kernel @compute
        CHECK: ttl.signpost_begin "row"
        CHECK: ttl.store
        CHECK: ttl.print(%r, %y_blk) {parts = ["r= ", 0 : i64, 1 : i64], end = "\\0A"} : (i32, !ttl.block<1x2xbf16>)
        CHECK: ttl.signpost_end "row"
        CHECK: ttl.kernel @read
        CHECK: %[[STAGING:.*]] = ttl.get_dfb @print_read : !ttl.dfb<1x1xbf16>
        CHECK: ttl.print(%a) staging %[[STAGING]] : !ttl.dfb<1x1xbf16> {parts = ["a: ", 0 : i64], end = "\\0A", num_pages = 2 : i64} : (!ttl.tensor<64x64xbf16>)
        CHECK: ttl.print(%{{.*}}) {parts = ["state", 0 : i64], end = "\\0A"} : (!ttl.dfb<1x2xbf16>)
        CHECK: ttl.print(%{{.*}}, %{{.*}}) {parts = ["r=|", 0 : i64, "|n|", 1 : i64, "|7|q\\22\\\\"], end = ""} : (i32, i1)
        CHECK: ttl.kernel @write
        CHECK: ttl.signpost_begin "outer"
        CHECK: ttl.signpost_begin "inner"
        CHECK: ttl.signpost_end "inner"
        CHECK: ttl.signpost_end "outer"
        """,
    )
    cpp = result.sources
    filecheck(
        cpp["compute.cpp"],
        """
        CHECK: // {{.*}}: with ttl.signpost("row"):
        CHECK-NEXT: {
        CHECK-NEXT: DeviceZoneScopedN("row");
        CHECK: pack_tile
        CHECK: DPRINT_PACK("r= {}<Block of y_dfb shape=(1, 2) dtype=bf16>", static_cast<int32_t>(r));
        CHECK-NEXT: for (uint32_t tile = 0; tile < 2; ++tile) {
        CHECK-NEXT: DPRINT_PACK("\\n  tile ({}, {}):", tile / 2, tile % 2);
        CHECK-NEXT: for (uint8_t row = 0; row < 32; ++row) {
        CHECK-NEXT: DPRINT_PACK("\\n    {}", TSLICE(dfb_y_dfb, tile, SliceRange{row, static_cast<uint8_t>(row + 1), 1, 0, 32, 1}, false, true));
        CHECK-NEXT: }
        CHECK-NEXT: }
        CHECK-NEXT: DPRINT_PACK("\\n");
        CHECK: cb_push_back(dfb_y_dfb, 2);
        CHECK-NEXT: cb_pop_front(dfb_a_dfb, 2);
        CHECK-NEXT: }
        CHECK-NEXT: }
        """,
    )
    filecheck(
        cpp["read.cpp"],
        """
        CHECK: #include "api/debug/dprint.h"
        CHECK-NEXT: #include "api/debug/dprint_pages.h"
        CHECK: constexpr uint32_t dfb_print_read = get_compile_time_arg_val(1);
        CHECK: DPRINT("a: <Tensor a shape=(64, 64) dtype=bf16>\\n  Printing first 2 page(s):");
        CHECK-NEXT: for (uint32_t page = 0; page < 2; ++page) {
        CHECK-NEXT: cb_reserve_back(dfb_print_read, 1);
        CHECK-NEXT: noc_async_read_page(page, tensor_a, get_write_ptr(dfb_print_read));
        CHECK-NEXT: noc_async_read_barrier();
        CHECK-NEXT: DPRINT("\\n  page {} (tile ({}, {})):", page, page / 2, page % 2);
        CHECK-NEXT: for (uint8_t row = 0; row < 32; ++row) {
        CHECK-NEXT: DPRINT("\\n    {}", TSLICE(dfb_print_read, 0, SliceRange{row, static_cast<uint8_t>(row + 1), 1, 0, 32, 1}, TSLICE_OUTPUT_CB, TSLICE_WR_PTR, false, true));
        CHECK: DPRINT("state<DataflowBuffer a_dfb shape=(1, 2) dtype=bf16>\\n");
        CHECK-NEXT: print_cb_details(dfb_a_dfb);
        CHECK: DPRINT("r=|{}|n|{}|7|q\\"\\\\", static_cast<int32_t>(r), ({{.*}} ? "True" : "False"));
        """,
    )
    filecheck(
        cpp["write.cpp"],
        """
        CHECK: #include "api/debug/kernel_profiler.hpp"
        CHECK: with ttl.signpost("outer"), y_dfb.wait() as y_blk:
        CHECK-NEXT: {
        CHECK-NEXT: DeviceZoneScopedN("outer");
        CHECK: cb_wait_front
        CHECK: with ttl.signpost("inner"):
        CHECK-NEXT: {
        CHECK-NEXT: DeviceZoneScopedN("inner");
        CHECK: noc_async_write_barrier();
        CHECK-NEXT: }
        CHECK: cb_pop_front
        CHECK-NEXT: }
        """,
    )


def test_kernels_without_print_have_no_debug_code(compile_source):
    source = OP.replace('print("r=", r, y_blk)', "pass")
    result = compile_source(source, "op", SPECS)
    assert "DPRINT" not in result.sources["compute.cpp"]
    assert "DeviceZoneScopedN" not in result.sources["read.cpp"]
    assert "kernel_profiler" not in result.sources["read.cpp"]


ZONE_VALUES = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with ttl.signpost("setup"):
            first = ttl.node(dims=1) * 2
            blk = a_dfb.reserve()
        ttl.copy(a[first, 0], blk).wait()
        blk.push()

    @ttl.datamovement()
    def write():
        with a_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""


def test_values_a_zone_defines_for_later_code_are_declared_before_it(compile_source):
    """A signpost's body is a C++ scope (DeviceZoneScopedN profiles to its end); what
    the body assigns and later code reads is declared before that scope."""
    result = compile_source(ZONE_VALUES, "op", {"a": "bf16[64,32]", "y": "bf16[32,32]"})
    filecheck(
        result.sources["read.cpp"],
        """
        CHECK: int32_t first;  // set in the zone below
        CHECK-NEXT: uint32_t blk_addr;  // set in the zone below
        CHECK-NEXT: {
        CHECK-NEXT: DeviceZoneScopedN("setup");
        CHECK: first = {{.*}};
        CHECK: cb_reserve_back(dfb_a_dfb, 1);
        CHECK-NEXT: blk_addr = get_write_ptr(dfb_a_dfb);
        CHECK-NEXT: }
        CHECK: noc_async_read_page(first, tensor_a, blk_addr);
        """,
    )


def test_cpp_string_escapes():
    from ttl.compiler.emit.debug import cpp_string

    assert cpp_string('a"b\\c\n\t') == '"a\\"b\\\\c\\n\\t"'
    assert cpp_string("é?") == '"\\303\\251\\077"'  # UTF-8 bytes; no trigraphs


DM = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()
{body}

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as z:
            z.store(x)
            n = 3

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""

ERRORS = [
    (
        "print(a, a_dfb)  # ERROR",
        "print() takes one TT-Lang object per call; this is the second "
        "(dataflow buffer 'a_dfb' after tensor 'a')",
    ),
    ("print(blk, num_pages=2)  # ERROR", "num_pages= applies to a tensor, not block 'blk'"),
    ("print(7, num_pages=2)  # ERROR", "num_pages= applies to a tensor, not no TT-Lang object"),
    ("print(a, file=None)  # ERROR", "print() got an unexpected keyword argument 'file'"),
    ("print(a, num_pages=0)  # ERROR", "num_pages must be a positive compile-time integer"),
    ("print(a, num_pages=ttl.node(dims=1))  # ERROR", "num_pages must be a positive compile-time"),
    ("print(1, sep=2)  # ERROR", "sep= must be a constant string"),
    ("print(*[1])  # ERROR", "print(*args) is not supported"),
    ("print(ttl.copy(blk, y[0, 0]))  # ERROR", "print() cannot print a transfer"),
    ("ttl.signpost('x')  # ERROR", "ttl.signpost() can only be used as a 'with' statement"),
    ("with ttl.signpost(3):  # ERROR\n    pass", "ttl.signpost() name must be a constant string"),
    ("with ttl.signpost():  # ERROR\n    pass", "ttl.signpost() takes one argument"),
    ("with ttl.signpost('x') as s:  # ERROR\n    pass", "ttl.signpost() binds no value"),
    ("with blk:  # ERROR\n    pass", "'with' needs a block acquisition or a signpost"),
]


@pytest.mark.parametrize("body,message", ERRORS, ids=[m for _, m in ERRORS])
def test_debugging_errors(compile_error, body, message):
    lines = body.splitlines()
    # Inside the reader's `with`, where `blk` is live.
    text = "\n".join("            " + line for line in lines)
    err = compile_error(DM.format(body=text), "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert message in err.message, err.render()


def test_print_of_more_pages_than_the_tensor_has_prints_them_all(compile_source):
    """ "The first N pages" of a tensor with fewer pages is all of them (as tt-lang-sim)."""
    specs = {"a": "bf16[64,64]", "y": "bf16[64,64]"}
    irs = [
        compile_source(DM.format(body=f"            print(a, num_pages={n})"), "op", specs).ir
        for n in (4, 9)
    ]
    assert all("num_pages = 4 : i64" in ir for ir in irs)


def test_print_of_a_released_block_is_an_os_error(compile_error):
    source = DM.format(body="        print(blk)  # ERROR")
    err = compile_error(source, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "block state OS" in err.message


def test_print_of_a_block_expression(compile_error):
    source = DM.format(body="").replace("n = 3", "print(x + x)  # ERROR")
    err = compile_error(source, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "print() cannot print a block expression" in err.message


def test_a_compute_kernel_cannot_print_a_tensor(compile_error):
    source = DM.format(body="").replace("n = 3", "print(a)  # ERROR")
    err = compile_error(source, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "a compute kernel cannot print a tensor" in err.message, err.render()
    assert "print the tensor from a data-movement kernel" in err.render()


def test_a_tensor_print_needs_compiler_dfbs(compile_error):
    source = DM.format(body="        print(a)  # ERROR").replace(
        "grid=(1, 1))", 'grid=(1, 1), options="--no-ttl-compiler-dfbs")'
    )
    err = compile_error(source, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "--no-ttl-compiler-dfbs forbids them" in err.message, err.render()
