"""Row-major tensors and DFBs, run by tt-lang-sim 1.1.6 and by our emulator, compared.

Each row is a whole program on row-major tensors (``ttnn.ROW_MAJOR_LAYOUT``
under the simulator, ``ttl.row_major`` arrays on ours): DFBs whose shape unit
is an element (1-D, 2-D and 3-D blocks), row slices copied in and out, and an
element-wise expression stored in compute. The same text runs on both sides
(sim_harness.py). Block-with-scalar operands are left out: tt-lang-sim 1.1.6
fails on them for every layout ('float' object has no attribute 'layout');
tests/runtime/test_row_major_run.py checks ours against NumPy. Operations the
simulator rejects on row-major blocks (reduce, broadcast) are checked to fail
on both sides: a located compile error on ours.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from sim_harness import Program, SimBatch, SimError, compare, run_ours, sim_available

from ttl.errors import TTLCompileError
from ttl.host import toolchain


@dataclass(frozen=True)
class RowCase:
    """``out = expr(a, b)`` over tensors of ``shape``, in blocks of ``block`` elements.

    Blocks step along dimension 0; the block spans the other dimensions whole
    (a block of lower rank drops the leading size-1 dimensions).
    """

    name: str
    expr: str
    shape: tuple[int, ...]
    block: tuple[int, ...]
    dtype: str = "bf16"
    fails: str = ""  # the simulator's error, for a program both sides must reject


def _slice(tensor: str, case: RowCase) -> str:
    step = case.shape[0] // (case.shape[0] // _rows(case))
    rest = ", :" * (len(case.shape) - 1)
    if step == 1:
        return f"{tensor}[r{rest}]"
    return f"{tensor}[r * {step}:(r + 1) * {step}{rest}]"


def _rows(case: RowCase) -> int:
    """Rows of dimension 0 per block: its leading size, unless the block dropped it."""
    return case.block[0] if len(case.block) == len(case.shape) else 1


def program_text(case: RowCase) -> str:
    steps = case.shape[0] // _rows(case)
    return f'''"""Row-major differential program {case.name}: out = {case.expr}."""

import ttl


@ttl.operation(grid=(1, 1))
def operation(a_in, b_in, out):
    a_dfb = ttl.make_dataflow_buffer_like(a_in, shape={case.block}, block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b_in, shape={case.block}, block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape={case.block}, block_count=2)

    @ttl.compute()
    def compute():
        for _ in range({steps}):
            with a_dfb.wait() as a, b_dfb.wait() as b, out_dfb.reserve() as out_blk:
                out_blk.store({case.expr})

    @ttl.datamovement()
    def read():
        for r in range({steps}):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                tx_a = ttl.copy({_slice("a_in", case)}, a_blk)
                tx_b = ttl.copy({_slice("b_in", case)}, b_blk)
                tx_a.wait()
                tx_b.wait()

    @ttl.datamovement()
    def write():
        for r in range({steps}):
            with out_dfb.wait() as out_blk:
                ttl.copy(out_blk, {_slice("out", case)}).wait()
'''


CASES = [
    RowCase("rm_add_mul_2d", "a + b * b", (6, 40), (2, 40)),
    RowCase("rm_exp_1d", "ttl.math.exp(a) - b", (300,), (100,)),
    RowCase("rm_rows_to_1d", "ttl.math.sigmoid(a) * b", (4, 96), (96,)),
    RowCase("rm_nd", "ttl.math.max(a, b) * ttl.math.exp(b)", (4, 3, 24), (2, 3, 24)),
    RowCase(
        "rm_large_block", "ttl.math.tanh(a) + ttl.math.sqrt(ttl.math.abs(b))", (2, 1500), (1, 1500)
    ),
    RowCase("rm_f32", "a * b - ttl.math.exp(a)", (6, 40), (2, 40), dtype="f32"),
    RowCase(
        "rm_reduce_rejected",
        "ttl.math.reduce_sum(a, dims=[1], shape=(2, 1))",
        (6, 40),
        (2, 40),
        fails="reduce is not supported for Row-Major layout blocks",
    ),
    RowCase(
        "rm_broadcast_rejected",
        "ttl.block.broadcast(a, dims=[0], shape=(1, 40))",
        (3, 40),
        (1, 40),
        fails="broadcast is not supported for Row-Major layout blocks",
    ),
]


def make_program(case: RowCase) -> Program:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    a, b = (rng.uniform(-2.0, 2.0, case.shape).astype(np.float32) for _ in range(2))
    return Program(
        case.name, program_text(case), (a, b), case.shape, layout="row_major", dtype=case.dtype
    )


PROGRAMS = {case.name: make_program(case) for case in CASES}


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Iterator[SimBatch]:
    reason = sim_available()
    if reason:
        pytest.skip(reason)
    batch = SimBatch(list(PROGRAMS.values()), tmp_path_factory.mktemp("row-major"))
    yield batch
    batch.close()


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("row-major-ours")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_row_major_matches_simulator(case: RowCase, sim: SimBatch, program_dir):
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    program = PROGRAMS[case.name]
    if case.fails:
        with pytest.raises(SimError, match=case.fails):
            sim.output(case.name)
        with pytest.raises(TTLCompileError, match="not supported on row-major blocks"):
            run_ours(program, program_dir)
        return
    ours = run_ours(program, program_dir)
    compare(case.name, sim.output(case.name), ours, program.inputs)
