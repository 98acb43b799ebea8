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
