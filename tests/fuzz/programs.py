"""TT-Lang programs for the fuzzer: valid element-wise pipelines and their mutations.

A valid program streams ``K`` blocks of ``rows x cols`` tiles of each input
through a read kernel, a compute kernel storing a random block expression (or
its row reduction), and a write kernel. :func:`reference` evaluates the same
expression with NumPy in float64 and says how far the bf16/16-bit-DST result
may be from it. A mutation breaks one rule of the language; the program must
then be a located error, never an exception of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

UNARY = {  # name -> (TT-Lang spelling, NumPy function)
    "abs": ("ttl.math.abs({})", np.abs),
    "neg": ("-({})", np.negative),
    "relu": ("ttl.math.relu({})", lambda x: np.maximum(x, 0)),
    "exp": ("ttl.math.exp({})", np.exp),
    "square": ("ttl.math.square({})", np.square),
}
BINARY = {
    "add": ("({} + {})", np.add),
    "sub": ("({} - {})", np.subtract),
    "mul": ("({} * {})", np.multiply),
    "max": ("ttl.math.max({}, {})", np.maximum),
    "min": ("ttl.math.min({}, {})", np.minimum),
}
SCALARS = (0.5, 2.0, -1.0)


@dataclass(frozen=True)
class Expr:
    """A block expression: op is an input index (int), a scalar (float) or a name."""

    op: object
    args: tuple[Expr, ...] = ()

    def text(self) -> str:
        if isinstance(self.op, int):
            return f"x{self.op}_blk"
        if isinstance(self.op, float):
            return repr(self.op)
        table = UNARY if self.op in UNARY else BINARY
        return table[self.op][0].format(*(a.text() for a in self.args))

    def evaluate(self, inputs: list[np.ndarray], peak: list[float]) -> np.ndarray | float:
        """float64 value; ``peak[0]`` collects the largest magnitude of any sub-result."""
        if isinstance(self.op, int):
            value = inputs[self.op]
        elif isinstance(self.op, float):
            return self.op
        else:
            fn = (UNARY if self.op in UNARY else BINARY)[self.op][1]
            value = fn(*(a.evaluate(inputs, peak) for a in self.args))
        peak[0] = max(peak[0], float(np.max(np.abs(value))))
        return value

    def size(self) -> int:
        return 1 + sum(a.size() for a in self.args)

    def has_block(self) -> bool:
        return isinstance(self.op, int) or any(a.has_block() for a in self.args)

    def well_typed(self) -> bool:
        """Every ``ttl.math`` call has a block among its arguments (on plain numbers it
        is a located error, which the mutation test covers)."""
        spelled = (UNARY | BINARY).get(self.op) if isinstance(self.op, str) else None
        if spelled and spelled[0].startswith("ttl.math.") and not self.has_block():
            return False
        return all(a.well_typed() for a in self.args)


def expressions(n_inputs: int) -> st.SearchStrategy[Expr]:
    """Expression trees over ``n_inputs`` blocks, up to about 8 operations."""
    leaves = st.one_of(
        st.integers(0, n_inputs - 1).map(Expr),
        st.sampled_from(SCALARS).map(Expr),
    )

    def grow(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        unary = st.tuples(st.sampled_from(sorted(UNARY)), children).map(
            lambda t: Expr(t[0], (t[1],))
        )
        binary = st.tuples(st.sampled_from(sorted(BINARY)), children, children).map(
            lambda t: Expr(t[0], (t[1], t[2]))
        )
        return st.one_of(unary, binary)

    # exp of exp of ... would overflow bf16: keep the trees shallow.
    return st.recursive(leaves, grow, max_leaves=5).filter(
        lambda e: e.has_block() and e.well_typed()
    )


@dataclass(frozen=True)
class Program:
    """One generated operation and what it computes."""

    n_inputs: int
    rows: int
    cols: int
    k: int  # blocks streamed per tensor
    expr: Expr
    reduce: bool  # store reduce_sum(expr, dims=[-1]) (a rows x 1 block) instead
    fp32: bool  # fp32_dest_acc_en

    @property
    def out_cols(self) -> int:
        return 1 if self.reduce else self.cols

    def source(self) -> str:
        ins = [f"x{i}" for i in range(self.n_inputs)]
        value = self.expr.text()
        if self.reduce:
            value = f"ttl.math.reduce_sum({value}, dims=[-1])"
        r, c, oc, k = self.rows, self.cols, self.out_cols, self.k
        lines = [
            "import ttl",
            "",
            "",
            f"@ttl.operation(grid=(1, 1), fp32_dest_acc_en={self.fp32})",
            f"def op({', '.join(ins)}, y):",
            *(f"    {x}_dfb = ttl.make_dataflow_buffer_like({x}, shape=({r}, {c}))" for x in ins),
            f"    y_dfb = ttl.make_dataflow_buffer_like(y, shape=({r}, {oc}))",
            "",
            "    @ttl.compute()",
            "    def compute():",
            f"        for _ in range({k}):",
            f"            with {', '.join(f'{x}_dfb.wait() as {x}_blk' for x in ins)}, "
            "y_dfb.reserve() as y_blk:",
            f"                y_blk.store({value})",
            "",
            "    @ttl.datamovement()",
            "    def read():",
            f"        for k in range({k}):",
        ]
        for x in ins:
            lines += [
                f"            with {x}_dfb.reserve() as blk:",
                f"                ttl.copy({x}[k * {r}:(k + 1) * {r}, 0:{c}], blk).wait()",
            ]
        lines += [
            "",
            "    @ttl.datamovement()",
            "    def write():",
            f"        for k in range({k}):",
            "            with y_dfb.wait() as blk:",
            f"                ttl.copy(blk, y[k * {r}:(k + 1) * {r}, 0:{oc}]).wait()",
        ]
        return "\n".join(lines) + "\n"

    def shapes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(input shape, output shape) in elements."""
        return (32 * self.rows * self.k, 32 * self.cols), (
            32 * self.rows * self.k,
            32 * self.out_cols,
        )

    def reference(self, inputs: list[np.ndarray]) -> tuple[np.ndarray, float]:
        """(float64 result, absolute tolerance) for bf16 ``inputs``, shaped like ``y``."""
        peak = [1.0]
        value = self.expr.evaluate([x.astype(np.float64) for x in inputs], peak)
        value = np.broadcast_to(value, inputs[0].shape)
        # Each operation may round to bf16 (2^-9 relative), and later operations can
        # scale that error by up to the largest magnitude seen.
        tolerance = self.expr.size() * 2.0**-8 * peak[0] * max(1.0, peak[0])
        if not self.reduce:
            return value, tolerance
        # The row sum lands in column 0 of each output tile; the rest is zero. Each
        # of the 32 * cols terms carries the element error, and the running sum is
        # rounded once per tile.
        sums = value.sum(axis=1)
        out = np.zeros((value.shape[0], 32))
        out[:, 0] = sums
        tolerance = tolerance * 32 * self.cols + self.cols * 2.0**-7 * float(np.max(np.abs(sums)))
        return out, tolerance


def programs() -> st.SearchStrategy[Program]:
    """Valid programs."""
    return st.integers(1, 3).flatmap(
        lambda n: st.builds(
            Program,
            st.just(n),
            st.integers(1, 2),
            st.integers(1, 3),
            st.integers(1, 2),
            expressions(n),
            st.booleans(),
            st.booleans(),
        )
    )


# A mutation: (name, old text, new text); applied to the first occurrence.
MUTATIONS = (
    ("unknown function", "ttl.math.", "ttl.math.no_such_"),
    ("shape mismatch", "shape=(", "shape=(3, "),
    ("slice out of range", "0:", "7:"),
    ("store twice", "y_blk.store(", "y_blk.store(x0_blk)\n                y_blk.store("),
    ("unknown decorator keyword", "fp32_dest_acc_en=", "fp32_dest_acc="),
    (
        "block used after its with",
        "            y_blk.store(",
        "            pass\n                y_blk.store(",
    ),
    ("two objects printed", "y_blk.store(", "print(x0_blk, y_blk)\n                y_blk.store("),
    ("bad dims", "dims=[-1]", "dims=[5]"),
    ("string scalar", "y_blk.store(", "y_blk.store('a' * "),
    ("wrong kernel parameter", "def read():", "def read(n):"),
)


def write_program(workdir, source: str) -> str:
    """``source`` in a new file under ``workdir``; returns its path."""
    path = workdir / f"fuzz_{len(list(workdir.iterdir()))}.py"
    path.write_text(source)
    return str(path)


def run_program(workdir, program: Program, seed: int = 0) -> None:
    """Compiles and runs ``program`` on the emulator; asserts it matches its reference."""
    import ml_dtypes

    from ttl.compiler.driver import load_operation
    from ttl.host import jit

    op = load_operation(write_program(workdir, program.source()), "op")
    shape_in, shape_out = program.shapes()
    rng = np.random.default_rng(seed)
    inputs = [
        rng.uniform(-1, 1, shape_in).astype(ml_dtypes.bfloat16) for _ in range(program.n_inputs)
    ]
    y = np.zeros(shape_out, ml_dtypes.bfloat16)
    jit.run_operation(op, *inputs, y)
    want, tolerance = program.reference(inputs)
    got = y.astype(np.float64)
    finite = np.isfinite(want)
    np.testing.assert_allclose(
        got[finite], want[finite], rtol=0, atol=tolerance, err_msg=program.source()
    )
