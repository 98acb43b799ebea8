"""Bad input: every diagnostic names file:line:col, shows the line and a hint.

``compile_error`` (conftest) asserts the location is the line marked
``# ERROR`` and that the source line and a hint are in the message.
"""

from __future__ import annotations

import pytest

from ttl.compiler.driver import load_operation
from ttl.compiler.evaluate import check_tensors
from ttl.errors import TTLCompileError
from ttl.specs import TensorSpec

SPECS = {"a": "bf16[64,64]", "y": "bf16[64,64]"}

# A valid operation with a placeholder kernel body; {body} is indented 8 spaces.
COMPUTE = """
import ttl

def helper(x):
    return x

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.compute()
    def compute():
{body}
"""
DM = COMPUTE.replace("@ttl.compute()\n    def compute", "@ttl.datamovement()\n    def read")


def kernel(body: str, template: str = COMPUTE) -> str:
    lines = body.strip("\n").splitlines()
    return template.format(body="\n".join("        " + line for line in lines))


UNSUPPORTED = [
    ("n = helper(3, 4)  # ERROR", "helper(): too many positional arguments"),
    ("n = print.__call__(3)  # ERROR", "call to 'print.__call__' is not supported in a kernel"),
    ("try:  # ERROR\n    pass\nexcept Exception:\n    pass", "a try statement is not supported"),
    ("f = lambda: 1  # ERROR", "a lambda is not supported"),
    ("xs = [i for i in range(3)]  # ERROR", "a list comprehension is not supported"),
    ("a_dfb.name = 1  # ERROR", "attribute writes are not supported"),
    ("for i in range(3):\n    break  # ERROR", "break is not supported"),
    ("x = undefined_name  # ERROR", "name 'undefined_name' is not defined"),
    ("for i in ttl.node(dims=1):  # ERROR\n    pass", "for-loops iterate over range(...) or"),
    ("x = 1 / 2\ny = ttl.node(dims=1) / 2  # ERROR", "operator 'Div' is not supported on integers"),
]


@pytest.mark.parametrize("body,message", UNSUPPORTED, ids=[m for _, m in UNSUPPORTED])
def test_unsupported_python_constructs(compile_error, body, message):
    err = compile_error(kernel(body), "op", SPECS)
    assert message in err.message


def test_math_in_data_movement_kernel(compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, 0], blk).wait()
with a_dfb.wait() as blk, y_dfb.reserve() as out:
    out.store(blk + blk)  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "is only allowed in compute kernels" in err.message


def test_math_function_in_data_movement_kernel(compile_error):
    body = """
with a_dfb.wait() as blk:
    x = ttl.math.exp(blk)  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "block math is only allowed in compute kernels" in err.message


def test_copy_in_compute_kernel(compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, 0], blk).wait()  # ERROR
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "ttl.copy is only allowed in data-movement kernels" in err.message


def test_slice_shape_differs_from_block(compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0:2, 0], blk).wait()  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert (
        err.message
        == "slice shape (2, 1) tiles differs from the block shape (1, 1) tiles of 'a_dfb'"
    )


def test_static_slice_out_of_bounds(compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[1, 2], blk).wait()  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "slice [2] is out of bounds for dimension 1 of tensor 'a' (2 tiles)" in err.message


def test_static_range_slice_out_of_bounds(compile_error):
    src = kernel(
        """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, 1:3], blk).wait()  # ERROR
""",
        DM,
    ).replace("shape=(1, 1))\n    y_dfb", "shape=(1, 2))\n    y_dfb")
    err = compile_error(src, "op", SPECS)
    assert "slice [1:3] is out of bounds for dimension 1" in err.message


def test_dynamic_slice_extent(compile_error):
    body = """
for r in range(2):
    with a_dfb.reserve() as blk:
        ttl.copy(a[r:2, 0], blk).wait()  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "not a compile-time constant" in err.message


def test_store_into_waited_block(compile_error):
    body = """
with a_dfb.wait() as blk:
    blk.store(blk + blk)  # ERROR
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "cannot store into block 'blk': it was acquired with wait()" in err.message


def test_block_used_after_release(compile_error):
    body = """
blk = a_dfb.wait()
out = y_dfb.reserve()
blk.pop()
out.store(blk * blk)  # ERROR
out.push()
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "block 'blk' is used after its release on line" in err.message


def test_copy_after_push(compile_error):
    body = """
blk = a_dfb.reserve()
ttl.copy(a[0, 0], blk).wait()
blk.push()
ttl.copy(a[0, 0], blk).wait()  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "used after its release" in err.message


def test_with_acquisition_released_twice(compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0, 0], blk).wait()
    blk.push()  # ERROR
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "is released twice" in err.message and "'with' on line" in err.message


def test_block_never_released(compile_error):
    body = "blk = y_dfb.reserve()  # ERROR\nblk.store(ttl.math.fill(0.0, shape=(1, 1)))"
    err = compile_error(kernel(body), "op", SPECS)
    assert "acquired here but never released" in err.message
    # A block waited in a loop and never popped leaks one block per iteration.
    body = "for i in range(2):\n    blk = a_dfb.wait()  # ERROR"
    err = compile_error(kernel(body), "op", SPECS)
    assert err.message == "block 'blk' is acquired inside a loop iteration but not released in it"


def test_a_block_waited_at_the_top_of_a_kernel_is_popped_at_its_end(compile_source):
    # The spec's operation_function.py copies `out_dfb.wait()` out inline and never pops
    # it: its data is consumed, so the kernel pops it when it ends, as a with would.
    body = "blk = a_dfb.wait()\nwith y_dfb.reserve() as o:\n    o.store(blk)"
    r = compile_source(kernel(body), "op", SPECS)
    assert r.sources["compute.cpp"].rstrip().endswith("cb_pop_front(dfb_a_dfb, 1);\n}")


def test_release_in_one_branch_only(compile_error):
    body = """
blk = a_dfb.wait()
if ttl.node(dims=1) == 0:  # ERROR
    blk.pop()
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "released on only one branch" in err.message


def test_release_of_outer_block_inside_loop(compile_error):
    body = """
blk = a_dfb.wait()
for i in range(2):
    blk.pop()  # ERROR
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "acquired outside this loop but released inside it" in err.message


def test_copy_not_waited_before_release(compile_error):
    body = """
with a_dfb.reserve() as blk:  # ERROR
    tx = ttl.copy(a[0, 0], blk)
"""
    err = compile_error(kernel(body, DM), "op", SPECS)
    assert "still in flight" in err.message


def test_expression_shape_mismatch(compile_error):
    src = kernel(
        """
with a_dfb.wait() as blk, y_dfb.reserve() as out:
    out.store(blk)  # ERROR
"""
    ).replace("like(y, shape=(1, 1))", "like(y, shape=(1, 2))")
    err = compile_error(src, "op", {"a": "bf16[64,64]", "y": "bf16[64,64]"})
    assert "cannot store a (1, 1) expression into block 'out' of shape (1, 2)" in err.message


def test_dst_capacity_exceeded(compile_error):
    # Right-nested additions need one more DST register per level: 9 > 8.
    expr = "blk"
    for _ in range(8):
        expr = f"ttl.math.exp(blk) + ({expr})"
    body = f"""
with a_dfb.wait() as blk, y_dfb.reserve() as out:
    out.store({expr})  # ERROR
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "needs 9 DST registers per tile but wormhole_b0 has 8" in err.message


_FILL_EACH = """
        @ttl.datamovement()
        def fill():
            for f in DFBS:
                with f.reserve() as blk:
                    ttl.copy(a[0, 0], blk).wait()
"""


def test_dfbs_overflow_l1(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        small = ttl.make_dataflow_buffer_like(a, shape=(8, 8), block_count=2)
        big = ttl.make_dataflow_buffer_like(a, shape=(20, 20), block_count=2)  # ERROR

        @ttl.datamovement()
        def fill():
            with small.reserve() as s, big.reserve() as b:
                ttl.copy(a[0:8, 0:8], s).wait()
                ttl.copy(a[0:20, 0:20], b).wait()
    """
    err = compile_error(src, "op", {"a": "bf16[640,640]"})
    assert err.message == (
        "dataflow buffers need 1900544 bytes of L1 with 'big' (1638400 bytes) but wormhole_b0 "
        "has 1499136 bytes per node"
    )


def test_dfbs_overflow_l1_blackhole_limit(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        big = ttl.make_dataflow_buffer_like(a, shape=(20, 20), block_count=2)  # ERROR

        @ttl.datamovement()
        def fill():
            with big.reserve() as b:
                ttl.copy(a[0:20, 0:20], b).wait()
    """
    err = compile_error(src, "op", {"a": "bf16[640,640]"}, target="blackhole")
    assert err.message == (
        "dataflow buffers need 1638400 bytes of L1 with 'big' (1638400 bytes) but blackhole "
        "has 1572864 bytes per node"
    )


def test_too_many_dfbs(compile_error):
    src = (
        """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        DFBS = []
        for i in range(33):
            DFBS.append(ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1))  # ERROR
"""
        + _FILL_EACH
    )
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == (
        "operation 'op' uses 33 dataflow buffers in its kernels but wormhole_b0 has 32 per node"
    )
    assert "or compile for blackhole, which has 64 per node" in (err.hint or "")


def test_blackhole_has_64_dfbs(compile_source, compile_error):
    # Spec v0.21, Appendix E: Blackhole's 64 DFBs.
    src = (
        """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        DFBS = []
        for i in range({count}):
            DFBS.append(ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1))  # ERROR
"""
        + _FILL_EACH
    )
    specs = {"a": "bf16[32,32]"}
    result = compile_source(src.replace("{count}", "64"), "op", specs, target="blackhole")
    assert len(result.manifest["dfbs"]) == 64
    err = compile_error(src.replace("{count}", "65"), "op", specs, target="blackhole")
    assert "uses 65 dataflow buffers in its kernels but blackhole has 64" in err.message
    assert "or compile for" not in (err.hint or "")


def test_dfbs_no_kernel_uses_take_neither_an_index_nor_l1(compile_source):
    # Upstream's examples/errors/max_dfbs_warning.py declares 36 DFBs and uses 3: it
    # runs. DFBs no kernel touches are not allocated, so they count against neither
    # the target's 32 DFBs nor its L1 (even one larger than L1).
    src = (
        """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        unused = [ttl.make_dataflow_buffer_like(a, shape=(1, 1)) for _ in range(40)]
        huge = ttl.make_dataflow_buffer_like(a, shape=(20, 20), block_count=2)
        DFBS = [ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1) for _ in range(3)]
"""
        + _FILL_EACH
    )
    result = compile_source(src, "op", {"a": "bf16[640,640]"})
    assert len(result.manifest["dfbs"]) == 3
    assert [f["physical_index"] for f in result.manifest["dfbs"]] == [0, 1, 2]


def test_grid_larger_than_target(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(9, 8))  # ERROR
    def op(a):
        pass
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == "grid (9, 8) is larger than the wormhole_b0 grid (8, 8)"
    # The same grid fits blackhole (13 x 10): the hint says how to target it.
    assert "compile for the blackhole target, whose grid is (13, 10)" in (err.hint or "")
    assert "ttl run --target=blackhole" in (err.hint or "")


def test_grid_fits_blackhole_not_wormhole(compile_source, compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(13, 10))  # ERROR
    def op(a):
        @ttl.datamovement()
        def dm():
            pass
    """
    assert compile_source(src, "op", {"a": "bf16[32,32]"}, target="blackhole").manifest["grid"]
    compile_error(src, "op", {"a": "bf16[32,32]"})


def test_too_many_data_movement_kernels(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.datamovement()
        def dm0():
            pass

        @ttl.datamovement()
        def dm1():
            pass

        @ttl.datamovement()
        def dm2():  # ERROR
            pass
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == "operation 'op' needs 3 data-movement kernels; target wormhole_b0 has 2"


def test_thread_function_with_parameters(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.compute()
        def compute(x):  # ERROR
            pass
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == "kernel function 'compute' must not take parameters"


SIG = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):  # ERROR
    pass
"""


@pytest.mark.parametrize(
    "specs,message",
    [
        ({"a": "bf16[32,32]"}, "operation 'op' parameter 'y' has no tensor spec"),
        (
            {"a": "bf16[32,32]", "y": "bf16[32,32]", "z": "bf16[32,32]"},
            "'z' is not a parameter of operation 'op' (parameters: a, y)",
        ),
        (
            {"a": "bf16[32,32]", "y": "bf16[31,32]"},
            "tensor 'y' of operation 'op' has an invalid spec",
        ),
    ],
)
def test_specs_that_do_not_match_the_operation(compile_error, specs, message):
    err = compile_error(SIG, "op", specs)
    assert message in err.message


def test_tensors_that_do_not_match_the_compiled_specs(write_source):
    path = write_source(SIG)
    op = load_operation(str(path), "op")

    class Tensor:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, dtype

    specs = {"a": "bf16[64,64]", "y": "bf16[64,64]"}
    check_tensors(op, specs, [Tensor((64, 64), "bfloat16"), Tensor((64, 64), "bfloat16")])
    with pytest.raises(TTLCompileError) as info:
        check_tensors(op, specs, [Tensor((64, 64), "bfloat16"), Tensor((32, 64), "float32")])
    err = info.value
    assert err.message == "tensor 'y' is f32[32,64] but operation 'op' was compiled for bf16[64,64]"
    assert err.loc is not None and err.loc.line == 4
    with pytest.raises(TTLCompileError, match=r"takes 2 parameters \(a, y\) but was given 1"):
        check_tensors(op, specs, [TensorSpec((64, 64))])


def test_top_level_python_error_is_located(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        blocks = a.shape[0] // 0  # ERROR
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert "ZeroDivisionError" in err.message


def test_dfb_method_outside_kernel(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        blk = a_dfb.reserve()  # ERROR
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    # A unified body: the block has no use from which its logical kernel can be inferred.
    assert "block 'blk' has no use from which its logical kernel" in err.message


def test_kernel_intrinsic_at_top_level(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))  # ERROR
    def op(a):
        x = ttl.node(dims=2)
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    # No kernel work at all (the spec's grid examples): it runs on the host, per node,
    # when a program calls it; ttlc has nothing to build.
    assert err.message == (
        "operation 'op' does no kernel work: its body only runs on the host (ttl.node(), "
        "ttl.grid_size(), Python), so there is no bundle to build"
    )


def test_dfb_of_another_operation(write_source):
    path = write_source(
        """
        import ttl

        LEAK = []

        @ttl.operation(grid=(1, 1))
        def first(a):
            LEAK.append(ttl.make_dataflow_buffer_like(a, shape=(1, 1)))

        @ttl.operation(grid=(1, 1))
        def second(a):
            other = LEAK[0]

            @ttl.compute()
            def compute():
                blk = other.wait()
                blk.pop()
        """
    )
    from ttl.compiler.driver import compile_operation

    with pytest.raises(TTLCompileError, match="does no kernel work"):  # its body still ran
        compile_operation(load_operation(str(path), "first"), {"a": "bf16[32,32]"})
    with pytest.raises(TTLCompileError) as info:
        compile_operation(load_operation(str(path), "second"), {"a": "bf16[32,32]"})
    err = info.value
    assert err.message == "dataflow buffer 'dfb0' does not belong to operation 'second'"
    assert err.loc is not None and err.loc.line == 15 and err.hint


def test_accumulate_into_unwritten_block(compile_error):
    body = """
with a_dfb.wait() as blk, y_dfb.reserve() as out:
    out.store(blk, acc=True)  # ERROR
"""
    err = compile_error(kernel(body), "op", SPECS)
    assert "store(acc=True) adds to the tiles of block 'out'" in err.message
    assert "out.store(ttl.block.fill(0.0, shape=(1, 1)))" in err.hint


def test_operation_on_a_class_is_located(write_source):
    path = write_source(
        """
        import ttl

        @ttl.operation(grid=(1, 1))
        class Op:
            pass
        """
    )
    with pytest.raises(TTLCompileError) as info:
        load_operation(str(path), "Op")
    assert info.value.message == "@ttl.operation decorates a function, not a class 'Op'"
    assert info.value.loc.line == 3 and info.value.hint


def test_operation_without_kernels(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))  # ERROR
    def op(a):
        n = 1

        def helper():
            return n
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == "operation 'op' defines no kernels: there is nothing to run"


def test_very_long_expressions_compile(compile_source):
    """2000-term integer and 600-term block expressions: no recursion limit is hit."""
    ints = " + ".join(["1"] * 2000)
    blocks = " + ".join(["a_blk"] * 600)
    src = f"""
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        n = {ints}
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

        @ttl.compute()
        def compute():
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store({blocks})
    """
    result = compile_source(src, "op", {"a": "bf16[32,32]", "y": "bf16[32,32]"})
    assert (
        result.sources["compute.cpp"].count("add_binary_tile(")
        + result.sources["compute.cpp"].count("add_tiles(")
        == 599
    )


@pytest.mark.parametrize("test", ["True", "rows > 0"])
def test_a_while_loop_on_nothing_the_body_changes_never_ends(compile_error, test):
    src = f"""
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        rows = 2
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

        @ttl.datamovement()
        def dm():
            n = 0
            while {test}:  # ERROR
                n = n + 1
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert err.message == "this while loop never ends: its condition is always true"


def test_grid_size_needs_at_least_one_dimension(compile_error):
    # ttl.grid_size(dims=0) returned the 2-D sizes (found by tests/campaign).
    src = kernel("x = ttl.grid_size(dims=0)  # ERROR", DM)
    err = compile_error(src, "op", SPECS)
    assert err.message == "ttl.grid_size(dims=0): dims must be an integer of at least 1"
    src = COMPUTE.replace(
        "    a_dfb = ttl", "    n = ttl.grid_size(dims=0)  # ERROR\n    a_dfb = ttl"
    ).format(body="        pass")
    err = compile_error(src, "op", SPECS)
    assert err.message == "ttl.grid_size(dims=0): dims must be an integer of at least 1"


@pytest.mark.parametrize("dims", ["0", "-1"])
def test_node_needs_at_least_one_dimension(compile_error, dims):
    # One rule (ttl.dsl.dims_error) at both scopes: the kernel body and the operation.
    call = f"ttl.node(dims={dims})"
    want = f"{call}: dims must be an integer of at least 1"
    err = compile_error(kernel(f"x = {call}  # ERROR", DM), "op", SPECS)
    assert (err.message, err.hint) == (want, "write dims=1 (flattened) or dims=2 (x, y)")
    src = COMPUTE.replace("    a_dfb = ttl", f"    n = {call}  # ERROR\n    a_dfb = ttl").format(
        body="        pass"
    )
    assert compile_error(src, "op", SPECS).message == want


MIXED = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    with a_dfb.reserve() as blk:
        ttl.copy(a[0, 0], blk).wait()
    with a_dfb.wait() as x:
        ttl.copy({source}, y[0, 0]).wait()  # ERROR
"""


@pytest.mark.parametrize("source", ["x + x", "ttl.math.exp(x)", "-x"])
def test_a_unified_statement_mixing_math_and_a_copy_is_an_error(compile_error, source):
    # Spec v0.19, "Thread assignment": a block expression as a copy's source.
    err = compile_error(MIXED.replace("{source}", source), "op", SPECS)
    assert "mixes compute work (block math) and data movement (ttl.copy)" in err.message
    assert "store the computed block into a DFB" in (err.hint or "")


def test_index_arithmetic_in_a_unified_copy_is_not_block_math(compile_source):
    source = MIXED.replace("ttl.copy({source}, y[0, 0])", "ttl.copy(x, y[0 * 2, 1 - 1])")
    assert compile_source(source.replace("  # ERROR", ""), "op", SPECS).manifest["kernels"]
