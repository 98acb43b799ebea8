"""Block states (spec "Block states": MW, MR, RW, ROR, NAW, OS), checked statically.

Each violation is a located error naming the state and the transition.
"""

from __future__ import annotations

import pytest

SPECS = {"a": "bf16[32,32]", "y": "bf16[32,32]"}

PROGRAM = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
{compute}

    @ttl.datamovement()
    def read():
{read}

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()
"""

COMPUTE_OK = """\
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk)
"""
READ_OK = """\
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()
"""


def _src(compute: str = COMPUTE_OK, read: str = READ_OK) -> str:
    return PROGRAM.format(compute=compute.rstrip("\n"), read=read.rstrip("\n"))


@pytest.mark.parametrize(
    ("compute", "read", "words"),
    [
        (  # MW: a reserved block read before it is written
            """\
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + y_blk)  # ERROR
""",
            READ_OK,
            ["block state MW", "reserve() -> read"],
        ),
        (  # MR: writing a waited block
            """\
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            a_blk.store(a_blk)  # ERROR
            y_blk.store(a_blk)
""",
            READ_OK,
            ["block state MR", "wait() -> store"],
        ),
        (  # OS: use after pop
            """\
        a_blk = a_dfb.wait()
        a_blk.pop()
        with y_dfb.reserve() as y_blk:
            y_blk.store(a_blk)  # ERROR
""",
            READ_OK,
            ["block state OS", "pop() -> any use"],
        ),
        (  # OS: use after push (data movement)
            COMPUTE_OK,
            """\
        a_blk = a_dfb.reserve()
        a_blk.push()
        ttl.copy(a[0, 0], a_blk).wait()  # ERROR
""",
            ["block state OS", "push() -> any use"],
        ),
        (  # NAW: released while a copy into it is in flight
            COMPUTE_OK,
            """\
        a_blk = a_dfb.reserve()
        tx = ttl.copy(a[0, 0], a_blk)
        a_blk.push()  # ERROR
        tx.wait()
""",
            ["block state NAW", "push() before the transfer's wait()"],
        ),
    ],
)
def test_block_state_violations(compile_error, compute, read, words):
    err = compile_error(_src(compute, read), "op", SPECS)
    for w in words:
        assert w in err.render(), err.render()


def test_ror_release_while_reading(compile_error):
    src = _src().replace(
        """        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()""",
        """        y_blk = y_dfb.wait()
        tx = ttl.copy(y_blk, y[0, 0])
        y_blk.pop()  # ERROR
        tx.wait()""",
    )
    err = compile_error(src, "op", SPECS)
    assert "block state ROR" in err.render() and "pop() before" in err.render()


def test_copy_into_waited_block_is_mr(compile_error):
    src = _src().replace(
        """        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()""",
        """        with y_dfb.wait() as y_blk:
            ttl.copy(y[0, 0], y_blk).wait()  # ERROR""",
    )
    err = compile_error(src, "op", SPECS)
    assert "block state MR" in err.render()


def test_legal_lifecycle_compiles(compile_source):
    compile_source(_src(), "op", SPECS)
