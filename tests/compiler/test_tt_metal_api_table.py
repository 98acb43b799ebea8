"""The emitter's TT-Metal API table (ttl/compiler/emit/tt_metal_api.py) against the pinned
headers and the emulator's: each function is declared where the table says, in TT-Metal
0.81.1, and the emulator has every header under the same path."""

from __future__ import annotations

import re

import pytest

from ttl.compiler.emit import tt_metal_api
from ttl.device_build import tt_metal
from ttl.host import toolchain


@pytest.fixture(scope="module")
def tt_metal_inc():
    return tt_metal.headers() / "hw" / "inc"


@pytest.mark.parametrize("header", list(tt_metal_api.COMPUTE_HEADERS))
def test_each_function_is_declared_in_its_tt_metal_header(tt_metal_inc, header):
    text = (tt_metal_inc / header).read_text()
    for fn in tt_metal_api.COMPUTE_HEADERS[header]:
        assert re.search(rf"\bvoid\s+{fn}\s*\(", text), f"{fn} is not declared in {header}"


def test_the_emulator_has_every_header_of_the_table():
    for header in [tt_metal_api.DATAFLOW_HEADER, *tt_metal_api.COMPUTE_HEADERS]:
        assert (toolchain.INCLUDE_DIR / header).is_file(), header


def test_compute_headers_are_those_the_calls_need():
    code = "copy_init(cb);\nunary_bcast<BroadcastType::ROW>(cb, 0, 1);\nnot_an_api(1);"
    assert tt_metal_api.compute_headers(code) == [
        "api/compute/tile_move_copy.h",
        "api/compute/bcast.h",
    ]
    assert tt_metal_api.header_of("matmul_tiles") == "api/compute/matmul.h"
    assert tt_metal_api.header_of("mm_init") is None  # removed in TT-Metal 0.81
