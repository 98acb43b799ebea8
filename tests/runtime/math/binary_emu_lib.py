"""Helpers of the binary-math emulator tests (a uniquely named module).

``run_expr`` writes a one-kernel-per-kind TT-Lang program whose compute kernel
stores ``expr`` (over blocks ``a_blk``, ``b_blk``, ...) into ``y``, compiles it
through the JIT and runs it on the emulator.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np

from ttl.compiler.driver import load_operation
from ttl.host import jit

BF16_RTOL = 2.0**-7  # one bf16 rounding of the result plus one of the inputs


def _program(names: list[str], expr: str, block: tuple[int, int]) -> str:
    br, bc = block
    params = ", ".join([*names, "y"])
    dfbs = "\n".join(
        f"    {n}_dfb = ttl.make_dataflow_buffer_like({n}, shape=({br}, {bc}), block_count=2)"
        for n in [*names, "y"]
    )
    waits = ", ".join(f"{n}_dfb.wait() as {n}_blk" for n in names)
    reads = "\n".join(
        f"                    x_{n} = ttl.copy({n}[r * {br}:(r + 1) * {br}, "
        f"c * {bc}:(c + 1) * {bc}], {n}_blk)\n                    x_{n}.wait()"
        for n in names
    )
    reserves = ", ".join(f"{n}_dfb.reserve() as {n}_blk" for n in names)
    return textwrap.dedent(
        """\
        import ttl


        @ttl.operation(grid=(1, 1))
        def op({params}):
            rows, cols = y.shape[0] // {tr}, y.shape[1] // {tc}
        {dfbs}

            @ttl.compute()
            def compute():
                for _ in range(rows * cols):
                    with {waits}, y_dfb.reserve() as y_blk:
                        y_blk.store({expr})

            @ttl.datamovement()
            def read():
                for r in range(rows):
                    for c in range(cols):
                        with {reserves}:
        {reads}

            @ttl.datamovement()
            def write():
                for r in range(rows):
                    for c in range(cols):
                        with y_dfb.wait() as y_blk:
                            ys = y[r * {br}:(r + 1) * {br}, c * {bc}:(c + 1) * {bc}]
                            ttl.copy(y_blk, ys).wait()
        """
    ).format(
        params=params,
        tr=32 * br,
        tc=32 * bc,
        dfbs=dfbs,
        waits=waits,
        expr=expr,
        reserves=reserves,
        reads=reads,
        br=br,
        bc=bc,
    )


def run_expr(
    tmp_path: Path,
    expr: str,
    inputs: dict[str, np.ndarray],
    target: str,
    block: tuple[int, int] = (1, 1),
    dtype: object = ml_dtypes.bfloat16,
) -> np.ndarray:
    """Runs ``y.store(expr)`` over ``inputs`` (named a, b, ...) on ``target``; returns y."""
    names = list(inputs)
    path = tmp_path / f"binary_prog_{abs(hash((expr, block))) % 10**8}.py"
    path.write_text(_program(names, expr, block))
    op = load_operation(str(path), "op")
    arrays = [np.asarray(x).astype(dtype) for x in inputs.values()]
    y = np.zeros(arrays[0].shape, dtype=dtype)
    jit.run_operation(op, *arrays, y, target=target)
    return y.astype(np.float64)


def as_f64(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bf16, then widened: the values the device actually reads."""
    return np.asarray(x).astype(ml_dtypes.bfloat16).astype(np.float64)
