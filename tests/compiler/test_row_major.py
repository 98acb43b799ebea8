"""Row-major tensors and DFBs in the compiler: specs, IR, manifest, and bad input.

A row-major tensor (``bf16[2,5,48]:row_major``, ``ttl.row_major(array)``, a
ttnn ``ROW_MAJOR_LAYOUT`` tensor) makes DFBs whose shape unit is an element.
Every misuse is a located error naming the operation, the DFB and the layout.
"""

from __future__ import annotations

import pytest

from ttl.compiler.driver import load_operation
from ttl.specs import TensorSpec

RM = {"x": "bf16[4,64]:row_major", "t": "bf16[64,64]", "y": "bf16[4,64]:row_major"}

PROGRAM = """
import ttl

@ttl.operation(grid=(1, 1))
def op(x, t, y):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 64))
    t_dfb = ttl.make_dataflow_buffer_like(t, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 64))

    @ttl.datamovement()
    def read():
{read}

    @ttl.compute()
    def compute():
{compute}

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as yb:
            ttl.copy(yb, y[2:4, :]).wait()
"""

READ_OK = """\
with x_dfb.reserve() as xb, t_dfb.reserve() as tb:
    ttl.copy(x[0:2, :], xb).wait()
    ttl.copy(t[0, 0], tb).wait()"""
COMPUTE_OK = """\
with x_dfb.wait() as xv, t_dfb.wait() as tv, y_dfb.reserve() as yv:
    yv.store(xv * 2.0)"""


def program(read: str = READ_OK, compute: str = COMPUTE_OK) -> str:
    def indent(text: str) -> str:
        return "\n".join("        " + line for line in text.splitlines())

    return PROGRAM.format(read=indent(read), compute=indent(compute))


def test_spec_strings_name_the_layout():
    spec = TensorSpec.parse("bf16[2,5,48]:row_major")
    assert spec.is_row_major and spec.unit_shape == (2, 5, 48) and spec.row_page_bytes() == 96
    assert str(spec) == "bf16[2,5,48]:row_major"
    assert str(TensorSpec.parse("bf16[64,64]:tile")) == "bf16[64,64]"  # tiled text unchanged
    assert TensorSpec.parse("f32[7]:row_major").row_page_bytes() == 32  # 28 B, 32-B aligned
    with pytest.raises(ValueError, match=r"unsupported layout 'rowmajor'.*':row_major'"):
        TensorSpec.parse("bf16[2,3]:rowmajor")
    with pytest.raises(ValueError, match="a tiled tensor needs at least 2 dimensions"):
        TensorSpec.parse("bf16[48]")


def test_row_major_manifest_pages_and_dfb_sizes(write_source):
    op = load_operation(str(write_source(program())), "op")
    manifest = op.compile(RM).manifest
    x = next(t for t in manifest["tensors"] if t["name"] == "x")
    assert (x["layout"], x["num_pages"], x["page_size"]) == ("row_major", 4, 128)
    t = next(t for t in manifest["tensors"] if t["name"] == "t")
    assert t["layout"] == "tile" and "tile_shape" in t
    dfb = next(f for f in manifest["dfbs"] if f["like_tensor"] == "x")
    # 128 elements: one 1024-element page per block (the compute engine's unit).
    assert (dfb["block_shape"], dfb["pages_per_block"], dfb["total_bytes"]) == ([2, 64], 1, 4096)


BAD = [
    (
        "slice shape",
        READ_OK.replace("x[0:2, :], xb).wait()", "x[0:3, :], xb).wait()  # ERROR"),
        COMPUTE_OK,
        "slice shape (3, 64) elements differs from the block shape (2, 64) elements of 'x_dfb'",
        "elements",
    ),
    (
        "element bounds",
        READ_OK.replace("x[0:2, :], xb).wait()", "x[3:5, :], xb).wait()  # ERROR"),
        COMPUTE_OK,
        "slice [3:5] is out of bounds for dimension 0 of tensor 'x' (4 elements)",
        "indices are in elements",
    ),
    (
        "copy layouts",
        READ_OK.replace("t[0, 0], tb).wait()", "x[0, 0:32], tb).wait()  # ERROR"),
        COMPUTE_OK,
        "ttl.copy between tensor 'x' (row-major) and a block of DFB 't_dfb' (tiled)",
        "make the DFB like a row-major tensor",
    ),
    (
        "reduce",
        READ_OK,
        COMPUTE_OK.replace(
            "yv.store(xv * 2.0)",
            "yv.store(ttl.math.reduce_sum(xv, dims=[1], shape=(2, 1)))  # ERROR",
        ),
        "ttl.math.reduce_sum/reduce_max is not supported on row-major blocks (DFB 'x_dfb'",
        "TILE_LAYOUT",
    ),
    (
        "transpose",
        READ_OK,
        COMPUTE_OK.replace("yv.store(xv * 2.0)", "yv.store(ttl.math.transpose(xv))  # ERROR"),
        "ttl.math.transpose is not supported on row-major blocks",
        "element-wise",
    ),
    (
        "matmul",
        READ_OK,
        COMPUTE_OK.replace("yv.store(xv * 2.0)", "yv.store(xv @ xv)  # ERROR"),
        "matmul (@) is not supported on row-major blocks",
        "TILE_LAYOUT",
    ),
    (
        "accumulator",
        READ_OK,
        """acc = ttl.block.fill(0.0, shape=(2, 64))
with x_dfb.wait() as xv, t_dfb.wait() as tv:
    acc += xv  # ERROR
with y_dfb.reserve() as yv:
    yv.store(acc)""",
        "accumulator 'acc' (a name updated with +=) holds tiles, but DFB 'x_dfb' is row-major",
        "o += y",
    ),
    (
        "mixed layouts",
        READ_OK,
        COMPUTE_OK.replace("yv.store(xv * 2.0)", "yv.store(xv + tv)  # ERROR"),
        "mixes blocks of row-major DFB 'y_dfb' and tiled DFB 't_dfb'",
        "one layout",
    ),
]


@pytest.mark.parametrize(
    ("what", "read", "compute", "message", "hint"), BAD, ids=[b[0] for b in BAD]
)
def test_bad_row_major_use_is_a_located_error(compile_error, what, read, compute, message, hint):
    err = compile_error(program(read, compute), "op", RM)
    assert message in err.message, err.render()
    assert hint in err.hint or hint in err.message, err.render()


def test_print_of_a_row_major_block_is_a_located_error(compile_error):
    read = READ_OK + "\n    print(xb)  # ERROR"
    err = compile_error(program(read=read), "op", RM)
    assert "print() of block 'xb' is not supported: it is row-major" in err.message
