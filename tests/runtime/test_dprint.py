"""TT-Metal's DPRINT API on the emulator (api/debug/dprint.h, dprint_pages.h), hand-written.

Format strings (fmt's syntax), every argument type, TSLICE of a CB's tile,
print_cb_details, the page printers, the processor-selecting variants, and a
format string that does not match its arguments, which fails to compile as on
TT-Metal.
"""

from __future__ import annotations

import io

import pytest

from ttl.runtime import Device, DFBConfig, KernelSpec, LaunchError, Program

TILE_BYTES = 2048  # bf16

# Fills tile 0 of DFB 0 (bf16, face layout) with v(r, c) = (r % 8) * 8 + c % 8.
FILL = """
  cb_reserve_back(0, 1);
  volatile uint16_t* t = reinterpret_cast<volatile uint16_t*>(get_write_ptr(0));
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      uint32_t face = (r / 16) * 2 + c / 16;
      float v = static_cast<float>((r % 8) * 8 + c % 8);
      t[face * 256 + (r % 16) * 16 + c % 16] = __builtin_bit_cast(uint32_t, v) >> 16;
    }
"""

WRITER = (
    """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
#include "api/debug/dprint.h"
#include "api/debug/dprint_pages.h"
void kernel_main() {
  DPRINT("x={:.3f} h={:#x} i={} u={} b={} c={} q={} s={}\\n", 1.5f, 255u, -3, uint32_t{7}, true,
         'z', int64_t{-5000000000}, "str");
  DPRINT("{1}-{0} {{braces}}\\n", 1, 2);
  DPRINT("bf16 {}\\n", bf16_t(0x3fc0));
  DPRINT_DATA0("on noc 0\\n");
  DPRINT_DATA1("on noc 1\\n");
  DPRINT_PACK("not a compute kernel\\n");
"""
    + FILL
    + """
  DPRINT("{}", TSLICE(0, 0, SliceRange{0, 4, 2, 0, 8, 4}, TSLICE_OUTPUT_CB, TSLICE_WR_PTR, true,
                      true));
  DPRINT("row 1: {}\\n", TSLICE(0, 0, SliceRange{1, 2, 1, 0, 4, 1}, TSLICE_OUTPUT_CB,
                                TSLICE_WR_PTR, false, true));
  print_cb_details(0);
  tt::data_movement::common::print_bf16_pages(get_write_ptr(0), 4, 1);
  cb_push_back(0, 1);
  print_cb_details(0);
}
"""
)


def _run(build, kernels, dfbs):
    out = io.StringIO()
    Device(grid=(1, 1), prints=out).launch(Program(kernels=kernels, dfbs=dfbs))
    return [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]


def test_dprint_formats_every_argument_type_and_tiles(build):
    elf = build(WRITER)
    lines = _run(build, [KernelSpec("w", elf, "dm0")], [DFBConfig(0, TILE_BYTES, 1, 1, "bf16")])
    assert lines == [
        "x=1.500 h=0xff i=-3 u=7 b=true c=z q=-5000000000 s=str",
        "2-1 {braces}",
        "bf16 1.5",
        "on noc 0",
        # rows 0 and 2, columns 0 and 4, right-aligned to the tile's widest value (63)
        " 0  4",
        "16 20",
        "row 1:  8  9 10 11",
        "cb_id 0: { size: 2048, limit: 2048, page_size: 2048, num_pages: 1, rd_ptr: 0, "
        "wr_ptr: 0, wr_tile_ptr: 0 }",
        "0: 0 1 2 3 ",
        "cb_id 0: { size: 2048, limit: 2048, page_size: 2048, num_pages: 1, rd_ptr: 0, "
        "wr_ptr: 0, wr_tile_ptr: 0 }",
    ]


PRODUCER = (
    """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
void kernel_main() {
"""
    + FILL
    + """
  cb_push_back(0, 1);
}
"""
)

COMPUTE = """
#include <cstdint>
#include "api/compute/common.h"
#include "api/compute/cb_api.h"
#include "api/debug/dprint.h"
#include "api/debug/dprint_pages.h"
void kernel_main() {
  cb_wait_front(0, 1);
  DPRINT_UNPACK("front: {}\\n", TSLICE(0, 0, SliceRange{3, 4, 1, 0, 4, 1}, false, true));
  DPRINT_MATH("math: {}\\n", TSLICE(0, 0, SliceRange::h0_w0_32()));
  PACK(print_cb_details(0));
  MATH(DPRINT("math thread\\n"));
  cb_pop_front(0, 1);
}
"""


def test_compute_kernels_print_from_each_thread(build):
    kernels = [KernelSpec("p", build(PRODUCER), "dm0"), KernelSpec("c", build(COMPUTE), "compute")]
    lines = _run(build, kernels, [DFBConfig(0, TILE_BYTES, 1, 1, "bf16")])
    compute = [x for x in lines if not x.startswith("p]")]
    assert compute == [
        "front: 24 25 26 27",
        "math: <TSLICE: the math thread has no CBs; use DPRINT_UNPACK or DPRINT_PACK>",
        # a compute kernel's CB interface is in 16-byte units, as on TT-Metal
        "cb_id 0: { size: 128, limit: 128, page_size: 128, num_pages: 1, rd_ptr: 0, "
        "wr_ptr: 0, wr_tile_ptr: 0 }",
        "math thread",
    ]


def test_a_format_that_does_not_match_its_arguments_does_not_compile(build):
    bad = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
#include "api/debug/dprint.h"
void kernel_main() { DPRINT("{} and {}\\n", 1); }
"""
    with pytest.raises(LaunchError) as info:
        build(bad)
    assert "placeholders do not match the arguments" in str(info.value)


F32_PAGES = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
#include "api/debug/dprint_pages.h"
void kernel_main() {
  cb_reserve_back(0, 1);
  volatile float* page = reinterpret_cast<volatile float*>(get_write_ptr(0));
  page[0] = 0.5f;
  page[1] = -1.25f;
  page[2] = 3.0f;
  tt::data_movement::common::print_f32_pages(get_write_ptr(0), 3, 1);
  tt::data_movement::common::print_u8_pages(get_write_ptr(0), 2, 1);
}
"""


def test_the_page_printers_print_l1_values(build):
    lines = _run(
        build, [KernelSpec("w", build(F32_PAGES), "dm0")], [DFBConfig(0, 4096, 1, 1, "f32")]
    )
    assert lines == ["0: 0.5 -1.25 3 ", "0: 0x00 0x00 "]
