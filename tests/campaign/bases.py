"""The valid programs the campaign breaks: each a TT-Lang operation as users write them.

Every base names its operation ``op``, takes its output last, and comes with
its tensor specs and a NumPy reference; ``cases.py`` mutates their source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Base:
    """A valid operation: source, specs (inputs then the output) and its reference."""

    name: str
    source: str
    specs: dict[str, str]
    reference: Callable[..., np.ndarray]
    rtol: float = 0.02


ELTWISE = Base(
    "eltwise",
    """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    rows = a.shape[0] // 32
    cols = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows * cols):
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                o.store(x * z + x)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for c in range(cols):
                with a_dfb.reserve() as x, b_dfb.reserve() as z:
                    ta = ttl.copy(a[r, c], x)
                    tb = ttl.copy(b[r, c], z)
                    ta.wait()
                    tb.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for c in range(cols):
                with y_dfb.wait() as o:
                    ttl.copy(o, y[r, c]).wait()
""",
    {"a": "bf16[64,96]", "b": "bf16[64,96]", "y": "bf16[64,96]"},
    lambda a, b: a * b + a,
)

GRID = Base(
    "grid",
    """\
import ttl


@ttl.operation(grid=(2, 2))
def op(a, y):
    cols, rows = ttl.grid_size(dims=2)
    row_tiles = a.shape[0] // 32
    col_tiles = a.shape[1] // 32
    per_row = -(-row_tiles // rows)
    per_col = -(-col_tiles // cols)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        node_col, node_row = ttl.node(dims=2)
        for i in range(per_row):
            r = node_row * per_row + i
            for j in range(per_col):
                c = node_col * per_col + j
                if r < row_tiles and c < col_tiles:
                    with a_dfb.wait() as x, y_dfb.reserve() as o:
                        o.store(ttl.math.abs(x) * 2.0 + 1.0)

    @ttl.datamovement()
    def read():
        node_col, node_row = ttl.node(dims=2)
        for i in range(per_row):
            r = node_row * per_row + i
            for j in range(per_col):
                c = node_col * per_col + j
                if r < row_tiles and c < col_tiles:
                    with a_dfb.reserve() as x:
                        ttl.copy(a[r, c], x).wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        for i in range(per_row):
            r = node_row * per_row + i
            for j in range(per_col):
                c = node_col * per_col + j
                if r < row_tiles and c < col_tiles:
                    with y_dfb.wait() as o:
                        ttl.copy(o, y[r, c]).wait()
""",
    {"a": "bf16[96,96]", "y": "bf16[96,96]"},
    lambda a: np.abs(a) * 2.0 + 1.0,
)

MATMUL = Base(
    "matmul",
    """\
import ttl


@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
def op(a, b, y):
    m_tiles = a.shape[0] // 32
    n_tiles = b.shape[1] // 32
    k_tiles = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(m_tiles * n_tiles):
            with acc_dfb.reserve() as acc:
                acc.store(ttl.block.fill(0.0, shape=(1, 1)))
                for _ in range(k_tiles):
                    with a_dfb.wait() as p, b_dfb.wait() as q:
                        acc.store(p @ q, acc=True)

    @ttl.datamovement()
    def read():
        for m in range(m_tiles):
            for n in range(n_tiles):
                for k in range(k_tiles):
                    with a_dfb.reserve() as p, b_dfb.reserve() as q:
                        tp = ttl.copy(a[m, k], p)
                        tq = ttl.copy(b[k, n], q)
                        tp.wait()
                        tq.wait()

    @ttl.datamovement()
    def write():
        for m in range(m_tiles):
            for n in range(n_tiles):
                with acc_dfb.wait() as acc:
                    ttl.copy(acc, y[m, n]).wait()
""",
    {"a": "bf16[64,96]", "b": "bf16[96,64]", "y": "bf16[64,64]"},
    lambda a, b: a @ b,
    rtol=0.03,
)

ROWMAX = Base(
    "rowmax",
    """\
import ttl


@ttl.operation(grid=(1, 2))
def op(a, y):
    rows = a.shape[0] // 32
    cols = a.shape[1] // 32
    per_node = rows // ttl.grid_size(dims=1)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, cols), block_count=2)
    m_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, cols), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(per_node):
            with a_dfb.wait() as x:
                with m_dfb.reserve() as m:
                    m.store(ttl.math.reduce_max(x, dims=[-1], shape=(1, 1)))
                with m_dfb.wait() as m, y_dfb.reserve() as o:
                    o.store(x - ttl.block.broadcast(m, dims=[-1], shape=(1, cols)))

    @ttl.datamovement()
    def read():
        first = ttl.node(dims=1) * per_node
        for r in range(first, first + per_node):
            with a_dfb.reserve() as x:
                ttl.copy(a[r, 0:cols], x).wait()

    @ttl.datamovement()
    def write():
        first = ttl.node(dims=1) * per_node
        for r in range(first, first + per_node):
            with y_dfb.wait() as o:
                ttl.copy(o, y[r, 0:cols]).wait()
""",
    {"a": "bf16[128,96]", "y": "bf16[128,96]"},
    lambda a: a - a.max(axis=1, keepdims=True),
)

BASES = (ELTWISE, GRID, MATMUL, ROWMAX)

# Row-major tensors and DFBs (shape unit: an element), one row per block. Not in
# BASES: its tensors go in as ttl.row_major arrays, so it has its own cases
# (cases.py, ROW_MAJOR_MUTATIONS) rather than the tiled bases' host calls.
ROW_MAJOR = Base(
    "row_major",
    """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    rows = a.shape[0]
    cols = a.shape[1]
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(cols,), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(cols,), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(cols,), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows):
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                o.store(ttl.math.abs(x) * z + x)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            with a_dfb.reserve() as x, b_dfb.reserve() as z:
                ta = ttl.copy(a[r, :], x)
                tb = ttl.copy(b[r, :], z)
                ta.wait()
                tb.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            with y_dfb.wait() as o:
                ttl.copy(o, y[r, :]).wait()
""",
    {"a": "bf16[6,40]:row_major", "b": "bf16[6,40]:row_major", "y": "bf16[6,40]:row_major"},
    lambda a, b: np.abs(a) * b + a,
)
