"""``ttl.read_index`` (spec v0.21, "Scalar element access functions"): lowering and errors.

The programs that run it on both targets: tests/programs/read_index_gather.py (a
gather steered by bf16 and f32 indices in all four faces of a tile).
"""

from __future__ import annotations

import re

import pytest
from compiler_testlib import parse_ir

SPECS = {"idx": "bf16[32,64]", "w": "bf16[256,32]", "y": "bf16[64,32]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 2), block_count=1)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with idx_dfb.reserve() as blk:
            ttl.copy(idx[0, 0:2], blk).wait()
        with idx_dfb.wait() as blk:
            for k in range(2):
{body}
                with w_dfb.reserve() as wblk:
                    ttl.copy(w[i, 0], wblk).wait()

    @ttl.datamovement()
    def write():
        for k in range(2):
            with w_dfb.wait() as wblk:
                ttl.copy(wblk, y[k, 0]).wait()
"""


def _source(body: str) -> str:
    return SOURCE.replace("{body}", "                " + body)


def _read_cpp(result) -> str:
    return result.sources["read.cpp"]


@pytest.mark.parametrize(
    ("coords", "offset"),
    [
        ("0, 0", "[0]"),
        ("3, 17", "[305]"),  # face 1: 256 + 3 * 16 + 1
        ("20, 5", "[581]"),  # face 2: 512 + 4 * 16 + 5
        ("31, 63", "[2047]"),  # the second tile's last element
        (
            "k, 40",
            "[(((k) / 32) * 2 + 1) * 1024 + ((((k) % 32) / 16) * 2) * 256 + ((k) % 16) * 16 + 8]",
        ),
    ],
)
def test_coordinates_become_the_tile_and_face_offset(compile_source, coords, offset):
    result = compile_source(_source(f"i = ttl.read_index(blk, {coords})"), "op", SPECS)
    cpp = _read_cpp(result)
    assert "static inline uint32_t ttl_index_of_f32_bits(uint32_t bits)" in cpp
    (line,) = (ln for ln in cpp.splitlines() if "ttl_index_of_f32_bits(static_cast" in ln)
    element = re.escape(f"{offset}) << 16")
    assert re.search(rf"reinterpret_cast<volatile uint16_t\*>\(blk_addr\w*\){element}", line), line


def test_an_f32_block_reads_its_32_bit_element(compile_source):
    specs = dict(SPECS, idx="f32[32,64]")
    result = compile_source(_source("i = ttl.read_index(blk, 0, 1)"), "op", specs)
    assert re.search(
        r"ttl_index_of_f32_bits\(reinterpret_cast<volatile uint32_t\*>\(blk_addr\w*\)\[1\]\)",
        _read_cpp(result),
    )


def test_the_op_round_trips_through_the_ir_text(compile_source):
    result = compile_source(_source("i = ttl.read_index(blk, k, 3)"), "op", SPECS)
    assert "ttl.read_index %" in result.ir
    module = parse_ir(result.ir)
    module.verify()
    assert str(module) == result.ir.rstrip("\n")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("i = ttl.read_index(blk, 0)  # ERROR", "on a block of rank 2 takes 2 coordinates, got 1"),
        (
            "i = ttl.read_index(blk, 0, 64)  # ERROR",
            "coordinate 1 of ttl.read_index is 64, outside",
        ),
        ("i = ttl.read_index(blk, 0, -1)  # ERROR", "coordinate 1 of ttl.read_index is -1"),
        ("i = ttl.read_index(blk, 0, 0.5)  # ERROR", "coordinate 1 of ttl.read_index must be an"),
        ("i = ttl.read_index(idx_dfb, 0, 0)  # ERROR", "ttl.read_index reads a block, got"),
        ("i = ttl.read_index()  # ERROR", "takes a block and its coordinates"),
        ("i = ttl.read_index(blk, 0, 0, default=1)  # ERROR", "takes a block and its"),
    ],
)
def test_a_bad_read_index_is_an_error_at_its_line(compile_error, body, message):
    err = compile_error(_source(body), "op", SPECS)
    assert message in err.message


def test_a_reserved_block_with_no_data_is_not_read(compile_error):
    source = SOURCE.replace(
        "        with idx_dfb.reserve() as blk:\n            ttl.copy(idx[0, 0:2], blk).wait()\n",
        "        with idx_dfb.reserve() as blk:\n"
        "            j = ttl.read_index(blk, 0, 0)  # ERROR\n"
        "            ttl.copy(idx[0, 0:2], blk).wait()\n",
    ).replace("{body}", "                i = 0")
    err = compile_error(source, "op", SPECS)
    assert "holds no data yet (block state MW, Must be Written" in err.message


def test_a_block_being_copied_into_is_not_read(compile_error):
    source = SOURCE.replace(
        "            ttl.copy(idx[0, 0:2], blk).wait()\n",
        "            tx = ttl.copy(idx[0, 0:2], blk)\n"
        "            j = ttl.read_index(blk, 0, 0)  # ERROR\n"
        "            tx.wait()\n",
    ).replace("{body}", "                i = 0")
    err = compile_error(source, "op", SPECS)
    assert "NAW, No Access while Writing" in err.message


def test_read_index_in_a_compute_kernel_is_an_error(compile_error):
    source = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with idx_dfb.reserve() as blk:
            ttl.copy(idx[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with idx_dfb.wait() as blk:
            i = ttl.read_index(blk, 0, 0)  # ERROR
"""
    err = compile_error(source, "op", SPECS)
    assert "ttl.read_index is only allowed in data-movement kernels" in err.message


def test_a_block_of_another_dtype_is_an_error(compile_error):
    specs = dict(SPECS, idx="bfp8[32,64]")
    err = compile_error(_source("i = ttl.read_index(blk, 0, 0)  # ERROR"), "op", specs)
    assert "reads bf16 or f32 elements; 'idx_dfb' holds bfp8" in err.message


UNIFIED = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 2), block_count=1)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    with idx_dfb.reserve() as blk:
        ttl.copy(idx[0, 0:2], blk).wait()
    with idx_dfb.wait() as blk:
        i = ttl.read_index(blk, 0, 0)
        with w_dfb.reserve() as wblk:
            ttl.copy(w[i, 0], wblk).wait()
    with w_dfb.wait() as wblk, y_dfb.reserve() as yblk:
        yblk.store(wblk * wblk)
    with y_dfb.wait() as yblk:
        ttl.copy(yblk, y[0, 0]).wait()
"""


def test_a_unified_body_reads_the_index_in_its_data_movement_kernel(compile_source):
    result = compile_source(UNIFIED, "op", SPECS)
    readers = [text for text in result.sources.values() if "ttl_index_of_f32_bits(" in text]
    assert len(readers) == 1 and "dataflow_api.h" in readers[0]
