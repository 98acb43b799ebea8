"""Tensor-backed DFBs (spec v0.21, "Dataflow buffer"): ``ttl.make_tensor_backed_dfb``
and ``DataflowBuffer.publish()``, their lowering and errors.

"`ttl.make_tensor_backed_dfb` instead maps the complete DFB capacity to a page-aligned
byte range within each participating node's logical shard of a `ttnn.TILE_LAYOUT`
tensor stored in `ttnn.BufferType.L1`. [...] A data movement thread calls `publish()`
once to make an already-resident input capacity readable without copying its bytes.
Tensor-backed outputs use the normal reserve, store and push protocol."

Run on both targets by tests/programs/tensor_backed_dfbs.py; the run-time checks (an
interleaved tensor, a range past the shard) in tests/runtime/jit/test_tensor_backed_run.py.
"""

from __future__ import annotations

import pytest

SPECS = {"a": "bf16[128,64]", "y": "bf16[128,64]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 4))
def op(a, y):
    a_dfb = {make_a}
    y_dfb = ttl.make_tensor_backed_dfb(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
{read}

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, y_dfb.reserve() as out:
                out.store(x + x)

    @ttl.datamovement()
    def write():
        for _ in range(2):
            with y_dfb.wait():
                pass
"""

BACKED_A = "ttl.make_tensor_backed_dfb(a, shape=(1, 1), block_count=2, byte_offset={offset})"


def _source(read: str = "        a_dfb.publish()", make_a: str = BACKED_A, offset: int = 0) -> str:
    return SOURCE.format(read=read, make_a=make_a.format(offset=offset))


def test_a_backed_dfb_is_its_tensors_shard_and_publish_copies_nothing(compile_source):
    result = compile_source(_source(offset=2048), "op", SPECS)
    entries = {f["name"]: f for f in result.manifest["dfbs"]}
    assert entries["a_dfb"]["tensor_backing"] == {"tensor": "a", "byte_offset": 2048}
    assert entries["y_dfb"]["tensor_backing"] == {"tensor": "y", "byte_offset": 0}
    assert result.manifest["l1_bytes"] == 0  # no storage of their own
    written = {t["name"]: t["written"] for t in result.manifest["tensors"]}
    assert written == {"a": False, "y": True}  # y's blocks are stored into, a's published
    read = result.sources["read.cpp"]
    body = read[read.index("kernel_main") :]
    assert body.count("cb_reserve_back(dfb_a_dfb, 1);") == 2
    assert body.count("cb_push_back(dfb_a_dfb, 1);") == 2
    assert "noc_async_read" not in body and "get_write_ptr" not in body
    write = result.sources["write.cpp"]
    assert "noc_async_write" not in write  # y's data is already where y lives
    assert "backing_offset = 2048" in result.ir


@pytest.mark.parametrize(
    ("make_a", "read", "message"),
    [
        (BACKED_A.format(offset=100), "        a_dfb.publish()", "byte_offset must be"),
        (
            "ttl.make_tensor_backed_dfb(7, shape=(1, 1))",
            "        pass",
            "must be an operation tensor",
        ),
        (
            "ttl.make_tensor_backed_dfb(a, shape=(1, 1), "
            "allocation_group=ttl.make_dfb_allocation_group())",
            "        pass",
            "tensor-backed DFBs in an allocation group are not supported",
        ),
    ],
    ids=["offset", "not-a-tensor", "group"],
)
def test_a_bad_tensor_backed_dfb_is_an_error_at_its_line(compile_error, make_a, read, message):
    source = _source(read=read, make_a=make_a)
    source = source.replace("    a_dfb = " + make_a, "    a_dfb = " + make_a + "  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert message in err.message, err.render()


@pytest.mark.parametrize(
    ("read", "message"),
    [
        ("        a_dfb.publish()\n        a_dfb.publish()  # ERROR", "it is called once"),
        ("        for _ in range(1):\n            a_dfb.publish()  # ERROR", "not inside an if"),
        (
            "        a_dfb.publish()\n        with a_dfb.reserve() as blk:  # ERROR\n"
            "            ttl.copy(a[0, 0], blk).wait()",
            "which this kernel published",
        ),
    ],
    ids=["twice", "in-a-loop", "reserve-after"],
)
def test_publish_runs_once_at_the_top_of_a_data_movement_kernel(compile_error, read, message):
    err = compile_error(_source(read=read), "op", SPECS)
    assert message in err.message, err.render()


def test_publish_needs_a_tensor_backed_dfb(compile_error):
    make_a = "ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)"
    err = compile_error(
        _source(read="        a_dfb.publish()  # ERROR", make_a=make_a), "op", SPECS
    )
    assert "has storage of its own" in err.message


def test_publish_in_a_compute_kernel_is_an_error(compile_error):
    loop = "        for _ in range(2):\n            with a_dfb.wait() as x"
    source = _source(read="        pass").replace(loop, "        a_dfb.publish()  # ERROR\n" + loop)
    err = compile_error(source, "op", SPECS)
    assert "is only allowed in data-movement kernels" in err.message


UNIFIED = """
import ttl

@ttl.operation(grid=(1, 2))
def scale(a, y):
    a_dfb = ttl.make_tensor_backed_dfb(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))
    a_dfb.publish()
    _, row = ttl.node(dims=2)
    with a_dfb.wait() as x, y_dfb.reserve() as o:
        o.store(x + x)
    with y_dfb.wait() as blk:
        ttl.copy(blk, y[row, 0]).wait()
"""


def test_a_unified_body_publishes_in_its_data_movement_kernel(compile_source):
    """Spec v0.19 thread assignment: publish() is data movement."""
    result = compile_source(UNIFIED, "scale", {"a": "bf16[64,32]", "y": "bf16[64,32]"})
    movement = result.sources["data_movement.cpp"]
    assert "cb_push_back(dfb_a_dfb, 1);" in movement
    assert "cb_push_back(dfb_a_dfb" not in result.sources["compute.cpp"]


def test_a_forgotten_publish_is_named_in_the_hint(compile_error):
    source = _source(read="        pass").replace("byte_offset=0)", "byte_offset=0)  # ERROR", 1)
    err = compile_error(source, "op", SPECS)
    assert "is popped by kernel" in err.message and "a_dfb.publish()" in err.hint
