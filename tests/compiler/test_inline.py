"""Kernels calling the program's Python: helpers inlined, builtins, static loops.

The programs in tests/programs run these forms end to end; here each form's
compiled shape and each rejection is checked on its own.
"""

from __future__ import annotations

from compiler_testlib import filecheck

SPECS = {"a": "bf16[64,64]", "y": "bf16[64,64]"}

PROGRAM = """
import ttl

{helpers}

@ttl.operation(grid=(2, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        me = ttl.node(dims=1)
{body}
"""


def program(body: str, helpers: str = "") -> str:
    lines = body.strip("\n").splitlines()
    return PROGRAM.format(helpers=helpers, body="\n".join("        " + line for line in lines))


def test_a_helper_with_returns_in_branches_becomes_a_select(compile_source):
    helpers = """
def pick(n):
    if n < 1:
        return 2
    return n + 5
"""
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, pick(me) - 2], blk).wait()
"""
    result = compile_source(program(body, helpers), "op", SPECS)
    assert "scf.if" in result.ir
    filecheck(result.sources["read.cpp"], "CHECK: if (\nCHECK: } else {")


def test_runtime_min_max_abs_compare_and_select(compile_source):
    body = """
lo = min(me, 1)
hi = max(me - 1, 0)
with a_dfb.reserve() as blk:
    ttl.copy(a[abs(lo - hi), lo], blk).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    assert result.ir.count("arith.select") == 3


def test_a_loop_over_a_compile_time_tuple_is_unrolled(compile_source):
    body = """
for i, (row, col) in enumerate(((0, 1), (1, 0))):
    with a_dfb.reserve() as blk:
        ttl.copy(a[row, col + i - i], blk).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    assert result.ir.count("ttl.copy") == 2
    assert "scf.for" not in result.ir


def test_a_recursive_helper_is_a_located_error(compile_error):
    helpers = """
def down(n):
    return down(n - 1)  # ERROR
"""
    err = compile_error(program("n = down(me)", helpers), "op", SPECS)
    assert "'down' calls itself" in err.message


def test_a_return_inside_a_helper_loop_is_a_located_error(compile_error):
    helpers = """
def first(n):
    for i in range(n):
        return i  # ERROR
"""
    err = compile_error(program("n = first(3)", helpers), "op", SPECS)
    assert "'first' returns from inside a 'for' statement" in err.message


def test_a_format_specification_on_a_runtime_value_is_a_located_error(compile_error):
    err = compile_error(program('print(f"{me:3d}")  # ERROR'), "op", SPECS)
    assert "prints with its default format" in err.message


def test_a_helper_from_another_module_is_located_in_its_own_file(compile_source, tmp_path):
    """Its C++ comments and its diagnostics name its own file, not the kernel's."""
    (tmp_path / "inline_tiles_lib.py").write_text("def second(n):\n    return n + 1\n")
    helpers = """
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from inline_tiles_lib import second
"""
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, second(me) - 1], blk).wait()
"""
    result = compile_source(program(body, helpers), "op", SPECS)
    filecheck(result.sources["read.cpp"], "CHECK: // inline_tiles_lib.py:2{{$}}")
    assert "inline_tiles_lib.py:2:" not in result.sources["read.cpp"]


def test_bad_calls_of_helpers_and_builtins_are_located_errors(compile_error):
    helpers = "def one(n=1):\n    return n\n"
    cases = [
        ("n = one(*(1,))  # ERROR", "'*' arguments are not supported in a kernel"),
        ("n = one(**{})  # ERROR", "'**' arguments are not supported in a kernel"),
        ("n = divmod(1, 0)  # ERROR", "divmod(): integer division or modulo by zero"),
        ('print(f"{a_dfb}")  # ERROR', "an f-string cannot format dataflow buffer 'a_dfb'"),
        ('print(f"{3:{me}}")  # ERROR', "a format specification must be a compile-time value"),
        ("@one  # ERROR\ndef inner():\n    pass", "defined in a kernel must not have decorators"),
    ]
    for body, message in cases:
        err = compile_error(program(body, helpers), "op", SPECS)
        assert message in err.message, err.render()


def test_an_early_return_in_a_kernel_makes_the_rest_its_else_branch(compile_source):
    # Upstream's eltwise_pipe_node3.py: `if not pipe_net.is_active(): return`.
    body = """
if me == 0:
    return
with a_dfb.reserve() as blk:
    ttl.copy(a[0, me], blk).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    filecheck(
        result.sources["read.cpp"],
        """
        CHECK: if (
        CHECK: } else {
        CHECK: cb_reserve_back(dfb_a_dfb, 1);
        """,
    )


def test_a_kernel_return_in_a_loop_or_with_a_value_is_a_located_error(compile_error):
    body = """
for i in range(2):
    if i == me:
        return  # ERROR
"""
    err = compile_error(program(body), "op", SPECS)
    assert err.message == (
        "kernel 'read' returns from inside a 'for' statement; a kernel may return only from "
        "its body or from if/else branches"
    )
    err = compile_error(program("return me  # ERROR"), "op", SPECS)
    assert err.message == "kernel 'read' returns a value; a kernel returns nothing"
    assert err.hint == "write a bare 'return' to end the kernel early"


def test_compile_time_tuples_and_lists_concatenate_and_repeat(compile_source):
    helpers = "BASE = (0, 1)"
    body = """
cols = BASE + (1,)
more = [0] + list(cols) * 2
for c in more:
    with a_dfb.reserve() as blk:
        ttl.copy(a[0, c], blk).wait()
"""
    src = program(body, helpers).replace("shape=(1, 1))", "shape=(1, 1), block_count=8)")
    result = compile_source(src, "op", SPECS)
    assert result.sources["read.cpp"].count("noc_async_read_page(") == 7  # unrolled


def test_other_operators_on_compile_time_sequences_are_located_errors(compile_error):
    err = compile_error(program("x = (1, 2) - (1,)  # ERROR"), "op", SPECS)
    assert err.message == "operator 'Sub' is not supported on tuple value and tuple value"
    assert "tuples and lists concatenate (+) and repeat (* n)" in err.hint
