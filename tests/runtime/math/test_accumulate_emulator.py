"""In-place block math on the emulator: accumulators across a loop, read-back (RW).

Against NumPy float64 at bf16 tolerance, on both targets (the ``target`` fixture).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from accumulate_program import PROGRAM

from ttl.compiler.driver import load_operation
from ttl.host import jit

LOOP = """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill({init}, shape=(1, 2))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc {op} {rhs}
            y_blk.store({final})
"""

K = 4


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (32, 32 * K)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(0.5, 1.5, (32 * K, 64)).astype(ml_dtypes.bfloat16)
    return a, b


def _run(tmp_path, compute: str, target: str, a, b, program: str = PROGRAM) -> np.ndarray:
    path = tmp_path / f"acc_prog_{abs(hash(compute)) % 10**8}.py"
    path.write_text(program.format(compute=compute.rstrip("\n")))
    op = load_operation(str(path), "op")
    y = np.zeros((32, 64), dtype=ml_dtypes.bfloat16)
    jit.run_operation(op, a, b, y, target=target)
    return y.astype(np.float64)


def _b_block(b: np.ndarray, k: int) -> np.ndarray:
    return b[32 * k : 32 * (k + 1), :].astype(np.float64)


def test_matmul_accumulated_over_k(tmp_path, target):
    a, b = _inputs()
    y = _run(
        tmp_path, LOOP.format(init=0.0, op="+=", rhs="a_blk @ b_blk", final="acc"), target, a, b
    )
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # Each partial product and each running sum is rounded to bf16 (packer L1 accumulation).
    np.testing.assert_allclose(y, ref, rtol=K * 2.0**-7, atol=K * 2.0**-7 * np.abs(ref).max())


@pytest.mark.parametrize(
    ("init", "op", "final", "ref"),
    [
        (1.0, "+=", "acc * 0.5", lambda parts: (1.0 + sum(parts)) * 0.5),
        (10.0, "-=", "acc", lambda parts: 10.0 - sum(parts)),
        (1.0, "*=", "acc + 1.0", lambda parts: np.prod(parts, axis=0) + 1.0),
    ],
)
def test_in_place_operators(tmp_path, target, init, op, final, ref):
    a, b = _inputs(1)
    # rhs: an element-wise (1, 2) expression from b only (a's tile is unused here).
    rhs = "b_blk * 1.0"
    y = _run(tmp_path, LOOP.format(init=init, op=op, rhs=rhs, final=final), target, a, b)
    parts = [_b_block(b, k) for k in range(K)]
    want = ref(parts)
    np.testing.assert_allclose(y, want, rtol=(K + 1) * 2.0**-7, atol=1e-6)


def test_reserved_block_read_back(tmp_path, target):
    a, b = _inputs(2)
    compute = """\
        for k in range(K):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                pass
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.fill(3.0, shape=(1, 2)))
            y_blk.store(y_blk * y_blk + 1.0)
"""
    y = _run(tmp_path, compute, target, a, b)
    np.testing.assert_array_equal(y, np.full((32, 64), 10.0))


def test_reserved_block_as_operand_of_broadcast_and_reduce(tmp_path, target):
    """A reserved block read back (RW) feeds operations that read a DFB's front: the
    compiler copies it into a compiler-made DFB first."""
    a, b = _inputs(5)
    compute = """\
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk += b_blk
            y_blk.store(ttl.math.broadcast(ttl.math.reduce_max(y_blk, dims=[-1]), dims=[-1]))
"""
    y = _run(tmp_path, compute, target, a, b)
    total = sum(_b_block(b, k) for k in range(K))
    want = np.broadcast_to(total.max(axis=1, keepdims=True), total.shape)
    np.testing.assert_allclose(y, want, rtol=(K + 1) * 2.0**-7)


def test_in_place_on_reserved_block(tmp_path, target):
    a, b = _inputs(3)
    compute = """\
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk += a_blk @ b_blk
"""
    y = _run(tmp_path, compute, target, a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=K * 2.0**-7, atol=K * 2.0**-7 * np.abs(ref).max())


def test_accumulator_in_nested_loops(tmp_path, target):
    """The accumulator re-initialised per outer iteration (the spec's matmul idiom)."""
    a, b = _inputs(4)
    compute = """\
        for _ in range(2):
            with y_dfb.reserve() as y_blk:
                acc = ttl.math.fill(0.0, shape=(1, 2))
                for _ in range(K // 2):
                    with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                        acc += a_blk @ b_blk
                y_blk.store(acc)
"""
    path = tmp_path / "nested.py"
    src = PROGRAM.format(compute=compute.rstrip("\n")).replace(
        """        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0:2]).wait()""",
        """        for i in range(2):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[i, 0:2]).wait()""",
    )
    path.write_text(src)
    op = load_operation(str(path), "op")
    y = np.zeros((64, 64), dtype=ml_dtypes.bfloat16)
    jit.run_operation(op, a, b, y, target=target)
    h = K // 2
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.vstack([a64[:, : 32 * h] @ b64[: 32 * h], a64[:, 32 * h :] @ b64[32 * h :]])
    got = y.astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=h * 2.0**-7, atol=h * 2.0**-7 * np.abs(ref).max())


FP32_DST = PROGRAM.replace(
    "@ttl.operation(grid=(1, 1))", "@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)"
)


@pytest.mark.parametrize(
    ("final", "ref"),
    [
        ("acc + ttl.math.fill(1.0, shape=(1, 2))", lambda s: s + 1.0),
        ("ttl.math.exp(acc) - acc", lambda s: np.exp(s) - s),
    ],
)
def test_fp32_accumulator_meets_bf16_operands(tmp_path, target, final, ref):
    """With fp32_dest_acc_en the accumulator is an f32 block; a bf16 store mixing it
    with a bf16 fill or with an expression of itself reads it converted (it was an
    internal compiler error: the IR's operand types disagreed)."""
    a, b = _inputs(2)
    compute = LOOP.format(init=0.0, op="+=", rhs="b_blk * 0.25", final=final)
    y = _run(tmp_path, compute, target, a, b, FP32_DST)
    sums = sum(_b_block(b, k) * 0.25 for k in range(K))
    np.testing.assert_allclose(y, ref(sums), rtol=2.0**-7, atol=1e-6)


@pytest.mark.parametrize(
    ("init", "rhs", "ref"),
    [
        (-1000.0, "ttl.math.max(acc, b_blk)", lambda parts: np.maximum.reduce(parts)),
        (0.0, "acc + b_blk", sum),
    ],
    ids=["running max", "running sum"],
)
def test_loop_reassigning_a_block_from_itself(tmp_path, target, init, rhs, ref):
    """``acc = f(acc, blk)`` in a loop carries the block as ``+=`` does (an accumulator):
    it was rejected as 'assigned inside the for loop ... cannot be used after it'."""
    a, b = _inputs(3)
    y = _run(tmp_path, LOOP.format(init=init, op="=", rhs=rhs, final="acc"), target, a, b)
    want = ref([_b_block(b, k) for k in range(K)])
    np.testing.assert_allclose(y, want, rtol=K * 2.0**-7, atol=1e-6)
