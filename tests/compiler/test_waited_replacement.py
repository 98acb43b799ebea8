"""Waited-block replacement (spec v0.21, "Dataflow buffer"): a ``store`` into a block
acquired by ``wait``, and the errors for every condition the spec puts on it.

"A compute thread may replace a block acquired by `wait` after reading its original
contents. Replacement does not change queue occupancy or advance the read or write
pointer; the matching `pop` releases the block. Replacement is valid only for a DFB
with `block_count=1` when the `wait` acquires its complete capacity as that compute
kernel's first access to the DFB, exactly one store whose expression reads the
original contents executes in straight-line code, no other access overlaps the
replacement, and every use of the replacement completes before the matching `pop`."

Run on both targets by tests/programs/waited_replacement.py.
"""

from __future__ import annotations

import pytest

SPECS = {"x": "bf16[32,32]", "y": "bf16[32,32]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def op(x, y):
    s_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count={count})
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for _ in range({reads}):
            with s_dfb.reserve() as blk:
                ttl.copy(x[0, 0], blk).wait()

    @ttl.compute()
    def compute():
{compute}

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""

REPLACE = """\
        with s_dfb.wait() as s:
            s.store(s + s)
            with y_dfb.reserve() as o:
                o.store(s)
"""


def _source(compute: str = REPLACE, count: int = 1, reads: int = 1) -> str:
    return SOURCE.format(compute=compute.rstrip("\n"), count=count, reads=reads)


def test_the_replacement_goes_through_a_compiler_dfb_and_the_dfb_is_untouched(compile_source):
    result = compile_source(_source(), "op", SPECS)
    cpp = result.sources["compute.cpp"]
    # No pack into the waited DFB: its occupancy and pointers stay as they were.
    assert "pack_tile(0, dfb_s_dfb" not in cpp
    body = cpp[cpp.index("cb_wait_front(dfb_s_dfb, 1);") :]
    order = [
        "cb_reserve_back(dfb_replaced_s_dfb, 1);",
        "add_tiles(dfb_s_dfb, dfb_s_dfb, 0, 0, 0);",  # the expression reads the original
        "pack_tile(0, dfb_replaced_s_dfb, 0);",
        "cb_push_back(dfb_replaced_s_dfb, 1);",
        "cb_wait_front(dfb_replaced_s_dfb, 1);",
        "copy_tile(dfb_replaced_s_dfb, 0, 0);",  # later reads read the replacement
        "cb_pop_front(dfb_replaced_s_dfb, 1);",
        "cb_pop_front(dfb_s_dfb, 1);",  # the matching pop, after the replacement's
    ]
    positions = [body.index(text) for text in order]
    assert positions == sorted(positions), body
    assert "replaced_s_dfb" in result.ir


@pytest.mark.parametrize(
    ("compute", "count", "reads", "words"),
    [
        (REPLACE, 2, 1, ["block state MR", "needs a DFB with block_count=1, and 's_dfb' has 2"]),
        (
            """\
        with s_dfb.wait() as first:
            with y_dfb.reserve() as o:
                o.store(first)
        with s_dfb.wait() as s:
            s.store(s + s)  # ERROR
""",
            1,
            2,
            ["needs the wait() to be the compute kernel's first access to 's_dfb'"],
        ),
        (
            """\
        for _ in range(2):
            with s_dfb.wait() as s:
                s.store(s + s)  # ERROR
                with y_dfb.reserve() as o:
                    o.store(s)
""",
            1,
            2,
            ["a wait() in a loop runs more than once"],
        ),
        (
            """\
        with s_dfb.wait() as s:
            s.store(s + s)
            s.store(s * 2.0)  # ERROR
            with y_dfb.reserve() as o:
                o.store(s)
""",
            1,
            1,
            ["is replaced once: this is a second store into it"],
        ),
        (
            """\
        with s_dfb.wait() as s:
            n = ttl.node(dims=1)
            if n == 0:
                s.store(s + s)  # ERROR
            with y_dfb.reserve() as o:
                o.store(s)
""",
            1,
            1,
            ["inside an if or a loop", "straight-line code"],
        ),
        (
            """\
        with s_dfb.wait() as s:
            s.store(ttl.block.fill(1.0, shape=(1, 1)))  # ERROR
            with y_dfb.reserve() as o:
                o.store(s)
""",
            1,
            1,
            ["does not read it", "computed from its original contents"],
        ),
    ],
    ids=["two-blocks", "not-first-access", "in-a-loop", "second-store", "in-an-if", "no-read"],
)
def test_a_store_the_spec_does_not_allow_is_an_error_at_its_line(
    compile_error, compute, count, reads, words
):
    src = _source(compute, count, reads)
    if "# ERROR" not in src:
        src = src.replace("            s.store(s + s)\n", "            s.store(s + s)  # ERROR\n")
    err = compile_error(src, "op", SPECS)
    for w in words:
        assert w in err.message, err.render()


def test_without_compiler_dfbs_a_replacement_is_an_error(compile_error):
    src = _source().replace("            s.store(s + s)\n", "            s.store(s + s)  # ERROR\n")
    src = src.replace(
        "@ttl.operation(grid=(1, 1))",
        '@ttl.operation(grid=(1, 1), options="--no-ttl-compiler-dfbs")',
    )
    err = compile_error(src, "op", SPECS)
    assert "needs a compiler-made DFB" in err.message
