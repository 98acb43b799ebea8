"""DFB allocation groups (spec v0.21, "Dataflow buffer"): members share one physical
index and the largest member's allocation once the compiler has proved their accesses
ordered (``ttl-check-allocation-groups``), and a located error otherwise.

"Members must use compatible element and page formats and storage kinds [...].
Their accesses must not overlap on any node, each access must complete before another
member uses the allocation, and queue transactions must preserve compatible read and
write pointer positions at every handoff. Scratch members may have different block
shapes and counts; their shared allocation uses the greatest required byte capacity.
[...] An allocation group does not synchronize execution or reset DFB state."

Run on both targets by tests/programs/allocation_groups.py.
"""

from __future__ import annotations

import ast

import pytest

SPECS = {"a": "bf16[32,128]", "y": "bf16[32,64]", "f": "f32[32,32]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y, f):
    group = ttl.make_dfb_allocation_group()
    first = ttl.make_dataflow_buffer_like(a, shape={first_shape}, block_count={first_count},
                                          allocation_group=group)
    second = ttl.make_dataflow_buffer_like({second_like}, shape={second_shape}, block_count=4,
                                           allocation_group=group)
    handoff = ttl.make_dfb("bf16", shape=(1, 1), block_count=1)
    out = ttl.make_dataflow_buffer_like(y, shape={second_shape}, block_count=2)

    @ttl.datamovement()
    def read():
        with first.reserve() as blk:
            ttl.copy(a[0:1, 0:{first_tiles}], blk).wait()
{handoff_wait}
        for t in range(4):
            with second.reserve() as blk:
                ttl.copy(a[0:1, 0:{second_tiles}], blk).wait()

    @ttl.compute()
    def compute():
        with first.wait():
            pass
        with handoff.reserve() as done:
            done.store(ttl.block.fill(0.0, shape=(1, 1)))
        for t in range(4):
            with second.wait() as blk, out.reserve() as o:
                o.store(blk)

    @ttl.datamovement()
    def write():
        for t in range(4):
            with out.wait() as blk:
                ttl.copy(blk, y[0:1, 0:{second_tiles}]).wait()
"""

WAIT = """\
        with handoff.wait():
            pass
"""


def _source(
    first_shape: str = "(1, 2)",
    first_count: int = 1,
    second_like: str = "a",
    handoff_wait: str = WAIT,
    second_shape: str = "(1, 1)",
) -> str:
    return SOURCE.format(
        first_shape=first_shape,
        first_count=first_count,
        second_like=second_like,
        first_tiles=ast.literal_eval(first_shape)[1],
        second_shape=second_shape,
        second_tiles=ast.literal_eval(second_shape)[1],
        handoff_wait=handoff_wait.rstrip("\n"),
    )


def test_members_share_one_index_with_the_largest_allocation(compile_source):
    result = compile_source(_source(), "op", SPECS)
    logical = {f["name"]: f["physical_index"] for f in result.manifest["logical_dfbs"]}
    assert logical["first"] == logical["second"]
    assert len({logical["first"], logical["handoff"], logical["out"]}) == 3
    (shared,) = (f for f in result.manifest["dfbs"] if f["physical_index"] == logical["first"])
    # The greatest byte capacity: 4 one-tile blocks, not the first member's one 2-tile block.
    assert (shared["name"], shared["pages_per_block"], shared["block_count"]) == ("second", 1, 4)
    assert len(result.manifest["dfbs"]) == 3  # one index saved
    placement = result.plan["dfbs"]
    (second,) = (p for p in placement if p["name"] == "second")
    assert "members of one DFB allocation group" in second["allocation"]["reason"]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (
            {"handoff_wait": ""},  # the reader reserves `second` with no handoff
            ["cannot prove that every access of one completes before the other"],
        ),
        ({"second_like": "f"}, ["one element type, layout and page size"]),
        (
            {"first_shape": "(1, 3)"},  # 3-page blocks in a ring of 4 pages
            ["DFB 'first'", "a ring of 4 pages holds no whole number of its 3-page blocks"],
        ),
        (
            {"first_shape": "(1, 1)", "second_shape": "(1, 2)"},  # `second` starts at page 1
            ["DFB 'second'", "would start at page 1 of the ring", "not on a block boundary"],
        ),
    ],
    ids=["no-handoff", "other-dtype", "ring", "start"],
)
def test_a_group_the_compiler_cannot_prove_is_an_error_at_a_member(compile_error, kwargs, words):
    err = compile_error(_source(**kwargs), "op", SPECS)
    for w in words:
        assert w in err.message, err.render()


def test_a_group_of_one_dfb_is_an_ordinary_dfb(compile_source):
    source = _source().replace(
        "    second = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=4,\n"
        "                                           allocation_group=group)",
        "    second = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=4)",
    )
    result = compile_source(source, "op", SPECS)
    assert len(result.manifest["dfbs"]) == 4
