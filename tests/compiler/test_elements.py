"""Element access (spec v0.18 and v0.21, "Scalar element access functions"):
``ttl.read_index``, ``ttl.raw_element_read`` and ``ttl.raw_element_write``, their
lowering and errors.

Run on both targets by tests/programs/read_index_gather.py (a gather steered by bf16
and f32 indices in all four faces of a tile) and tests/programs/element_patch.py (a
KV-cache row patch); comparisons' IEEE semantics in
tests/runtime/jit/test_elements_run.py.
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
            "ttl.read_index's coordinate 64 is outside the block: dimension 1 has 64",
        ),
        ("i = ttl.read_index(blk, 0, -1)  # ERROR", "coordinate -1 is outside the block"),
        ("i = ttl.read_index(blk, 0, 0.5)  # ERROR", "coordinate 1 of ttl.read_index must be an"),
        ("i = ttl.read_index(idx_dfb, 0, 0)  # ERROR", "ttl.read_index accesses a block, got"),
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
    assert "accesses bf16 or f32 elements; 'idx_dfb' holds bfp8" in err.message


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


ELEMENTS = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 2), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def read():
        with idx_dfb.reserve() as blk:
            ttl.copy(idx[0, 0:2], blk).wait()
        with idx_dfb.wait() as blk, y_dfb.reserve() as out:
            v = ttl.raw_element_read(blk, 0, 33)
{body}
            ttl.copy(out, y[0, 0]).wait()
"""


def _elements(body: str) -> str:
    return ELEMENTS.replace("{body}", "\n".join("            " + ln for ln in body.splitlines()))


@pytest.mark.parametrize(
    ("specs", "write"),
    [
        (SPECS, "static_cast<uint16_t>(static_cast<uint32_t>(v) >> 16)"),
        (dict(SPECS, y="f32[64,32]"), "= static_cast<uint32_t>(v);"),
    ],
)
def test_an_element_is_read_as_f32_bits_and_written_in_the_blocks_format(
    compile_source, specs, write
):
    body = "ttl.raw_element_write(out, 0, 1, v)\nttl.raw_element_write(out, 0, 2, value=-1.5)"
    cpp = _read_cpp(compile_source(_elements(body), "op", specs))
    assert re.search(
        r"const uint32_t v = static_cast<uint32_t>\(reinterpret_cast<volatile "
        r"uint16_t\*>\(blk\w*\)\[1025\]\) << 16;",
        cpp,
    ), cpp
    assert write in cpp
    assert "(-1077936128)" in cpp  # -1.5 as f32 bits (0xbfc00000), an int32 constant


def test_a_comparison_of_element_values_uses_the_ieee_helpers(compile_source):
    body = "if v < 0.25:\n    ttl.raw_element_write(out, 0, 0, v)"
    cpp = _read_cpp(compile_source(_elements(body), "op", SPECS))
    assert "static inline bool ttl_f32_bits_less(uint32_t a, uint32_t b)" in cpp
    assert re.search(r"ttl_f32_bits_less\(static_cast<uint32_t>\(v\), static_cast<uint32_t>", cpp)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("n = v + 1  # ERROR", "an element value (from ttl.raw_element_read)"),
        ("n = v * 2.0  # ERROR", "element values are written or compared, nothing else"),
        ("if v:  # ERROR\n    pass", "cannot branch on an element value"),
        ("n = 1 if v else 2  # ERROR", "cannot branch on an element value"),
        ("while v:  # ERROR\n    pass", "an element value (from ttl.raw_element_read) is not a"),
        ("n = 0 < v < 1.0  # ERROR", "compare two at a time"),
        ("n = v < ttl.node(dims=1)  # ERROR", "compares with another such value or a float"),
        ("ttl.raw_element_write(out, 0, 0, ttl.node(dims=1))  # ERROR", "writes a value read"),
        ("ttl.raw_element_write(out, 0, 0)  # ERROR", "on a block of rank 2 takes 2"),
        ("ttl.raw_element_write(out)  # ERROR", "takes a block, its coordinates and a value"),
    ],
)
def test_a_misused_element_value_is_an_error_at_its_line(compile_error, body, message):
    err = compile_error(_elements(body), "op", SPECS)
    assert message in err.message


def test_an_element_write_while_a_copy_reads_the_block_is_an_error(compile_error):
    source = ELEMENTS.replace(
        "{body}\n            ttl.copy(out, y[0, 0]).wait()",
        "            ttl.raw_element_write(out, 0, 0, v)\n"
        "            tx = ttl.copy(out, y[0, 0])\n"
        "            ttl.raw_element_write(out, 0, 1, v)  # ERROR\n"
        "            tx.wait()",
    )
    err = compile_error(source, "op", SPECS)
    assert "ROR, Read Only while Reading" in err.message


def test_element_access_in_a_compute_kernel_is_an_error(compile_error):
    source = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.compute()
    def compute():
        with y_dfb.reserve() as blk:
            ttl.raw_element_write(blk, 0, 0, 1.0)  # ERROR
"""
    err = compile_error(source, "op", SPECS)
    assert "ttl.raw_element_write is only allowed in data-movement kernels" in err.message


UNIFIED_ELEMENTS = """
import ttl

@ttl.operation(grid=(1, 1))
def op(idx, w, y):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 2), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)
    with idx_dfb.reserve() as blk:
        ttl.copy(idx[0, 0:2], blk).wait()
    with idx_dfb.wait() as blk, y_dfb.reserve() as out:
        v = ttl.raw_element_read(blk, 0, 40)
        if v > 0.0:
            ttl.raw_element_write(out, 0, 0, v)
        ttl.copy(out, y[0, 0]).wait()
"""


def test_a_unified_body_accesses_elements_in_its_data_movement_kernel(compile_source):
    result = compile_source(UNIFIED_ELEMENTS, "op", SPECS)
    movers = [t for t in result.sources.values() if "ttl_f32_bits_less(" in t]
    assert len(movers) == 1 and "dataflow_api.h" in movers[0]
    assert "reinterpret_cast<volatile uint16_t*>(out_addr" in movers[0]
