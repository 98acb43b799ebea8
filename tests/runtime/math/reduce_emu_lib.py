"""Helpers of the reduce/broadcast/transpose/where emulator tests (a uniquely named module).

``run_store`` writes a TT-Lang program (fp32 DST: these tests measure the functions;
test_dst_mode_emulator.py the 16-bit DST) whose tensors are each exactly one block
(shapes in tiles), whose compute kernel stores ``expr`` (over blocks
``a_blk``, ``b_blk``, ...) into ``y_blk``, compiles it through the JIT and runs
it on the emulator.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np

from ttl.compiler.driver import load_operation
from ttl.host import jit

BF16 = ml_dtypes.bfloat16
# The output rounded once to bf16 (2^-9 relative), plus fp32 summation order.
RTOL = 2.0**-8


def _full(rank: int) -> str:
    return ", ".join([":"] * rank)


def program(blocks: dict[str, tuple[int, ...]], out: tuple[int, ...], expr: str) -> str:
    """The program storing ``expr`` into ``y`` (blocks: name -> shape in tiles)."""
    names = list(blocks)
    params = ", ".join([*names, "y"])
    dfbs = "\n".join(
        f"    {n}_dfb = ttl.make_dataflow_buffer_like({n}, shape={s!r})"
        for n, s in [*blocks.items(), ("y", out)]
    )
    waits = ", ".join(f"{n}_dfb.wait() as {n}_blk" for n in names)
    reserves = ", ".join(f"{n}_dfb.reserve() as {n}_blk" for n in names)
    reads = "\n".join(
        f"            ttl.copy({n}[{_full(len(s))}], {n}_blk).wait()" for n, s in blocks.items()
    )
    return textwrap.dedent(
        """\
        import ttl


        @ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
        def op({params}):
        {dfbs}

            @ttl.compute()
            def compute():
                with {waits}, y_dfb.reserve() as y_blk:
                    y_blk.store({expr})

            @ttl.datamovement()
            def read():
                with {reserves}:
        {reads}

            @ttl.datamovement()
            def write():
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[{yfull}]).wait()
        """
    ).format(
        params=params,
        dfbs=dfbs,
        waits=waits,
        reserves=reserves,
        reads=reads,
        expr=expr,
        yfull=_full(len(out)),
    )


def elements(tiles: tuple[int, ...]) -> tuple[int, ...]:
    """Tensor shape in elements of a block of ``tiles`` (the last two dims are tiled)."""
    return (*tiles[:-2], tiles[-2] * 32, tiles[-1] * 32)


def run_store(
    tmp_path: Path,
    inputs: dict[str, np.ndarray],
    blocks: dict[str, tuple[int, ...]],
    out: tuple[int, ...],
    expr: str,
    target: str,
) -> np.ndarray:
    """Runs ``y.store(expr)`` on ``target``; returns y (float64)."""
    path = tmp_path / f"reduce_prog_{abs(hash((expr, tuple(blocks.items())))) % 10**8}.py"
    path.write_text(program(blocks, out, expr))
    op = load_operation(str(path), "op")
    arrays = [np.asarray(x).astype(BF16) for x in inputs.values()]
    y = np.zeros(elements(out), dtype=BF16)
    jit.run_operation(op, *arrays, y, target=target)
    return y.astype(np.float64)


def as_f64(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bf16, then widened: the values the device reads."""
    return np.asarray(x).astype(BF16).astype(np.float64)


def tile_reduce(x: np.ndarray, dims: list[int], fn: str) -> np.ndarray:
    """NumPy float64 reference of ttl.math.reduce_<fn> on an element array.

    ``dims`` index the block's tile dims. The reduced tile dims keep one tile
    whose row 0 / column 0 / element (0, 0) holds the result and zeros elsewhere,
    as the spec places it; outer dims reduce to size 1.
    """
    rank = x.ndim
    norm = {d % rank for d in dims}
    reduce = np.max if fn == "max" else np.sum
    axes = tuple(sorted(norm))
    r = reduce(x, axis=axes, keepdims=True)
    out_shape = list(x.shape)
    for d in norm:
        out_shape[d] = 32 if d >= rank - 2 else 1
    y = np.zeros(out_shape)
    index = tuple(slice(0, 1) if d in norm and d >= rank - 2 else slice(None) for d in range(rank))
    y[index] = r
    return y
