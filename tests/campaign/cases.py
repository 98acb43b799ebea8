"""The bad-input campaign's cases: broken programs, runtime faults, host misuse, controls.

Each case is data: a program source, how to call it, and what a clean outcome
is. ``classify`` (in ``campaign.py``) runs it and names the outcome. Cases
are generated from the bases (``bases.py``) by mutations that apply wherever
their text occurs, so a new base is broken in every way that fits it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
from bases import BASES, ELTWISE, ROW_MAJOR, Base

ERROR = "error"  # a located error of ours: compile-time or run-time
CORRECT = "correct"  # runs and matches the reference


@dataclass(frozen=True)
class Case:
    """One campaign case."""

    id: str
    group: str  # "program", "runtime", "host", "control"
    base: Base
    source: str
    expect: str  # ERROR or CORRECT
    # Builds the call: (tensors, run_operation keywords) from a seeded generator.
    call: Callable[[np.random.Generator], tuple[list[Any], dict[str, Any]]] | None = None
    # Text the error must contain (besides a location), e.g. the tensor's name.
    mentions: tuple[str, ...] = field(default=())


_TWICE = "                    ta.wait()\n" * 2

# Programs that are wrong before they run: the compiler must say where.
# (name, text in a base, replacement)
PROGRAM_MUTATIONS: tuple[tuple[str, str, str], ...] = (
    ("misspelled copy", "ttl.copy(a[", "ttl.cpy(a["),
    ("misspelled dfb maker", "ttl.make_dataflow_buffer_like(a,", "ttl.make_dataflow_buffer(a,"),
    ("misspelled store", ".store(", ".stor("),
    ("misspelled wait on a transfer", "ta.wait()", "ta.wiat()"),
    ("misspelled reserve", "a_dfb.reserve()", "a_dfb.reserv()"),
    ("misspelled math function", "ttl.math.abs(", "ttl.math.absolute_value("),
    ("undefined name in a block expression", "x * z + x", "x * w + x"),
    ("undefined name in a slice", "a[r, c]", "a[r, col]"),
    ("undefined tensor", "ttl.copy(a[", "ttl.copy(q_tensor["),
    ("string operand", "x * z + x", 'x * "z" + x'),
    ("storing a number", "o.store(x * z + x)", "o.store(3)"),
    ("storing a DFB", "o.store(x * z + x)", "o.store(a_dfb)"),
    (
        "block shape differs from the slice",
        "a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1)",
        "a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 1)",
    ),
    ("zero block shape", "shape=(1, 1), block_count=2)", "shape=(0, 1), block_count=2)"),
    ("negative block shape", "shape=(1, 1), block_count=2)", "shape=(-1, 1), block_count=2)"),
    (
        "one-dimensional block",
        "a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1)",
        "a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1,)",
    ),
    ("zero block count", "block_count=2)", "block_count=0)"),
    ("negative block count", "block_count=2)", "block_count=-2)"),
    ("float block count", "block_count=2)", "block_count=2.5)"),
    ("string block shape", "shape=(1, 1), block_count=2)", 'shape="1x1", block_count=2)'),
    ("constant slice past the end", "a[r, c]", "a[r, 9]"),
    ("constant negative slice", "a[r, c]", "a[-1, c]"),
    ("too many slice indices", "a[r, c]", "a[r, c, 0]"),
    ("too few slice indices", "a[r, c]", "a[r]"),
    ("slice wider than the block", "a[r, c]", "a[r, c : c + 2]"),
    ("slice with a step", "a[r, c]", "a[r, c : c + 1 : 2]"),
    ("float slice index", "a[r, c]", "a[r, 0.5]"),
    ("copy between two blocks", "ttl.copy(a[r, c], x)", "ttl.copy(x, x)"),
    ("copy between two tensors", "ttl.copy(o, y[r, c])", "ttl.copy(a[r, c], y[r, c])"),
    ("copy of a DFB", "ttl.copy(a[r, c], x)", "ttl.copy(a[r, c], a_dfb)"),
    ("copy with one argument", "ttl.copy(a[r, c], x)", "ttl.copy(a[r, c])"),
    ("transfer never waited", "                    ta.wait()\n", ""),
    ("transfer waited twice", "                    ta.wait()\n", _TWICE),
    (
        "copy in a compute kernel",
        "                o.store(x * z + x)\n",
        "                o.store(x * z + x)\n                ttl.copy(o, y[0, 0]).wait()\n",
    ),
    (
        "block math in a data-movement kernel",
        "                    ta.wait()\n",
        "                    ta.wait()\n                    x.store(x + x)\n",
    ),
    ("negative range step", "for r in range(rows):", "for r in range(rows, 0, -1):"),
    ("float range", "for r in range(rows):", "for r in range(1.5):"),
    ("range of a tensor", "for r in range(rows):", "for r in range(a):"),
    ("iterating a tensor", "for r in range(rows):", "for r in a:"),
    (
        "try statement",
        "        for _ in range(rows * cols):",
        "        try:\n            pass\n        except Exception:\n            pass\n"
        "        for _ in range(rows * cols):",
    ),
    (
        "lambda in a kernel",
        "        for r in range(rows):\n            for c in range(cols):\n"
        "                with a_dfb",
        "        f = lambda v: v\n        for r in range(rows):\n"
        "            for c in range(cols):\n                with a_dfb",
    ),
    (
        "list comprehension in a kernel",
        "        for r in range(rows):\n            for c in",
        "        xs = [i for i in range(3)]\n        for r in range(rows):\n            for c in",
    ),
    ("import in a kernel", "    def read():\n", "    def read():\n        import os\n"),
    ("global statement", "    def read():\n", "    def read():\n        global rows\n"),
    ("yield in a kernel", "    def write():\n", "    def write():\n        yield 1\n"),
    ("return value from a kernel", "    def write():\n", "    def write():\n        return 5\n"),
    ("kernel with parameters", "    def write():\n", "    def write(n):\n"),
    ("async kernel", "    def write():\n", "    async def write():\n"),
    ("decorator with an argument", "@ttl.compute()", "@ttl.compute(3)"),
    ("undecorated kernel", "    @ttl.datamovement()\n    def write():", "    def write():"),
    ("unknown decorator", "@ttl.compute()", "@ttl.computer()"),
    ("grid of zero", "grid=(1, 1)", "grid=(0, 1)"),
    ("grid larger than the device", "grid=(1, 1)", "grid=(100, 1)"),
    ("grid of three dimensions", "grid=(1, 1)", "grid=(1, 1, 1)"),
    ("grid as a word", "grid=(1, 1)", 'grid="everything"'),
    ("negative grid", "grid=(2, 2)", "grid=(-2, 2)"),
    ("unknown operation keyword", "@ttl.operation(grid=", "@ttl.operation(speed=3, grid="),
    ("fp32_dest_acc_en as a string", "fp32_dest_acc_en=True", 'fp32_dest_acc_en="yes"'),
    ("operation division by zero", "rows = a.shape[0] // 32", "rows = a.shape[0] // 0"),
    ("tensor dimension that does not exist", "rows = a.shape[0] // 32", "rows = a.shape[5] // 32"),
    ("kernel division by zero", "for c in range(cols):", "for c in range(cols // 0):"),
    ("store into a waited block", "o.store(x * z + x)", "x.store(x * z + x)"),
    (
        "store of mismatched shapes",
        "acc.store(p @ q, acc=True)",
        "acc.store(ttl.block.fill(0.0, shape=(2, 2)), acc=True)",
    ),
    (
        "matmul of a block with itself transposed wrong",
        "p @ q",
        "p @ ttl.block.fill(1.0, shape=(2, 1))",
    ),
    ("unknown block method", "ttl.block.fill(0.0", "ttl.block.fil(0.0"),
    (
        "reserve of a block, not a DFB",
        "with acc_dfb.reserve() as acc:",
        "with acc_dfb.reserve() as acc, acc.reserve() as acc2:",
    ),
    (
        "waiting a DFB in the wrong kernel kind",
        "with y_dfb.wait() as o:\n",
        "with y_dfb.wait() as o, a_dfb.wait() as extra:\n",
    ),
    ("node dims three", "ttl.node(dims=2)", "ttl.node(dims=3)"),
    ("grid_size dims zero", "ttl.grid_size(dims=2)", "ttl.grid_size(dims=0)"),
    ("comparing a block", "if r < row_tiles and c < col_tiles:", "if a_dfb < row_tiles:"),
    (
        "unsupported operator on integers",
        "r = node_row * per_row + i",
        "r = node_row * per_row + i ** 2.5",
    ),
    ("float integer arithmetic", "r = node_row * per_row + i", "r = node_row * per_row + 0.5"),
    (
        "while loop that never ends",
        "        for _ in range(rows * cols):",
        "        while True:\n            pass\n        for _ in range(rows * cols):",
    ),
    ("compute pops too few", "for _ in range(rows * cols):", "for _ in range(rows * cols - 1):"),
    ("compute pops too many", "for _ in range(rows * cols):", "for _ in range(rows * cols + 1):"),
    ("matmul consumes too many", "for _ in range(k_tiles):", "for _ in range(k_tiles + 1):"),
    (
        "writer consumes too few",
        "        for r in range(rows):\n            for c in range(cols):\n"
        "                with y_dfb",
        "        for r in range(rows - 1):\n"
        "            for c in range(cols):\n                with y_dfb",
    ),
    (
        "print of a DFB in compute",
        "                o.store(x * z + x)\n",
        "                o.store(x * z + x)\n                print(a_dfb, 5, sep=x)\n",
    ),
    (
        "reduce over a dimension that does not exist",
        "dims=[-1], shape=(1, 1)",
        "dims=[5], shape=(1, 1)",
    ),
    ("reduce to a wrong shape", "dims=[-1], shape=(1, 1)", "dims=[-1], shape=(2, 1)"),
    ("broadcast to a wrong shape", "shape=(1, cols)))", "shape=(2, cols)))"),
    ("broadcast without dims", "ttl.block.broadcast(m, dims=[-1], ", "ttl.block.broadcast(m, "),
    ("reduce of a DFB", "reduce_max(x,", "reduce_max(a_dfb,"),
    ("row slice wider than the tensor", "a[r, 0:cols]", "a[r, 0 : cols + 1]"),
    ("row slice narrower than the block", "a[r, 0:cols]", "a[r, 1:cols]"),
    ("row slice reversed", "a[r, 0:cols]", "a[r, cols:0]"),
    ("grid_size with a string", "ttl.grid_size(dims=1)", 'ttl.grid_size(dims="1")'),
    (
        "node at operation scope in arithmetic",
        "per_node = rows // ttl.grid_size(dims=1)",
        "per_node = rows // ttl.grid_size(dims=1) // 0",
    ),
    (
        "extern call to a missing header",
        "    def write():\n",
        '    def write():\n        ttl.call_extern_func("no_such_header.h", "f")\n',
    ),
)

# Programs that compile and then go wrong on the device: the run must stop
# with a report of ours naming the TT-Lang line.
RUNTIME_MUTATIONS: tuple[tuple[str, str, str], ...] = (
    ("read one column past the end", "a[r, c]", "a[r, c + 1]"),
    ("read one row past the end", "a[r, c]", "a[r + 1, c]"),
    ("read before the start", "a[r, c]", "a[r, c - 1]"),
    ("read at twice the row", "a[r, c]", "a[r * 2, c]"),
    ("write one row past the end", "y[r, c]", "y[r + 1, c]"),
    ("write before the start", "y[r, c]", "y[r - 1, c]"),
    ("write far past the end", "y[r, c]", "y[r + 1000, c]"),
    ("read b past the end", "b[k, n]", "b[k + 1, n]"),
    ("read a past the end", "a[m, k]", "a[m, k + 1]"),
    ("write past the end on the last node", "y[r, c]", "y[r + 1, c]"),
    (
        "one row too many per node",
        "for r in range(first, first + per_node):\n            with a_dfb",
        "for r in range(first, first + per_node + 1):\n            with a_dfb",
    ),
    (
        "rows shifted by one node",
        "first = ttl.node(dims=1) * per_node\n        for r in range(first, first + per_node):\n"
        "            with y_dfb",
        "first = (ttl.node(dims=1) + 1) * per_node\n"
        "        for r in range(first, first + per_node):\n            with y_dfb",
    ),
    (
        "unguarded grid read",
        "                if r < row_tiles and c < col_tiles:\n"
        "                    with a_dfb.reserve() as x:",
        "                if True:\n                    with a_dfb.reserve() as x:",
    ),
    (
        "division by a zero node coordinate",
        "ttl.copy(a[r, c], x)",
        "ttl.copy(a[r, c + 1 // (c - c)], x)",
    ),
    ("modulo by zero", "ttl.copy(o, y[r, c])", "ttl.copy(o, y[r, c % (r - r)])"),
    (
        "a reader that never stops",
        "    def read():\n",
        "    def read():\n        n = 0\n        while n >= 0:\n            n = n + 1 - 1\n",
    ),
    (
        "a writer waiting for a block never produced",
        "with y_dfb.wait() as o:\n",
        "with y_dfb.wait() as o, y_dfb.wait() as o2:\n",
    ),
)


def _inputs(base: Base, rng: np.random.Generator, dtype=ml_dtypes.bfloat16) -> list[np.ndarray]:
    from ttl.specs import TensorSpec

    arrays = [
        rng.uniform(-1, 1, TensorSpec.parse(s).shape).astype(dtype) for s in base.specs.values()
    ]
    arrays[-1][:] = 0
    return arrays


# Row-major programs broken where tiles are required or where element indices go wrong:
# located compile errors (program) and run-time slice checks (runtime).
ROW_MAJOR_MUTATIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "program",
        "reduce of a row-major block",
        "o.store(ttl.math.abs(x) * z + x)",
        "o.store(ttl.math.reduce_sum(x, dims=[0], shape=(1,)))",
    ),
    (
        "program",
        "transpose of a row-major block",
        "o.store(ttl.math.abs(x) * z + x)",
        "o.store(ttl.math.transpose(x))",
    ),
    ("program", "matmul of row-major blocks", "o.store(ttl.math.abs(x) * z + x)", "o.store(x @ z)"),
    (
        "program",
        "broadcast of a row-major block",
        "o.store(ttl.math.abs(x) * z + x)",
        "o.store(ttl.math.broadcast(x, dims=[0], shape=(cols,)))",
    ),
    ("program", "row slice narrower than the block", "a[r, :]", "a[r, 0 : cols - 1]"),
    ("program", "constant element slice past the end", "a[r, :]", "a[r, 1 : cols + 1]"),
    ("program", "block shape in tiles", "(a, shape=(cols,)", "(a, shape=(1, 1)"),
    ("program", "too many indices", "a[r, :]", "a[r, 0, :]"),
    ("runtime", "read one row past the end", "a[r, :]", "a[r + 1, :]"),
    ("runtime", "write one row before the start", "y[r, :]", "y[r - 1, :]"),
)


def _row_major_inputs(rng: np.random.Generator) -> tuple[list[Any], dict[str, Any]]:
    import ttl

    return [ttl.row_major(a) for a in _inputs(ROW_MAJOR, rng)], {}


def _row_major_cases() -> list[Case]:
    """The row-major base broken (ROW_MAJOR_MUTATIONS), and run as written as a control."""
    cases = [
        Case(
            f"{group}/{ROW_MAJOR.name}/{name}",
            group,
            ROW_MAJOR,
            ROW_MAJOR.source.replace(old, new, 1),
            ERROR,
            _row_major_inputs,
        )
        for group, name, old, new in ROW_MAJOR_MUTATIONS
    ]

    def tiled(rng):  # the same arrays without ttl.row_major: 1-row tiles do not exist
        return _inputs(ROW_MAJOR, rng), {}

    cases.append(
        Case(
            "host/row_major/arrays not marked row-major",
            "host",
            ROW_MAJOR,
            ROW_MAJOR.source,
            ERROR,
            tiled,
            ("a",),
        )
    )
    cases.append(
        Case(
            "control/row_major/as written",
            "control",
            ROW_MAJOR,
            ROW_MAJOR.source,
            CORRECT,
            _row_major_inputs,
        )
    )
    return cases


def _shape(base: Base, name: str) -> tuple[int, ...]:
    from ttl.specs import TensorSpec

    return TensorSpec.parse(base.specs[name]).shape


def _pinned(base: Base) -> dict[str, Any]:
    return {"specs": dict(base.specs)}


def _host_cases(base: Base) -> list[Case]:
    """Wrong host arguments for an operation compiled for ``base.specs``."""
    names = list(base.specs)
    first, out = names[0], names[-1]
    cases: list[tuple[str, Callable, tuple[str, ...]]] = []

    def replace(i: int, make: Callable[[np.ndarray], Any]):
        def call(rng):
            arrays = _inputs(base, rng)
            arrays[i] = make(arrays[i])
            return arrays, _pinned(base)

        return call

    last = len(names) - 1
    if _shape(base, first)[0] != _shape(base, first)[1]:  # (square: a valid input)
        cases.append(
            ("first input transposed", replace(0, lambda a: np.ascontiguousarray(a.T)), (first,))
        )
    cases += [
        ("first input too small", replace(0, lambda a: a[:32]), (first,)),
        ("first input float64", replace(0, lambda a: a.astype(np.float64)), (first,)),
        ("first input float32 for bf16", replace(0, lambda a: a.astype(np.float32)), (first,)),
        ("first input int32", replace(0, lambda a: a.astype(np.int32)), (first,)),
        ("first input a list", replace(0, lambda a: a.tolist()), (first,)),
        ("first input a string", replace(0, lambda a: "tensor"), (first,)),
        ("first input None", replace(0, lambda a: None), (first,)),
        ("first input three-dimensional", replace(0, lambda a: a[None]), (first,)),
        ("first input a scalar", replace(0, lambda a: np.float32(1.0)), (first,)),
        ("output read-only", replace(last, _read_only), (out,)),
        (
            "output too large",
            replace(last, lambda a: np.zeros((a.shape[0] * 2, a.shape[1]), a.dtype)),
            (out,),
        ),
        ("output float64", replace(last, lambda a: a.astype(np.float64)), (out,)),
        ("output a tuple", replace(last, lambda a: tuple(a.shape)), (out,)),
    ]

    def missing(rng):
        return _inputs(base, rng)[:-1], {}

    def extra(rng):
        arrays = _inputs(base, rng)
        return [*arrays, arrays[0]], {}

    def target(rng):
        return _inputs(base, rng), {"target": "grayskull"}

    def grid(rng):
        return _inputs(base, rng), {"grid": (0, 3)}

    def options(rng):
        return _inputs(base, rng), {"options": "--ttl-no-such-option"}

    cases += [
        ("one tensor missing", missing, ("takes",)),
        ("one tensor too many", extra, ("takes",)),
        ("unknown target", target, ("grayskull",)),
        ("zero grid override", grid, ("grid",)),
        ("unknown compiler option", options, ("no-such-option",)),
    ]
    return [
        Case(f"host/{base.name}/{name}", "host", base, base.source, ERROR, call, mentions)
        for name, call, mentions in cases
    ]


def _on_first_node(a: np.ndarray) -> Any:
    """``a`` as a ttnn tensor held whole in the L1 of node (0, 0) (one HEIGHT_SHARDED shard):
    every other node's copies of it are remote NOC reads."""
    from ttl.host import ttnn
    from ttl.host.ttnn.types import dtype_of

    node = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(0, 0))])
    shard = [int(np.prod(a.shape[:-1])), a.shape[-1]]
    config = ttnn.MemoryConfig(
        ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, ttnn.ShardSpec(node, shard)
    )
    return ttnn.Tensor(a, dtype_of(a.dtype), ttnn.TILE_LAYOUT, None, config)


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


def _controls(base: Base) -> list[Case]:
    """Valid calls that must give the reference result: other layouts of the same data,
    and harmless edits of the program."""

    def plain(rng):
        return _inputs(base, rng), {}

    def fortran(rng):
        arrays = _inputs(base, rng)
        return [np.asfortranarray(a) for a in arrays[:-1]] + arrays[-1:], {}

    def strided(rng):
        arrays = _inputs(base, rng)
        wide = [np.repeat(a, 2, axis=1)[:, ::2] for a in arrays[:-1]]
        return wide + arrays[-1:], {}

    def torch_tensors(rng):
        import torch

        arrays = _inputs(base, rng)
        return [torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16) for a in arrays], {}

    def pinned(rng):
        return _inputs(base, rng), _pinned(base)

    def l1_sharded(rng):
        return [_on_first_node(a) for a in _inputs(base, rng)], {}

    edits = (
        ("deeper buffers", "block_count=2", "block_count=4"),
        (
            "a print in a data-movement kernel",
            "    def write():\n",
            '    def write():\n        print("writing")\n',
        ),
        (
            "a signpost",
            "    def write():\n",
            '    def write():\n        with ttl.signpost("w"):\n            pass\n',
        ),
        (
            # a local function is a pipe-net condition body; unused, it does nothing
            "an unused local function",
            "    def read():\n",
            "    def read():\n        def helper():\n            pass\n\n",
        ),
        (
            "a DFB nobody uses",
            "    y_dfb = ttl",
            "    unused_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))\n    y_dfb = ttl",
        ),
        (
            "fill with the shape of its store",
            "ttl.block.fill(0.0, shape=(1, 1))",
            "ttl.block.fill(0.0)",
        ),
        (
            "a constant-true branch",
            "    def write():\n",
            "    def write():\n        if 1 < 2:\n            pass\n",
        ),
    )
    cases = [
        Case(f"control/{base.name}/{name}", "control", base, base.source, CORRECT, call)
        for name, call in (
            ("as written", plain),
            ("Fortran-order inputs", fortran),
            ("strided inputs", strided),
            ("torch tensors", torch_tensors),
            ("L1-sharded ttnn tensors", l1_sharded),
            ("specs pinned", pinned),
        )
    ]
    for name, old, new in edits:
        if old in base.source:
            source = base.source.replace(old, new, 1)
            cases.append(
                Case(f"control/{base.name}/{name}", "control", base, source, CORRECT, plain)
            )
    return cases


def _mutants(group: str, mutations) -> list[Case]:
    cases = []
    for base in BASES:
        for name, old, new in mutations:
            if old in base.source:
                cases.append(
                    Case(
                        f"{group}/{base.name}/{name}",
                        group,
                        base,
                        base.source.replace(old, new, 1),
                        ERROR,
                    )
                )
    return cases


def _stress() -> list[Case]:
    """Valid programs at the edges: long integer expressions, deep block expressions."""
    terms = " + ".join(["c"] * 2000)
    long_int = ELTWISE.source.replace(
        "ttl.copy(a[r, c], x)", f"ttl.copy(a[r, ({terms}) // 2000], x)"
    )
    # fp32 DST: 300 bf16 additions in a 16-bit DST would round away the answer.
    deep = ELTWISE.source.replace(
        "@ttl.operation(grid=(1, 1))", "@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)"
    ).replace(
        "o.store(x * z + x)",
        "o.store(" + " + ".join(["x"] * 300) + " - " + " - ".join(["x"] * 299) + " + x * z)",
    )
    return [
        Case("control/eltwise/2000-term index", "control", ELTWISE, long_int, CORRECT),
        Case("control/eltwise/600-term block expression", "control", ELTWISE, deep, CORRECT),
    ]


def all_cases() -> list[Case]:
    """Every case, in a fixed order."""
    cases = _mutants("program", PROGRAM_MUTATIONS) + _mutants("runtime", RUNTIME_MUTATIONS)
    for base in BASES:
        cases += _host_cases(base) + _controls(base)
    return cases + _row_major_cases() + _stress()
