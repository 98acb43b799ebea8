"""``ttl.make_dfb`` (spec v0.21, "Dataflow buffer"): scratch DFBs of an explicit dtype.

The program that runs one on both targets is tests/programs/scratch_dfbs.py.
"""

from __future__ import annotations

import json

import pytest
from compiler_testlib import parse_ir

SPECS = {"a": "bf16[64,64]", "y": "bf16[64,64]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    t_dfb = {make}
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as x:
            ttl.copy(a[0, 0], x).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, t_dfb.reserve() as t:
            t.store(x * x)
        with t_dfb.wait() as t, y_dfb.reserve() as o:
            o.store(t + t)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as o:
            ttl.copy(o, y[0, 0]).wait()
"""


def _source(make: str) -> str:
    return SOURCE.replace("{make}", make)


@pytest.mark.parametrize(
    ("make", "dtype", "block_count"),
    [
        ('ttl.make_dfb("bf16", shape=(1, 1))', "Float16_b", 2),  # block_count defaults to 2
        ('ttl.make_dfb("float32", (1, 1), 3)', "Float32", 3),
        ("ttl.make_dfb(ttl.float32, shape=(1, 1), tile=(32, 32))", "Float32", 2),
        ('ttl.make_dfb("bfloat16", shape=[1, 1], block_count=1)', "Float16_b", 1),
    ],
)
def test_a_dfb_of_a_dtype_has_its_format_and_no_like_tensor(
    compile_source, make, dtype, block_count
):
    result = compile_source(_source(make), "op", SPECS)
    (entry,) = (f for f in result.manifest["dfbs"] if f["name"] == "t_dfb")
    assert entry["like_tensor"] is None
    assert entry["data_format"] == dtype
    assert entry["block_count"] == block_count
    json.dumps(result.manifest)  # JSON-clean


def test_a_dfb_of_a_dtype_round_trips_through_the_ir_text(compile_source):
    result = compile_source(_source('ttl.make_dfb("bf16", shape=(1, 1))'), "op", SPECS)
    (line,) = (ln for ln in result.ir.splitlines() if "ttl.dfb @t_dfb " in ln)
    assert "tensor =" not in line and "!ttl.dfb<1x1xbf16>" in line
    module = parse_ir(result.ir)
    module.verify()
    assert str(module) == result.ir.rstrip("\n")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        ('ttl.make_dfb("int8", shape=(1, 1))', "make_dfb(): unsupported dtype 'int8'"),
        ('ttl.make_dfb("bf16", shape=(1, 1), tile=(16, 32))', "only 32x32 tiles are supported"),
        ('ttl.make_dfb("bf16", shape=(4,))', "blocks of tiles, which need two dimensions"),
        ('ttl.make_dfb("bf16", shape=(1, 0))', "DFB shape must be positive integers"),
        ('ttl.make_dfb("bf16", shape=(1, 1), block_count=0)', "block_count must be a positive"),
        ('ttl.make_dfb("bf16", shape=(1, 1), depth=2)', "unexpected keyword argument 'depth'"),
        (
            'ttl.make_dfb("bf16", shape=(1, 1), allocation_group="shared")',
            "allocation_group= takes a ttl.make_dfb_allocation_group(), got str",
        ),
        (
            "ttl.make_dataflow_buffer_like(a, shape=(1, 1), allocation_group=object())",
            "allocation_group= takes a ttl.make_dfb_allocation_group(), got object",
        ),
    ],
)
def test_a_bad_make_dfb_is_an_error_at_its_line(compile_error, make, message):
    err = compile_error(_source(make + "  # ERROR"), "op", SPECS)
    assert message in err.message


def test_make_dfb_outside_an_operation_is_an_error():
    import ttl
    from ttl.errors import TTLCompileError

    with pytest.raises(TTLCompileError, match=r"ttl.make_dfb\(\) can only be used in the body"):
        ttl.make_dfb("bf16", shape=(1, 1))
