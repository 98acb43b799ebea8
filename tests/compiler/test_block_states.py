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
        ttl.copy(a[0, 0], a_blk).wait()
        a_blk.push()
        ttl.copy(a[0, 0], a_blk).wait()  # ERROR
""",
            ["block state OS", "push() -> any use"],
        ),
        (  # MW: a reserved block pushed without being stored into (compute)
            """        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:  # ERROR
            z = a_blk * 2.0
""",
            READ_OK,
            ["block 'y_blk' is pushed without being written", "block state MW", "y_blk.store("],
        ),
        (  # MW: the name of a reserved block rebound instead of stored into
            """        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk = a_blk * 2.0  # ERROR
""",
            READ_OK,
            ["rebinds the name of the block reserved on line", "y_blk.store(a_blk * 2.0)"],
        ),
        (  # MW: a reserved block pushed without a copy into it (data movement)
            COMPUTE_OK,
            """        a_blk = a_dfb.reserve()
        a_blk.push()  # ERROR
""",
            ["block state MW", "ttl.copy(<tensor slice>, a_blk)"],
        ),
        (  # a second wait() while the first waited block is held
            """        with a_dfb.wait() as first:
            with a_dfb.wait() as second:  # ERROR
                with y_dfb.reserve() as y_blk:
                    y_blk.store(first + second)
""",
            READ_OK,
            ["wait() on 'a_dfb' while block 'first'", "one waited block of a DFB"],
        ),
        (  # a second reserve() while the first reserved block is held
            """        with a_dfb.wait() as a_blk, y_dfb.reserve() as o1:
            with y_dfb.reserve() as o2:  # ERROR
                o1.store(a_blk)
                o2.store(a_blk)
""",
            READ_OK,
            ["reserve() on 'y_dfb' while block 'o1'", "release block 'o1' first"],
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


@pytest.mark.parametrize(
    ("access", "what"),
    [
        ("ttl.copy(a_blk, y[0, 0]).wait()", "a copy from it"),
        ("ttl.copy(a[0, 0], a_blk).wait()", "a copy into it"),
        ("print(a_blk)", "print()"),
    ],
)
def test_access_while_a_copy_into_the_block_is_in_flight_is_naw(compile_error, access, what):
    """Spec state NAW (No Access while Writing): tt-lang-sim rejects these at run time;
    on the emulator the copy completed at once, so the race went unseen."""
    read = f"""\
        with a_dfb.reserve() as a_blk:
            tx = ttl.copy(a[0, 0], a_blk)
            {access}  # ERROR
            tx.wait()
"""
    err = compile_error(_src(read=read), "op", SPECS)
    line = err.loc.line - 1  # the copy is on the line before the access
    assert (
        f"is accessed while a copy into it is in flight (the ttl.copy at line {line}) "
        "(block state NAW, No Access while Writing" in err.message
    )
    assert f"{what} before the transfer's wait()" in err.message
    assert "call .wait() on the transfer of ttl.copy(..., a_blk) first" in err.hint


def test_a_store_while_a_copy_uses_the_block_names_the_lock_and_the_copy(compile_error):
    # Upstream's examples/errors/copy_lock_error.py and copy_source_lock_error.py store
    # into a block (in a data-movement kernel, too) while a copy into or out of it is in
    # flight: the copy's lock is the error, with the line of the copy.
    into = """\
        with a_dfb.reserve() as a_blk:
            tx = ttl.copy(a[0, 0], a_blk)
            a_blk.store(a_blk)  # ERROR
            tx.wait()
"""
    err = compile_error(_src(read=into), "op", SPECS)
    assert err.message.endswith("before the transfer's wait() is not a transition): a copy lock")
    out_of = """\
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()
            tx = ttl.copy(a_blk, a[0, 0])
            a_blk.store(a_blk)  # ERROR
            tx.wait()
"""
    err = compile_error(_src(read=out_of), "op", SPECS)
    line = err.loc.line - 1
    assert err.message == (
        f"block 'a_blk' is written while a copy out of it is in flight (the ttl.copy at line "
        f"{line}) (block state ROR, Read Only while Reading: store before the transfer's wait() "
        "is not a transition): a copy source lock"
    )
    assert err.hint == "call .wait() on the transfer of ttl.copy(a_blk, ...) first"


def test_a_copy_into_a_waited_block_says_it_deadlocks(compile_error):
    # Upstream's examples/errors/eltwise_add_deadlock.py: the reader wait()s on the DFBs
    # it should fill; nothing pushes them.
    read = """\
        with a_dfb.wait() as a_blk:  # ERROR
            ttl.copy(a[0, 0], a_blk).wait()
"""
    err = compile_error(_src(read=read), "op", SPECS)
    assert err.message == (
        "a_dfb.wait() takes a block another kernel filled and pushed, but this kernel copies "
        f"into block 'a_blk' at line {err.loc.line + 1} (block state MR, Must be Read: wait() "
        "-> copy into it is not a transition); unless another kernel pushes 'a_dfb', this "
        "wait() blocks forever, a deadlock"
    )
    assert err.hint.startswith("acquire the block you fill with a_dfb.reserve()")


@pytest.mark.parametrize(
    ("compute", "read", "what"),
    [
        (
            """\
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk)
            y_blk.store(a_blk * 2.0)  # ERROR
""",
            READ_OK,
            "a store after a write",
        ),
        (
            COMPUTE_OK,
            """\
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()
            ttl.copy(a[0, 0], a_blk).wait()  # ERROR
""",
            "a copy into it after a write",
        ),
    ],
    ids=["store twice", "copy into twice"],
)
def test_a_block_written_again_before_it_is_read_is_mr(compile_error, compute, read, what):
    """Spec state MR (Must be Read): the first write would be lost; tt-lang-sim rejects it."""
    err = compile_error(_src(compute, read), "op", SPECS)
    assert "is written again before it is read (block state MR" in err.message
    assert what in err.message


def test_writes_on_separate_branches_or_after_a_read_compile(compile_source):
    compute = """\
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            if ttl.node(dims=1) == 0:
                y_blk.store(a_blk)
            else:
                y_blk.store(a_blk * 2.0)
            y_blk.store(y_blk + a_blk)
"""
    compile_source(_src(compute), "op", SPECS)


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
        """        with y_dfb.wait() as y_blk:  # ERROR (reported at the wait())
            ttl.copy(y[0, 0], y_blk).wait()""",
    )
    err = compile_error(src, "op", SPECS)
    assert "block state MR" in err.render()


def test_legal_lifecycle_compiles(compile_source):
    compile_source(_src(), "op", SPECS)


def test_a_block_written_on_some_path_may_be_pushed(compile_source):
    """Writes under a runtime condition count (as pipe condition bodies write): only a
    block no path writes is an MW error."""
    read = """\
        with a_dfb.reserve() as a_blk:
            if ttl.node(dims=1) == 0:
                ttl.copy(a[0, 0], a_blk).wait()
"""
    compile_source(_src(read=read), "op", SPECS)


def test_blocks_held_one_after_another_compile(compile_source):
    compute = """\
        for _ in range(2):
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk)
"""
    read = """\
        for i in range(2):
            with a_dfb.reserve() as a_blk:
                ttl.copy(a[0, 0], a_blk).wait()
"""
    compile_source(
        _src(compute, read).replace(
            """        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()""",
            """        for _ in range(2):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[0, 0]).wait()""",
        ),
        "op",
        SPECS,
    )
