"""Pipes and pipe nets: lowering to NOC writes and semaphores, and every bad-input diagnostic."""

from __future__ import annotations

import pytest

SPECS = {"a": "bf16[128,128]", "y": "bf16[128,128]"}

# A 4x4 scatter-gather net (every node multicasts to its column, itself included);
# {net}, {send} and {recv} are replaced by the tests.
PROGRAM = """
import ttl

@ttl.operation(grid=(4, 4))
def op(a, y):
    gx, gy = ttl.grid_size()
    net = ttl.PipeNet({net})
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    wide = ttl.make_dataflow_buffer_like(a, shape=(1, 2))

    @ttl.datamovement()
    def dm():
        x, row = ttl.node(dims=2)
        with dfb.reserve() as blk:
            ttl.copy(a[row, x], blk).wait()

            def pipe_src(pipe):
                {send}

            def pipe_dst(pipe):
                {recv}

            net.if_src(pipe_src)
            net.if_dst(pipe_dst)

    @ttl.datamovement()
    def out():
        x, row = ttl.node(dims=2)
        with dfb.wait() as blk:
            ttl.copy(blk, y[row, x]).wait()
"""
COLUMN_NET = "[ttl.Pipe(src=(x, r), dst=(x, slice(0, gy))) for x in range(gx) for r in range(gy)]"
SEND = "ttl.copy(blk, pipe).wait()"
RECV = "ttl.copy(pipe, blk).wait()"


def program(net: str = COLUMN_NET, send: str = SEND, recv: str = RECV) -> str:
    return PROGRAM.format(net=net, send=send, recv=recv)


def test_scatter_gather_lowers_to_loopback_multicast(compile_source):
    result = compile_source(program(), "op", SPECS)
    files = result.files()
    ir = next(text for name, text in files.items() if name.endswith(".mlir"))
    assert ir.count("ttl.pipe_send") == 16 and ir.count("ttl.pipe_recv") == 16
    cpp = files["dm.cpp"]
    # A column's four pipes share destinations: four slots, each with its landing buffer.
    assert (
        "noc_async_write_multicast_loopback_src(blk_addr, get_noc_multicast_addr(noc_x_of(0), "
        "noc_y_of(0), noc_x_of(0), noc_y_of(3)" in cpp
    )
    assert "noc_semaphore_set_multicast_loopback_src(get_semaphore(0)" in cpp
    assert "noc_semaphore_wait(pipe_valid, 1);" in cpp
    # One constant, then (pending, valid) per slot, numbered from 0.
    names = ["pipe_one"] + [f"pipe{s}_{w}" for s in range(4) for w in ("pending", "valid")]
    assert result.manifest["semaphores"] == [
        {"name": n, "index": i, "initial_value": int(n == "pipe_one")} for i, n in enumerate(names)
    ]
    landings = [d["name"] for d in result.manifest["logical_dfbs"] if "pipe_landing" in d["name"]]
    assert len(landings) == 4


def test_unicast_pipe_uses_noc_write_and_semaphore_increment(compile_source):
    net = "[ttl.Pipe(src=(x, r), dst=(x, (r + 1) % gy)) for x in range(gx) for r in range(gy)]"
    cpp = compile_source(program(net=net), "op", SPECS).files()["dm.cpp"]
    assert (
        "noc_async_write(blk_addr, get_noc_addr(noc_x_of(0), noc_y_of(1), "
        "get_write_ptr(dfb_pipe_landing0)), 2048);" in cpp
    )
    assert (
        "noc_semaphore_inc(get_noc_addr(noc_x_of(0), noc_y_of(1), get_semaphore(2)), 1);  "
        "// data valid"
    ) in cpp
    assert "multicast" not in cpp


def test_operation_without_pipe_copies_declares_no_semaphores(compile_source):
    source = program(send="pass", recv="pass")
    assert "semaphores" not in compile_source(source, "op", SPECS).manifest


def test_pipe_copy_outside_condition_body(compile_error):
    """A net is no copy end; a ttl.Pipe outside a condition body is (tests/compiler/
    test_wait_any.py), guarded by the program."""
    err = compile_error(program(send="ttl.copy(blk, net).wait()  # ERROR"), "op", SPECS)
    assert "a pipe copy takes one pipe, not a pipe net" in err.message
    assert "net.if_src" in err.hint


def test_pipe_copy_in_the_wrong_direction(compile_error):
    err = compile_error(program(send="ttl.copy(pipe, blk).wait()  # ERROR"), "op", SPECS)
    assert "in an if_src condition body this node is the pipe's source" in err.message


def test_mismatched_send_and_receive_shapes(compile_error):
    recv = "with wide.reserve() as w:\n                    ttl.copy(pipe, w).wait()  # ERROR"
    err = compile_error(program(recv=recv), "op", SPECS)
    assert "ttl.Pipe(src=(0, 0), dst=(0, slice(0, 4)))" in err.message
    assert "is bf16 of shape (1, 2) but the block sent into it on line 17" in err.message
    assert "is bf16 of shape (1, 1)" in err.message


def test_destination_without_source(compile_error):
    # The block is written only by what it receives (no tensor copy first: state MR).
    source = program(send="pass", recv=RECV + "  # ERROR")
    source = source.replace("ttl.copy(a[row, x], blk).wait()", "pass")
    err = compile_error(source, "op", SPECS)
    assert "no kernel copies a block into it" in err.message
    assert "if_src" in err.hint


@pytest.mark.parametrize(
    "net,message",
    [
        ("[ttl.Pipe(src=(4, 0), dst=(0, 0))]", "pipe source node (4, 0) is outside the 4x4 grid"),
        ("[ttl.Pipe(src=(0, 0), dst=(0, 7))]", "pipe destination node (0, 7) is outside"),
        ("[ttl.Pipe(src=16, dst=0)]", "pipe source node 16 is outside the 4x4 grid"),
        ("[ttl.Pipe(src=(0, 0), dst=(0, slice(2, 1)))]", "malformed node range: y slice(2, 1)"),
        ("[ttl.Pipe(src=(0, 0), dst=(slice(0, 4, 2), 0))]", "must have integer bounds and no step"),
        ("[ttl.Pipe(src=(0, 0), dst=(0, slice(0, 5)))]", "leaves the grid"),
        ("[ttl.Pipe(src=(0, 0), dst=(0, 0, slice(0, 1)))]", "one entry per grid dimension"),
        ("[ttl.Pipe(src=(0, 0), dst=(0, 'a'))]", "pipe destination must be a node coordinate"),
        (  # 1-D node indices x * 4 + y: 3..5 are (0, 3), (1, 0), (1, 1), no rectangle
            "[ttl.Pipe(src=(0,), dst=(slice(3, 6),))]",
            "the 1-D node range slice(3, 6) is not a rectangle of the 4x4 grid",
        ),
        ("[ttl.Pipe(src=(16,), dst=0)]", "pipe source node 16 is outside the 4x4 grid"),
        ("[]", "ttl.PipeNet takes a non-empty list of ttl.Pipe"),
        ("[(0, 0)]", "ttl.PipeNet takes ttl.Pipe objects"),
    ],
)
def test_bad_pipe_endpoints(compile_error, net, message):
    source = program(net=net).replace(f"ttl.PipeNet({net})", f"ttl.PipeNet({net})  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert message in err.message


@pytest.mark.parametrize("params", ["", "pipe, other", "pipe=None", "*pipes"])
def test_condition_body_with_wrong_signature(compile_error, params):
    source = program().replace("def pipe_src(pipe):", f"def pipe_src({params}):  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert "must take exactly one parameter, the pipe" in err.message


def test_if_src_needs_a_local_condition_body(compile_error):
    source = program().replace("net.if_src(pipe_src)", "net.if_src(blk)  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert "if_src() takes a condition body defined in this kernel" in err.message


def test_pipe_net_in_compute_kernel(compile_error):
    source = """
import ttl

@ttl.operation(grid=(2, 1))
def op(a, y):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, 0))])
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.compute()
    def compute():
        def body(pipe):
            pass

        net.if_src(body)  # ERROR
"""
    err = compile_error(source, "op", SPECS)
    assert "if_src() on a pipe net is only allowed in data-movement kernels" in err.message


def test_if_dst_at_operation_scope(compile_error):
    source = """
import ttl

@ttl.operation(grid=(2, 1))
def op(a, y):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, 0))])
    net.if_dst(print)  # ERROR
"""
    err = compile_error(source, "op", SPECS)
    assert "if_dst() on a pipe net can only be used inside a data-movement kernel" in err.message
