"""What the compiler cannot check is checked when it runs: tile slices and divisors.

A slice offset built from loop variables that the compiler cannot prove in
range (``ttl-prove-slice-bounds``) is checked by ``ttl_check_slice`` in the
generated C++ before the copy: out of bounds stops the run with the TT-Lang
line, the tensor, the dimension, the slice and the extent; in bounds the
program runs as before (one compare per copy and dimension).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ttl.compiler.driver import load_operation
from ttl.host import jit
from ttl.runtime.errors import KernelFaultError

PROGRAM = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        for r in range(2):
            with a_dfb.reserve() as blk:
                ttl.copy(a[r, {col}], blk).wait()

    @ttl.datamovement()
    def write():
        for r in range(2):
            with a_dfb.wait() as blk:
                ttl.copy(blk, y[{row}, 0]).wait()
"""


def _op(tmp_path, col: str, row: str):
    path = tmp_path / f"slices_{len(list(tmp_path.glob('slices_*.py')))}.py"
    path.write_text(PROGRAM.format(col=col, row=row))
    return load_operation(str(path), "op"), path


def test_only_offsets_not_proven_in_range_are_checked(tmp_path):
    # r is in [0, 1]: a[r, ...] is proven inside the 2 tiles, a[..., r + 1] is not.
    op, _ = _op(tmp_path, "r + 1", "r")
    cpp = op.compile({"a": "bf16[64,64]", "y": "bf16[64,64]"}).sources
    assert ", 1, 2, \"dimension 1 of tensor 'a'\");" in cpp["read.cpp"]
    assert "dimension 0 of tensor 'a'" not in cpp["read.cpp"]
    op, _ = _op(tmp_path, "1 - r", "r")
    cpp = op.compile({"a": "bf16[64,64]", "y": "bf16[64,64]"}).sources
    assert "ttl_check_slice" not in cpp["read.cpp"] + cpp["write.cpp"]


@pytest.mark.parametrize(
    ("col", "row", "kernel", "message"),
    [
        ("r + 1", "r", "read", "tile slice [2] is out of bounds for dimension 1 of tensor 'a'"),
        ("0", "r + 1", "write", "tile slice [2] is out of bounds for dimension 0 of tensor 'y'"),
        ("r - 1", "r", "read", "tile slice [-1] is out of bounds for dimension 1 of tensor 'a'"),
    ],
)
def test_out_of_bounds_slices_stop_the_run(tmp_path, col, row, kernel, message):
    op, path = _op(tmp_path, col, row)
    a = np.ones((64, 64), ml_dtypes.bfloat16)
    y = np.zeros_like(a)
    with pytest.raises(KernelFaultError) as info:
        jit.run_operation(op, a, y)
    text = str(info.value)
    line = 12 if kernel == "read" else 18
    assert f"kernel '{kernel}'" in text and f"at {path.name}:{line} (kernels/{kernel}.cpp:" in text
    assert message + " (2 tiles): indices are in tiles, 0 <= index < 2" in text
    assert not y.any(), "nothing was written past the check"


def test_in_bounds_runtime_slices_run(tmp_path):
    op, _ = _op(tmp_path, "1 - r", "r")
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(a)
    jit.run_operation(op, a, y)
    np.testing.assert_array_equal(y[0:32, 0:32], a[0:32, 32:64])
    np.testing.assert_array_equal(y[32:64, 0:32], a[32:64, 0:32])


DIVISION = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        z = ttl.node(dims=1)
        q = 4 // z
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, q - 4], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as blk:
            pass
"""


def test_integer_division_by_zero_stops_the_run(tmp_path):
    path = tmp_path / "division.py"
    path.write_text(DIVISION)
    op = load_operation(str(path), "op")
    assert "ttl_check_divisor(4, " in op.compile({"a": "bf16[32,160]"}).sources["read.cpp"]
    with pytest.raises(KernelFaultError) as info:
        jit.run_operation(op, np.zeros((32, 160), ml_dtypes.bfloat16))
    text = str(info.value)
    assert "at division.py:11 (kernels/read.cpp:" in text
    assert "integer division by zero (4 // 0 or 4 % 0)" in text


def test_a_moved_operation_reports_its_new_line(tmp_path, monkeypatch):
    # The same operation in two files of the same name, the second two lines lower: the
    # JIT cache must not hand the second the first one's bundle (its C++ line comments).
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    a = np.ones((64, 64), ml_dtypes.bfloat16)
    for shift, folder in ((0, "first"), (2, "second")):
        path = tmp_path / folder / "prog.py"
        path.parent.mkdir()
        path.write_text("\n" * shift + PROGRAM.format(col="r + 1", row="r"))
        with pytest.raises(KernelFaultError) as info:
            jit.run_operation(load_operation(str(path), "op"), a, np.zeros_like(a))
        assert f"at prog.py:{12 + shift} (kernels/read.cpp:" in str(info.value)
