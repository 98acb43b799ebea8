"""Semaphores, group transfers and ``ttl.node()`` at operation scope: IR, C++, manifest
and the located errors of bad uses (spec "Semaphore", "Group transfer", "Node function")."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

SPECS = {"x": "bf16[32,128]", "y": "bf16[32,128]"}

PROGRAM = """\
import ttl


@ttl.operation(grid=(4, 1))
def op(x, y):
    node_num = ttl.node(dims=1)
    last = ttl.grid_size(dims=1) - 1
    neighbour = (node_num + 1) % ttl.grid_size(dims=1)
    ready = ttl.Semaphore()
    count = ttl.Semaphore(initial_value=3)
    to_next = ready.get_remote((neighbour, 0))
    to_all = count.get_remote_multicast()
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
{body}
"""


def _program(body: str) -> str:
    return PROGRAM.format(body="\n".join("        " + line for line in body.splitlines()))


def test_semaphore_ops_in_ir_cpp_and_manifest(compile_source):
    body = """\
ready.wait_eq(1)
count.wait_ge(last)
ready.set(0)
to_next.inc(2)
to_next.set(node_num)
to_all.set(4)"""
    result = compile_source(_program(body), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.semaphore @ready {index = 0 : i64, initial_value = 0 : i64}
        CHECK: ttl.semaphore @count {index = 1 : i64, initial_value = 3 : i64}
        CHECK: ttl.semaphore @dm__staging {index = 2 : i64, initial_value = 0 : i64}
        CHECK: ttl.semaphore_wait @ready, %{{.*}}
        CHECK: ttl.semaphore_wait @count, %{{.*}} {minimum}
        CHECK: ttl.semaphore_set @ready
        CHECK: ttl.semaphore_remote @ready[%{{.*}}, %{{.*}}], %{{.*}} {action = "inc"}
        CHECK: ttl.semaphore_remote @ready[{{.*}}], %{{.*}} {action = "set", staging = @dm__staging}
        CHECK: ttl.semaphore_multicast @count[{{.*}}], %{{.*}} {staging = @dm__staging}
        """,
    )
    filecheck(
        result.sources["dm.cpp"],
        """
        CHECK: const uint32_t sem_ready = get_semaphore(0);
        CHECK: volatile uint32_t* const sem_ready_ptr = reinterpret_cast<{{.*}}>(sem_ready);
        CHECK: noc_semaphore_wait(sem_ready_ptr, 1);
        CHECK: noc_semaphore_wait_min(sem_count_ptr, 3);
        CHECK: noc_semaphore_set(sem_ready_ptr, 0);
        CHECK: static const int32_t ready_x_by_node[4] = {1, 2, 3, 0};
        CHECK: const int32_t ready_x = ready_x_by_node[
        CHECK-SAME: get_relative_logical_y() * 4 + get_relative_logical_x()];
        CHECK: noc_semaphore_inc(get_noc_addr(noc_x_of(ready_x), noc_y_of(0), sem_ready), 2);
        CHECK: noc_semaphore_set(sem_dm__staging_ptr, node_x);
        CHECK: noc_semaphore_set_remote(sem_dm__staging,
        CHECK-SAME: get_noc_addr(noc_x_of({{.*}}), noc_y_of(0), sem_ready));
        CHECK-NEXT: noc_async_write_barrier();
        CHECK: noc_semaphore_set_multicast(sem_dm__staging,
        CHECK-SAME: get_noc_multicast_addr(noc_x_of(0), noc_y_of(0), noc_x_of(3), noc_y_of(0),
        CHECK-SAME: sem_count), 4 - 1);
        CHECK: noc_semaphore_set(sem_count_ptr, 4);
        """,
    )
    assert result.manifest["semaphores"] == [
        {"name": "ready", "index": 0, "initial_value": 0},
        {"name": "count", "index": 1, "initial_value": 3},
        {"name": "dm__staging", "index": 2, "initial_value": 0},
    ]


def test_node_at_operation_scope_is_affine_arithmetic_or_a_table(compile_source):
    body = """\
with dfb.reserve() as blk:
    ttl.copy(x[0, node_num], blk).wait()
    ttl.copy(blk, y[0, neighbour]).wait()"""
    cpp = compile_source(_program(body), "op", SPECS).sources["dm.cpp"]
    assert "noc_async_read_page(node_x, tensor_x" in cpp  # node_num = x on a 4x1 grid
    assert "static const int32_t neighbour_by_node[4] = {1, 2, 3, 0};" in cpp


GROUP = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(x, y):
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        with dfb.reserve() as blk:
{body}
            ttl.copy(blk, y[0, 0]).wait()
"""


def _group(body: str) -> str:
    return GROUP.format(body="\n".join("            " + line for line in body.splitlines()))


def test_semaphore_values_use_all_32_bits(compile_source):
    cpp = compile_source(_program("ready.set(2**32 - 1)"), "op", SPECS).sources["dm.cpp"]
    assert "noc_semaphore_set(sem_ready_ptr, (-1));" in cpp  # 0xffffffff as uint32_t


def test_operations_without_semaphores_have_no_table(compile_source):
    result = compile_source(_group("ttl.copy(x[0, 0], blk).wait()"), "op", SPECS)
    assert "semaphores" not in result.manifest


def test_group_transfer_waits_for_every_handle_it_holds(compile_source):
    body = """\
gxf = ttl.GroupTransfer()
for i in range(2):
    gxf.add(ttl.copy(x[0, i], blk))
gxf.wait_all()"""
    cpp = compile_source(_group(body), "op", SPECS).sources["dm.cpp"]
    filecheck(
        cpp,
        """
        CHECK: for (int32_t i = 0; i < 2; ++i) {
        CHECK: noc_async_read_page(i, tensor_x, blk_addr);
        CHECK-NEXT: }
        CHECK-NEXT: // {{.*}}: gxf.wait_all()
        CHECK-NEXT: noc_async_read_barrier();
        """,
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("gxf = ttl.GroupTransfer()\ngxf.wait_all()  # ERROR", "wait_all() on a group transfer "),
        (
            "gxf = ttl.GroupTransfer()\ngxf.add(ttl.copy(x[0, 0], blk))\ngxf.wait_all()\n"
            "gxf.wait_all()  # ERROR",
            "was already waited with wait_all() on line 13",
        ),
        (
            "gxf = ttl.GroupTransfer()\ngxf.add(ttl.copy(x[0, 0], blk))\ngxf.wait_all()\n"
            "gxf.add(ttl.copy(x[0, 1], blk))  # ERROR",
            "a group cannot be used after wait_all()",
        ),
        (
            "xf = ttl.copy(x[0, 0], blk)\nxf.wait()\ngxf = ttl.GroupTransfer()\n"
            "gxf.add(xf)  # ERROR",
            "this transfer was already waited on",
        ),
        (
            "gxf = ttl.GroupTransfer()\ngxf.add(blk)  # ERROR",
            "GroupTransfer.add() takes a transfer handle, got block 'blk'",
        ),
        (
            "gxf = ttl.GroupTransfer()\nfor i in range(2):\n    gxf.add(ttl.copy(x[0, i], blk))\n"
            "    gxf.wait_all()  # ERROR",
            "wait_all() inside a loop on a group created outside it",
        ),
        (
            "gxf = ttl.GroupTransfer()\ngxf.add(ttl.copy(x[0, 0], blk))",
            "is accessed while a copy into it is in flight (the ttl.copy at line",
        ),
    ],
)
def test_group_transfer_errors(compile_error, body, message):
    err = compile_error(_group(body), "op", SPECS)
    assert message in err.message, err.render()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("ready.wait_eq(-1)  # ERROR", "the semaphore value -1 is negative"),
        ("ready.set(2**32)  # ERROR", "larger than 2**32 - 1"),
        ("ready.wait_ge(1.5)  # ERROR", "a semaphore value must be an integer, got float value"),
        ("ready.get_remote((4, 0)).inc(1)  # ERROR", "node (4, 0) is outside the 4x1 grid"),
        ("ready.get_remote(9).inc(1)  # ERROR", "node 9 is outside the 4x1 grid (4 nodes)"),
        (
            "ready.get_remote_multicast((slice(2, 6), 0)).set(1)  # ERROR",
            "node range x slice(2, 6, None) is empty or outside the grid",
        ),
        ("to_all.inc(1)  # ERROR", "remote multicast semaphore of 'count' has no method 'inc'"),
        ("ready.wait(1)  # ERROR", "semaphore 'ready' has no method 'wait'"),
    ],
)
def test_semaphore_errors_in_kernels(compile_error, body, message):
    err = compile_error(_program(body), "op", SPECS)
    assert message in err.message, err.render()


def test_semaphores_in_a_compute_kernel_are_an_error(compile_error):
    source = _program("pass") + (
        "\n    @ttl.compute()\n    def compute():\n        ready.wait_eq(1)  # ERROR\n"
    )
    err = compile_error(source, "op", SPECS)
    assert "used in compute kernel 'compute'" in err.message
    assert "data-movement kernels only" in err.message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("    bad = ttl.Semaphore(-1)  # ERROR", "the initial semaphore value -1 is negative"),
        ("    bad = ttl.Semaphore(True)  # ERROR", "must be an integer, got True"),
        ("    bad = ready.get_remote((0, 1))  # ERROR", "node (0, 1) is outside the 4x1 grid"),
        (
            "    bad = ready.get_remote_multicast((0, slice(0, 2)))  # ERROR",
            "node range y slice(0, 2, None) is empty or outside the grid",
        ),
        ("    ready.wait_eq(1)  # ERROR", "can only be used inside a data-movement kernel body"),
        ("    to_next.set(1)  # ERROR", "can only be used inside a data-movement kernel body"),
        ("    g = ttl.GroupTransfer()  # ERROR", "can only be used inside a data-movement kernel"),
    ],
)
def test_semaphore_errors_at_operation_scope(compile_error, line, message):
    source = _program("pass").replace(
        "    dfb = ttl.make_dataflow_buffer_like",
        line + "\n    dfb = ttl.make_dataflow_buffer_like",
    )
    err = compile_error(source, "op", SPECS)
    assert message in err.message, err.render()


def test_declarations_that_differ_between_nodes_are_an_error(compile_error):
    source = _program("pass").replace(
        "    ready = ttl.Semaphore()",
        "    ready = ttl.Semaphore(node_num)",
    )
    source = source.replace("@ttl.operation(grid=(4, 1))", "@ttl.operation(grid=(4, 1))  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert (
        "declares different kernels, dataflow buffers or semaphores on node (1, 0)" in err.message
    )


def test_a_float_that_differs_between_nodes_is_an_error(compile_error):
    source = _program("n = scale  # ERROR").replace(
        "    ready = ttl.Semaphore()", "    scale = node_num / 2\n    ready = ttl.Semaphore()"
    )
    err = compile_error(source, "op", SPECS)
    assert "'scale' is a float value that differs between nodes" in err.message


def test_semaphores_in_a_unified_operation_are_a_located_error(compile_error):
    source = """\
import ttl


@ttl.operation(grid=(2, 1))
def op(x, y):
    sem = ttl.Semaphore()
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1))
    with dfb.reserve() as blk:
        ttl.copy(x[0, 0], blk).wait()
        sem.set(1)  # ERROR
    with dfb.wait() as blk:
        ttl.copy(blk, y[0, 0]).wait()
"""
    err = compile_error(source, "op", SPECS)
    assert "'sem' is a semaphore: semaphores and group transfers are supported in" in err.message


def test_an_operation_without_tensors_compiles(compile_source):
    """The spec's barrier examples take no tensors: only semaphores and kernels."""
    source = """
import ttl

@ttl.operation(grid=(2, 1))
def barrier():
    sem = ttl.Semaphore()
    first = sem.get_remote((0, 0))

    @ttl.datamovement()
    def dm():
        if ttl.node(dims=1) != 0:
            first.inc(1)
        else:
            sem.wait_eq(1)

    @ttl.compute()
    def compute():
        pass
"""
    result = compile_source(source, "barrier", {})
    assert "noc_semaphore_wait" in result.sources["dm.cpp"]
