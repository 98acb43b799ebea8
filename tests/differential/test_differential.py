"""Every compute function, run by tt-lang-sim 1.1.6 and by our emulator, compared.

One row of `CASES` per function (or spelling): the block expression the
compute kernel stores, its inputs (tensor shape, block shape, value range)
and, where needed, a tolerance. `program_text` writes the row as a whole
TT-Lang program in the tutorials' style (DFBs, a reader, a compute kernel, a
writer; tensors indexed in tiles); sim_harness.py runs the same text on both
sides and the test compares the outputs at bf16 tolerance. All rows run under
the simulator in one subprocess, started with the first test, while our side
compiles. See docs/testing.md.

Adding a function is one row, e.g. ``unary("exp2", "ttl.math.exp2(a)", -4, 4)``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest
from sim_harness import BF16, TILE, Program, SimBatch, Tolerance, compare, run_ours, sim_available

from ttl.host import toolchain

BLOCK = (2, 2)  # tiles per block; each tensor is two blocks of rows and one of columns
SHAPE = (2 * BLOCK[0] * TILE, BLOCK[1] * TILE)  # (128, 64)


@dataclass(frozen=True)
class Input:
    """One input tensor: its shape, its DFB block shape (tiles), its values' range.

    ``edges`` are values placed first in the tensor (domain edges: 0, 1, ...).
    """

    low: float
    high: float
    shape: tuple[int, int] = SHAPE
    block: tuple[int, int] = BLOCK
    edges: tuple[float, ...] = ()
    away_from_zero: float = 0.0  # |value| >= this
    choices: tuple[float, ...] = ()  # values drawn from these instead (0/1 conditions)

    def make(self, rng: np.random.Generator) -> np.ndarray:
        values = rng.uniform(self.low, self.high, self.shape)
        if self.choices:
            values = rng.choice(np.array(self.choices), self.shape)
        if self.away_from_zero:
            small = np.abs(values) < self.away_from_zero
            values[small] = np.copysign(self.away_from_zero, values[small])
        flat = values.reshape(-1)
        flat[: len(self.edges)] = self.edges
        return values.astype(BF16)


@dataclass(frozen=True)
class Case:
    """A function under test: ``out = expr(inputs...)``, blocks named after the inputs."""

    name: str
    expr: str
    inputs: dict[str, Input]
    out_shape: tuple[int, int] = SHAPE
    out_block: tuple[int, int] = BLOCK
    tolerance: Tolerance = field(default_factory=Tolerance)


def unary(name: str, expr: str, low: float, high: float, **options) -> Case:
    tolerance = options.pop("tolerance", Tolerance())
    return Case(name, expr, {"a": Input(low, high, **options)}, tolerance=tolerance)


def binary(name: str, expr: str, a: Input, b: Input, **options) -> Case:
    return Case(name, expr, {"a": a, "b": b}, **options)


SIGNED = Input(-4.0, 4.0, edges=(0.0, -1.0, 1.0))
BOOL = Input(0.0, 1.0, choices=(0.0, 1.0))


def reduce(name: str, expr: str, out_block: tuple[int, int]) -> Case:
    """A reduction of one (2, 2)-tile block to ``out_block`` (1 in each reduced dim)."""
    out_shape = (SHAPE[0] // BLOCK[0] * out_block[0], SHAPE[1] // BLOCK[1] * out_block[1])
    return Case(name, expr, {"a": Input(-1.0, 1.0)}, out_shape, out_block)


CASES = [
    # Unary math functions.
    unary("exp", "ttl.math.exp(a)", -8.0, 8.0, edges=(0.0, -1.0, 1.0)),
    unary("log", "ttl.math.log(a)", 0.01, 100.0, edges=(1.0, 0.5, 2.0)),
    unary("sqrt", "ttl.math.sqrt(a)", 0.0, 100.0, edges=(0.0, 1.0, 4.0)),
    unary("rsqrt", "ttl.math.rsqrt(a)", 0.01, 100.0, edges=(1.0, 4.0)),
    unary("recip", "ttl.math.recip(a)", -8.0, 8.0, away_from_zero=0.05, edges=(1.0, -1.0)),
    unary("relu", "ttl.math.relu(a)", -4.0, 4.0, edges=(0.0,)),
    unary("sigmoid", "ttl.math.sigmoid(a)", -10.0, 10.0, edges=(0.0,)),
    unary("tanh", "ttl.math.tanh(a)", -5.0, 5.0, edges=(0.0,)),
    unary("abs", "ttl.math.abs(a)", -4.0, 4.0, edges=(0.0, -0.0)),
    unary("abs_builtin", "abs(a)", -4.0, 4.0, edges=(0.0,)),
    unary("neg", "ttl.math.neg(a)", -4.0, 4.0, edges=(0.0,)),
    unary("neg_operator", "-a", -4.0, 4.0, edges=(0.0,)),
    unary("exp2", "ttl.math.exp2(a)", -8.0, 8.0, edges=(0.0, 1.0)),
    unary("expm1", "ttl.math.expm1(a)", -4.0, 4.0, edges=(0.0,)),
    unary("logp1", "ttl.math.logp1(a)", -0.9, 10.0, edges=(0.0,)),
    unary("square", "ttl.math.square(a)", -4.0, 4.0, edges=(0.0,)),
    unary("pow_operator", "a ** 3", -3.0, 3.0, edges=(0.0, -1.0)),
    # Trigonometric.
    unary("sin", "ttl.math.sin(a)", -6.0, 6.0, edges=(0.0,)),
    unary("cos", "ttl.math.cos(a)", -6.0, 6.0, edges=(0.0,)),
    unary("tan", "ttl.math.tan(a)", -1.4, 1.4, edges=(0.0,)),
    unary("asin", "ttl.math.asin(a)", -1.0, 1.0, edges=(0.0, 1.0, -1.0)),
    unary("acos", "ttl.math.acos(a)", -1.0, 1.0, edges=(0.0, 1.0, -1.0)),
    unary("atan", "ttl.math.atan(a)", -5.0, 5.0, edges=(0.0,)),
    unary("asinh", "ttl.math.asinh(a)", -5.0, 5.0, edges=(0.0,)),
    unary("acosh", "ttl.math.acosh(a)", 1.0, 10.0, edges=(1.0,)),
    unary("atanh", "ttl.math.atanh(a)", -0.95, 0.95, edges=(0.0,)),
    # Activations, with the parameters positional (tt-lang-sim's names differ).
    unary("gelu", "ttl.math.gelu(a)", -5.0, 5.0, edges=(0.0,)),
    unary("silu", "ttl.math.silu(a)", -6.0, 6.0, edges=(0.0,)),
    unary("softsign", "ttl.math.softsign(a)", -5.0, 5.0, edges=(0.0,)),
    unary("hardsigmoid", "ttl.math.hardsigmoid(a)", -5.0, 5.0, edges=(0.0, 3.0, -3.0)),
    unary("selu", "ttl.math.selu(a)", -4.0, 4.0, edges=(0.0,)),
    unary("relu_max", "ttl.math.relu_max(a, 2)", -4.0, 4.0, edges=(0.0, 2.0)),
    unary("relu_min", "ttl.math.relu_min(a, 1)", -4.0, 4.0, edges=(0.0, 1.0)),
    unary("leaky_relu", "ttl.math.leaky_relu(a, 0.1)", -4.0, 4.0, edges=(0.0,)),
    unary("elu", "ttl.math.elu(a, 1.0)", -4.0, 4.0, edges=(0.0,)),
    unary("celu", "ttl.math.celu(a, 2.0, 0.5)", -4.0, 4.0, edges=(0.0,)),
    unary("prelu", "ttl.math.prelu(a, 0.25)", -4.0, 4.0, edges=(0.0,)),
    unary("softplus", "ttl.math.softplus(a, 1.0, 1.0, 20.0)", -6.0, 6.0, edges=(0.0,)),
    unary("hardtanh", "ttl.math.hardtanh(a, -1.0, 1.0)", -4.0, 4.0, edges=(0.0, 1.0, -1.0)),
    # Rounding.
    unary("frac", "ttl.math.frac(a)", -4.0, 4.0, edges=(0.0, -1.5, 1.5)),
    unary("trunc", "ttl.math.trunc(a)", -4.0, 4.0, edges=(0.0, -1.5, 1.5)),
    unary("floor", "ttl.math.floor(a)", -4.0, 4.0, edges=(0.0, -1.5, 1.5)),
    unary("ceil", "ttl.math.ceil(a)", -4.0, 4.0, edges=(0.0, -1.5, 1.5)),
    unary("round", "ttl.math.round(a)", -4.0, 4.0, edges=(0.5, 1.5, 2.5, -0.5)),
    unary("round_decimals", "ttl.math.round(a, 2)", -4.0, 4.0, edges=(0.0,)),
    unary("clamp", "ttl.math.clamp(a, -1.0, 2.0)", -4.0, 4.0, edges=(-1.0, 2.0)),
    unary("threshold", "ttl.math.threshold(a, 0.5, -3.0)", -4.0, 4.0, edges=(0.5,)),
    unary("sign", "ttl.math.sign(a)", -4.0, 4.0, edges=(0.0, -0.0)),
    unary("signbit", "ttl.math.signbit(a)", -4.0, 4.0, edges=(0.0, -0.0)),
    # Binary operators.
    binary("add", "a + b", SIGNED, SIGNED),
    binary("sub", "a - b", SIGNED, SIGNED),
    binary("mul", "a * b", SIGNED, SIGNED),
    binary("div", "a / b", SIGNED, Input(-4.0, 4.0, away_from_zero=0.1)),
    binary("fused_add_mul", "a * b + a", SIGNED, SIGNED),
    binary("mod", "a % b", SIGNED, Input(0.5, 3.0, edges=(1.0, 2.0))),
    binary("floordiv", "a // b", SIGNED, Input(0.5, 3.0, edges=(1.0, 2.0))),
    binary("max", "ttl.math.max(a, b)", SIGNED, SIGNED),
    binary("min", "ttl.math.min(a, b)", SIGNED, SIGNED),
    # Comparisons give 0/1 blocks; integer-valued inputs make ties likely.
    binary("gt", "ttl.math.gt(a, b)", SIGNED, SIGNED),
    binary("lt", "ttl.math.lt(a, b)", SIGNED, SIGNED),
    binary(
        "eq",
        "ttl.math.eq(a, b)",
        Input(0, 3, choices=(0.0, 1.0, 2.0)),
        Input(0, 3, choices=(0.0, 1.0, 2.0)),
    ),
    binary(
        "ne",
        "ttl.math.ne(a, b)",
        Input(0, 3, choices=(0.0, 1.0, 2.0)),
        Input(0, 3, choices=(0.0, 1.0, 2.0)),
    ),
    # Scalar operands: tt-lang-sim 1.1.6 has rsub only (docs/testing.md).
    unary("rsub", "ttl.math.rsub(a, 2)", -4.0, 4.0, edges=(2.0,)),
    # Matmul: (64 x 96) @ (96 x 64), one block each, K summed in one block.
    binary(
        "matmul",
        "a @ b",
        Input(-1.0, 1.0, shape=(64, 96), block=(2, 3)),
        Input(-1.0, 1.0, shape=(96, 64), block=(3, 2)),
        out_shape=(64, 64),
        tolerance=Tolerance(rtol=2.0**-6, atol=2.0**-4),
    ),
    # Broadcast: column 0 of c (one tile column) across each row.
    Case(
        "broadcast_cols",
        f"a + ttl.block.broadcast(c, dims=[-1], shape={BLOCK})",
        {"a": SIGNED, "c": Input(-4.0, 4.0, shape=(SHAPE[0], TILE), block=(BLOCK[0], 1))},
    ),
    Case(
        "broadcast_rows",
        f"a + ttl.block.broadcast(c, dims=[0], shape={BLOCK})",
        {"a": SIGNED, "c": Input(-4.0, 4.0, shape=(SHAPE[0] // BLOCK[0], SHAPE[1]), block=(1, 2))},
    ),
    Case(
        "broadcast_scalar",
        f"a * ttl.block.broadcast(c, dims=[0, 1], shape={BLOCK})",
        {"a": SIGNED, "c": Input(-4.0, 4.0, shape=(SHAPE[0] // BLOCK[0], TILE), block=(1, 1))},
    ),
    # Reductions, in tt-lang-sim's form (x, dims, shape): it has no scaler.
    reduce("reduce_sum_cols", "ttl.math.reduce_sum(a, dims=[1], shape=(2, 1))", (2, 1)),
    reduce("reduce_max_cols", "ttl.math.reduce_max(a, dims=[1], shape=(2, 1))", (2, 1)),
    reduce("reduce_sum_rows", "ttl.math.reduce_sum(a, dims=[0], shape=(1, 2))", (1, 2)),
    reduce("reduce_max_rows", "ttl.math.reduce_max(a, dims=[0], shape=(1, 2))", (1, 2)),
    reduce("reduce_sum_all", "ttl.math.reduce_sum(a, dims=[0, 1], shape=(1, 1))", (1, 1)),
    reduce("reduce_max_all", "ttl.math.reduce_max(a, dims=[0, 1], shape=(1, 1))", (1, 1)),
    # Transpose (tile grid and each tile), where, mask: tt-lang-sim's ttl.block spellings.
    unary("transpose", "ttl.block.transpose(a)", -4.0, 4.0),
    Case(
        "transpose_rect",
        "ttl.block.transpose(a)",
        {"a": Input(-4.0, 4.0, shape=(64, 128), block=(2, 4))},
        out_shape=(128, 64),
        out_block=(4, 2),
    ),
    Case("where", "ttl.block.where(c, a, b)", {"c": BOOL, "a": SIGNED, "b": SIGNED}),
    binary("mask", "ttl.block.mask(a, b)", SIGNED, BOOL),
    binary("mask_posinf", "ttl.block.mask_posinf(a, b)", SIGNED, BOOL),
    # Fill: a block of one value, with and without another operand.
    unary("fill_add", f"a + ttl.block.fill(1.5, shape={BLOCK})", -4.0, 4.0),
    Case("fill", f"ttl.block.fill(-2.25, shape={BLOCK})", {}),
]


# tt-lang-sim wants three kernels (compute, two data movement) even when one has nothing to do.
NO_READER = """
    @ttl.datamovement()
    def read():
        pass
"""


def _slice(tensor: str, shape: tuple[int, int], block: tuple[int, int]) -> str:
    """The tile slice of a block: row block r, column block col; a dim of one block is fixed."""
    parts = []
    for size, n, index in zip(block, shape, ("r", "col"), strict=True):
        if n // TILE == size:
            parts.append(f"0:{size}")
        else:
            parts.append(f"{index} * {size} : ({index} + 1) * {size}")
    return f"{tensor}[{', '.join(parts)}]"


def program_text(case: Case) -> str:
    """The case as a TT-Lang program defining ``operation(<inputs>, out)``."""
    names = list(case.inputs)
    params = ", ".join([*(f"{n}_in" for n in names), "out"])
    dfbs = "\n".join(
        f"    {n}_dfb = ttl.make_dataflow_buffer_like({n}_in, shape={i.block}, block_count=2)"
        for n, i in case.inputs.items()
    )
    reserves = ", ".join(f"{n}_dfb.reserve() as {n}_blk" for n in names)
    copies = "\n".join(
        f"                    tx_{n} = ttl.copy({_slice(f'{n}_in', i.shape, i.block)}, {n}_blk)"
        for n, i in case.inputs.items()
    )
    tx_waits = "\n".join(f"                    tx_{n}.wait()" for n in names)
    out_slice = _slice("out", case.out_shape, case.out_block)
    # A waited block must be used before its pop (block states): no inputs, an empty reader.
    reader = f"""
    @ttl.datamovement()
    def read():
        for r in range(rows):
            for col in range(cols):
                with {reserves}:
{copies}
{tx_waits}
"""
    with_blocks = ", ".join(
        [*(f"{n}_dfb.wait() as {n}" for n in names), "out_dfb.reserve() as out_blk"]
    )
    return f'''"""Differential test program {case.name}: out = {case.expr}."""

import ttl

TILE = 32


@ttl.operation(grid=(1, 1))
def operation({params}):
    rows = out.shape[0] // TILE // {case.out_block[0]}
    cols = out.shape[1] // TILE // {case.out_block[1]}
{dfbs}
    out_dfb = ttl.make_dataflow_buffer_like(out, shape={case.out_block}, block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows):
            for _ in range(cols):
                with {with_blocks}:
                    out_blk.store({case.expr})
{reader if names else NO_READER}
    @ttl.datamovement()
    def write():
        for r in range(rows):
            for col in range(cols):
                with out_dfb.wait() as out_blk:
                    ttl.copy(out_blk, {out_slice}).wait()
'''


def make_program(case: Case) -> Program:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    inputs = tuple(spec.make(rng) for spec in case.inputs.values())
    return Program(case.name, program_text(case), inputs, case.out_shape)


PROGRAMS = {case.name: make_program(case) for case in CASES}


def test_case_names_are_unique():
    assert len(PROGRAMS) == len(CASES)


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Iterator[SimBatch]:
    """All programs under tt-lang-sim, one subprocess started with the first test."""
    reason = sim_available()
    if reason:
        pytest.skip(reason)
    batch = SimBatch(list(PROGRAMS.values()), tmp_path_factory.mktemp("differential"))
    yield batch
    batch.close()


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("differential-ours")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_matches_simulator(case: Case, sim: SimBatch, program_dir):
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    program = PROGRAMS[case.name]
    ours = run_ours(program, program_dir)
    compare(case.name, sim.output(case.name), ours, program.inputs, case.tolerance)


def test_compare_accepts_bf16_rounding_and_names_the_worst_element():
    sim = np.array([[1.0, 2.0], [np.inf, np.nan]])
    compare("same", sim, sim + np.array([[2.0**-8, 0.0], [0.0, 0.0]]), [])
    with pytest.raises(
        AssertionError, match=r"1 of 4 elements.*worst at \(0, 1\): sim 2\.0, ours 2\.5"
    ):
        compare("off", sim, sim + np.array([[0.0, 0.5], [0.0, 0.0]]), [sim])
    with pytest.raises(AssertionError, match=r"NaN in one output only, first at \(1, 0\)"):
        compare("nan", sim, np.array([[1.0, 2.0], [np.nan, np.nan]]), [])
