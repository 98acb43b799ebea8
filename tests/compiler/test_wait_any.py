"""``ttl.wait_any`` and receive requests (spec v0.21, "Selecting among completed
receives"), pipe copies with a ``ttl.Pipe`` under ``is_src()`` / ``is_dst()`` guards,
and their errors.

"The caller supplies a nonempty ordered tuple of distinct receive requests and a
starting index. The starting index is normalized modulo the tuple length.
Candidates are inspected in cyclic tuple order beginning at that index, and the
first completed candidate in that order is selected. [...] The returned value
establishes completion only for the selected request. Nonselected requests remain
pending with their destination DFB reservations and may be included in a later
`ttl.wait_any` call or awaited directly."

Run on both targets, selecting by cyclic order, by tests/programs/wait_any_select.py;
the run-time guard of a copy with a ``ttl.Pipe`` by
tests/runtime/jit/test_pipes_guarded.py.
"""

from __future__ import annotations

import pytest
from compiler_testlib import parse_ir

SPECS = {"x": "bf16[32,64]", "out": "bf16[32,32]"}

SOURCE = """
import ttl

@ttl.operation(grid=(3, 1))
def op(x, out):
    first_pipe = ttl.Pipe(src=(0, 0), dst=(2, 0))
    second_pipe = ttl.Pipe(src=(1, 0), dst=(2, 0))
    first_net = ttl.PipeNet([first_pipe])
    second_net = ttl.PipeNet([second_pipe])
{top}
    send_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    first_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)
    second_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def send():
        node_x, _ = ttl.node(dims=2)
        if first_net.is_src() or second_net.is_src():
            with send_dfb.reserve() as blk:
                ttl.copy(x[0, node_x], blk).wait()
        if first_net.is_src():
            with send_dfb.wait() as blk:
                ttl.copy(blk, first_pipe).wait()
        if second_net.is_src():
            with send_dfb.wait() as blk:
                ttl.copy(blk, second_pipe).wait()

    @ttl.datamovement()
    def receive():
        if first_net.is_dst():
            a = first_dfb.reserve()
            b = second_dfb.reserve()
            ra = ttl.copy(first_pipe, a)
            rb = ttl.copy(second_pipe, b)
{body}
            ra.wait()
            rb.wait()
            ttl.copy(a, out[0, 0]).wait()
            a.push()
            b.push()
        if first_net.is_dst():
            with first_dfb.wait():
                pass
            with second_dfb.wait():
                pass
"""

SELECT = """\
            ready = ttl.wait_any((ra, rb), start=1)
            k = ready.index()
"""


def _source(body: str = SELECT, top: str = "") -> str:
    indent = lambda text, n: "".join(" " * n + ln + "\n" for ln in text.splitlines())  # noqa: E731
    return SOURCE.replace("{body}\n", body).replace("{top}\n", indent(top, 4))


def test_wait_any_lowers_to_one_selection_that_takes_the_receive_once(compile_source):
    result = compile_source(_source(), "op", SPECS)
    ir = result.ir
    assert "ttl.wait_any(%" in ir and "start %" in ir
    parse_ir(ir).verify()  # prints and parses back
    cpp = result.sources["receive.cpp"]
    # Each selectable receive has a flag: taken by wait_any or its wait(), not twice.
    assert cpp.count("bool request_done") == 2
    assert "const int32_t first = ((1 % 2) + 2) % 2;" in cpp
    assert "invalidate_l1_cache();" in cpp  # a polling loop, as TT-Metal kernels poll
    assert cpp.count("if (!request_done") == 4  # in wait_any and in each wait()
    # A copy with a ttl.Pipe checks this node's role at run time (TT-Metal's ASSERT).
    assert '#include "api/debug/assert.h"' in cpp
    assert 'ASSERT(node_is_pipe_destination && "this node must be a destination of ' in cpp
    assert "ASSERT(node_is_pipe_source && " in result.sources["send.cpp"]


def test_a_block_used_after_wait_any_takes_its_receive_first(compile_source):
    """ "A destination block may be accessed or published only in control flow that
    proves its request was selected" (the spec's example pushes the selected block with
    no wait()): a use waits for it, a no-op where wait_any took it."""
    body = (
        SELECT
        + """\
            if k == 0:
                ttl.copy(a, out[0, 0]).wait()
            if k == 1:
                ttl.copy(b, out[0, 0]).wait()
"""
    )
    cpp = compile_source(_source(body), "op", SPECS).sources["receive.cpp"]
    # The two cases cover the index: one if/else, each branch taking its receive first.
    selection = cpp[cpp.index("const bool v_5 = completed == 0;") :]
    then, other = selection.split("} else {", 1)
    assert then.index("if (!request_done)") < then.index(
        "noc_async_write_page(0, tensor_out, a_addr)"
    )
    assert other.index("if (!request_done_1)") < other.index("tensor_out, b_addr")
    # 2 in wait_any, 1 per branch, 2 for the waits after the if (taken once at run time).
    assert cpp.count("if (!request_done") == 6


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("            ready = ttl.wait_any(())  # ERROR\n", "nonempty tuple of receive requests"),
        ("            ready = ttl.wait_any((ra, ra))  # ERROR\n", "must be distinct"),
        (
            "            ready = ttl.wait_any((ra, a))  # ERROR\n",
            "selects among receive requests",
        ),
        (
            "            ra.wait()\n            ready = ttl.wait_any((ra, rb))  # ERROR\n",
            "was already waited on",
        ),
        (
            "            ready = ttl.wait_any((ra, rb), start=1.5)  # ERROR\n",
            "the start of ttl.wait_any is an integer",
        ),
        (
            "            ready = ttl.wait_any((ra, rb), start=0, timeout=1)  # ERROR\n",
            "unexpected keyword argument 'timeout'",
        ),
    ],
    ids=["empty", "duplicate", "block", "waited", "float-start", "keyword"],
)
def test_bad_wait_any_calls_are_errors_at_their_line(compile_error, body, message):
    err = compile_error(_source(body), "op", SPECS)
    assert message in err.message, err.render()


def test_wait_any_in_a_compute_kernel_is_an_error(compile_error):
    source = _source().replace(
        "    @ttl.datamovement()\n    def receive():",
        "    @ttl.compute()\n    def c():\n        ttl.wait_any(())  # ERROR\n\n"
        "    @ttl.datamovement()\n    def receive():",
    )
    err = compile_error(source, "op", SPECS)
    assert "only allowed in data-movement kernels" in err.message


@pytest.mark.parametrize(
    ("top", "old", "new", "message"),
    [
        (
            "loose = ttl.Pipe(src=(0, 0), dst=(1, 0))",
            "ra = ttl.copy(first_pipe, a)",
            "ra = ttl.copy(loose, a)  # ERROR",
            "belongs to no pipe net of operation 'op'",
        ),
        (
            "again = ttl.PipeNet([first_pipe])",
            "ttl.copy(blk, first_pipe).wait()",
            "ttl.copy(blk, first_pipe).wait()  # ERROR",
            "belongs to 2 pipe nets",
        ),
        (
            "",
            "ra = ttl.copy(first_pipe, a)",
            "ra = ttl.copy(first_net, a)  # ERROR",
            "takes one pipe, not a pipe net",
        ),
    ],
    ids=["no-net", "two-nets", "a-net"],
)
def test_a_copy_with_a_pipe_it_cannot_place_is_an_error(compile_error, top, old, new, message):
    err = compile_error(_source(top=top).replace(old, new), "op", SPECS)
    assert message in err.message, err.render()


UNIFIED = """
import ttl

@ttl.operation(grid=(3, 1))
def pick(x, out):
    p0 = ttl.Pipe(src=(0, 0), dst=(2, 0))
    p1 = ttl.Pipe(src=(1, 0), dst=(2, 0))
    n0 = ttl.PipeNet([p0])
    n1 = ttl.PipeNet([p1])
    s = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    l0 = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)
    l1 = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)
    node_x, _ = ttl.node(dims=2)
    if n0.is_src() or n1.is_src():
        with s.reserve() as blk:
            ttl.copy(x[0, node_x], blk).wait()
    if n0.is_src():
        with s.wait() as blk:
            ttl.copy(blk, p0).wait()
    if n1.is_src():
        with s.wait() as blk:
            ttl.copy(blk, p1).wait()
    if n0.is_dst():
        a = l0.reserve()
        b = l1.reserve()
        ra = ttl.copy(p0, a)
        rb = ttl.copy(p1, b)
        ready = ttl.wait_any((ra, rb))
        k = ready.index()
        if k == 0:
            ttl.copy(a, out[0, 0]).wait()
        elif k == 1:
            ttl.copy(b, out[0, 0]).wait()
        ra.wait()
        rb.wait()
        a.push()
        b.push()
        w0 = l0.wait()
        w0.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)
        w1 = l1.wait()
        w1.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)
"""


def test_wait_any_in_a_unified_body_goes_to_data_movement(compile_source):
    """Spec v0.19 thread assignment: the selection and its index are data movement."""
    result = compile_source(UNIFIED, "pick", {"x": "bf16[32,64]", "out": "bf16[32,32]"})
    movement = result.sources["data_movement.cpp"]
    assert "int32_t completed = -1;" in movement and "completed == 0" in movement
    assert "completed" not in result.sources.get("compute.cpp", "")


def test_cases_that_do_not_cover_every_request_are_ifs_as_written(compile_error):
    """Only cases that cover every index of the selection make one if/else: with a case
    missing, a block released in one case is released on one path only."""
    source = _source(
        SELECT
        + """\
            if k == 0:  # ERROR
                ra.wait()
                a.push()
"""
    ).replace("            ttl.copy(a, out[0, 0]).wait()\n            a.push()\n", "")
    err = compile_error(source, "op", SPECS)
    assert "is released on only one branch of this if" in err.message, err.render()


def test_a_wait_after_a_use_took_the_receive_is_a_no_op(compile_source):
    """A use of a block wait_any may not have taken waits for its receive: the program's
    own wait() on that request afterwards is a no-op, not a second wait (found by a
    new-user trial)."""
    body = SELECT + "            ttl.copy(b, out[0, 0]).wait()\n"
    cpp = compile_source(_source(body), "op", SPECS).sources["receive.cpp"]
    tail = cpp[cpp.index("tensor_out, b_addr") :]
    assert "if (!request_done_1)" not in tail  # rb.wait() after the copy emits nothing


def test_two_receives_from_one_pipe_are_not_selected_between(compile_error):
    source = _source("            ready = ttl.wait_any((ra, rb))  # ERROR\n").replace(
        "rb = ttl.copy(second_pipe, b)", "rb = ttl.copy(first_pipe, b)"
    )
    err = compile_error(source, "op", SPECS)
    assert "receive from the same pipe, ttl.Pipe(src=(0, 0), dst=(2, 0))" in err.message
