"""Kernel language features: control flow, integer math, grid queries, block math forms."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck, parse_ir

SPECS = {"a": "bf16[128,128]", "y": "bf16[128,128]"}

HEADER = """
import ttl

@ttl.operation(grid=(2, 3))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2))
    c_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 1))
    r_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2))
    s_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2))
    K = 3

    @ttl.{kind}()
    def kern():
{body}
"""


def program(body: str, kind: str = "datamovement") -> str:
    lines = body.strip("\n").splitlines()
    return HEADER.format(kind=kind, body="\n".join("        " + line for line in lines))


def test_control_flow_ir_and_cpp(compile_source):
    body = """
x, y_ = ttl.node(dims=2)
gx, gy = ttl.grid_size(dims=2)
total = 0
i = 0
while i < x + 2:
    i = i + 1
    total += i % 3
for j in range(1, 7, 2):
    if j == 3 and not (x > 0 or y_ >= 1):
        total = total - j // 2
    elif j < K:
        total = total * 2
    else:
        total = -total
done = total > 10
pick = 4 if done else 5
if pick != 4:
    with a_dfb.reserve() as blk:
        ttl.copy(a[pick - 5:pick - 3, gx - 2:gx], blk).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: %node_x = ttl.node {dim = 0 : i64} : i32
        CHECK: %node_y = ttl.node {dim = 1 : i64} : i32
        CHECK: %[[T:.*]] = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, i32) \
-> (i32, i32) {
        CHECK: arith.cmpi slt
        CHECK: scf.condition
        CHECK: arith.floordivsi
        CHECK: scf.yield
        CHECK: scf.for %j = {{.*}} step
        CHECK: scf.if
        CHECK: scf.yield
        CHECK: } else {
        CHECK: scf.if
        CHECK: arith.select
        CHECK: scf.if
        CHECK: ttl.slice
        """,
    )
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: const int32_t node_x = static_cast<int32_t>(get_relative_logical_x());
        CHECK: int32_t i = 0;
        CHECK-NEXT: int32_t total = 0;
        CHECK-NEXT: while (true) {
        CHECK: if (!({{.*}})) break;
        CHECK: const int32_t i_1 = i + 1;
        CHECK: i = i_1;
        CHECK-NEXT: total = total_1;
        CHECK-NEXT: }
        CHECK: for (int32_t j = 1; j < 7; j += 2) {
        CHECK: if ({{.*}}) {
        CHECK: ttl_floordiv(j, 2)
        CHECK: } else {
        CHECK: const int32_t pick = {{.*}} ? 4 : 5;
        CHECK: cb_reserve_back(dfb_a_dfb, 4);
        CHECK: noc_async_read_page(({{.*}} + tile0) * 4 + tile1, tensor_a,
        """,
    )


def test_static_conditions_fold(compile_source):
    body = """
if K > 5:
    with a_dfb.reserve() as blk:
        ttl.copy(a[9, 9], blk).wait()
n = 0
for i in range(K):
    n = n + i
"""
    result = compile_source(program(body), "op", SPECS)
    assert "scf.if" not in result.ir  # the out-of-bounds copy is in a dead branch
    assert "ttl.copy" not in result.ir


@pytest.mark.parametrize(("dtype", "start"), [("bf16", 0), ("f32", 2)])
def test_block_and_dfb_dtype_are_compile_time_names(compile_source, dtype, start):
    # Issue 28: `blk.dtype` / `dfb.dtype` in kernels, as upstream's examples branch on it.
    body = """
with a_dfb.reserve() as blk:
    if blk.dtype == "bf16" and a_dfb.dtype == blk.dtype and a.dtype != "f32":
        ttl.copy(a[0:2, 0:2], blk).wait()
    else:
        ttl.copy(a[2:4, 2:4], blk).wait()
"""
    specs = {"a": f"{dtype}[128,128]", "y": f"{dtype}[128,128]"}
    result = compile_source(program(body), "op", specs)
    assert "scf.if" not in result.ir  # decided at compile time
    assert result.ir.count("ttl.copy") == 1
    assert f"%0 = arith.constant {start} : i32" in result.ir, result.ir


def test_strings_compare_only_for_equality(compile_error):
    body = """
with a_dfb.reserve() as blk:
    if blk.dtype < "f32":  # ERROR
        ttl.copy(a[0:2, 0:2], blk).wait()
"""
    err = compile_error(program(body), "op", SPECS)
    assert err.message == "cannot compare str value"
    assert err.hint == "compare integers, or two strings with == or !="


def test_node_and_grid_size_flattening(compile_source):
    body = """
me = ttl.node(dims=1)
n = ttl.grid_size(dims=1)
x, y_, z = ttl.node(dims=3)
gx, gy, gz = ttl.grid_size(dims=3)
if me < n * gz + z:
    with a_dfb.reserve() as blk:
        ttl.copy(a[0:2, gy - 3:gy - 1], blk).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: const int32_t [[M:.*]] = node_x * 3;
        CHECK: const int32_t me = [[M]] + node_y;
        CHECK: const bool {{.*}} = me < 6;
        CHECK: noc_async_read_page(tile0 * 4 + tile1, tensor_a,
        """,
    )


@pytest.mark.parametrize(
    "fn,api",
    [
        ("exp", "exp"),
        ("log", "log"),
        ("sqrt", "sqrt"),
        ("rsqrt", "rsqrt"),
        ("recip", "recip"),
        ("relu", "relu"),
        ("sigmoid", "sigmoid"),
        ("tanh", "tanh"),
        ("abs", "abs"),
        ("neg", "negative"),
    ],
)
def test_unary_math_functions(compile_source, fn, api):
    body = f"""
with a_dfb.wait() as blk, y_dfb.reserve() as out:
    out.store(ttl.math.{fn}(blk))
"""
    result = compile_source(program(body, "compute"), "op", SPECS)
    filecheck(result.ir, f"CHECK: ttl.unary {fn} %{{{{.*}}}} : !ttl.tiles<2x2xbf16>\n")
    filecheck(
        result.sources["kern.cpp"],
        f"""
        CHECK: copy_tile(dfb_a_dfb, i, i);
        CHECK-NEXT: }}
        CHECK-NEXT: {api}_tile_init();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {{
        CHECK-NEXT: {api}_tile(i);
        """,
    )


def test_binary_operators_and_unary_minus(compile_source):
    body = """
with a_dfb.wait() as p, y_dfb.reserve() as out:
    out.store(-(p - p) / (p * p + abs(p)))
"""
    result = compile_source(program(body, "compute"), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.sub
        CHECK: ttl.unary neg
        CHECK: ttl.mul
        CHECK: ttl.unary abs
        CHECK: ttl.add
        CHECK: ttl.div
        """,
    )
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: for (uint32_t t0 = 0; t0 < 4; t0 += 2) {
        CHECK: sub_tiles(dfb_a_dfb, dfb_a_dfb, t, t, i);
        CHECK: negative_tile(i);
        CHECK: mul_tiles(dfb_a_dfb, dfb_a_dfb, t, t, i + 2);
        CHECK: copy_tile(dfb_a_dfb, t, i + 4);
        CHECK-NEXT: }
        CHECK-NEXT: abs_tile_init();
        CHECK-NEXT: for (uint32_t i = 0; i < 2; ++i) {
        CHECK-NEXT: abs_tile(i + 4);
        CHECK: add_binary_tile(i + 2, i + 4, i + 2);
        CHECK: div_binary_tile(i, i + 2, i);
        CHECK: pack_tile(i, dfb_y_dfb, t0 + i);
        """,
    )


def test_broadcast_forms_and_fill_shape_inference(compile_source):
    body = """
with c_dfb.wait() as col, r_dfb.wait() as row, s_dfb.wait() as one, y_dfb.reserve() as out:
    out.store(ttl.math.broadcast(col, out, dims=[1]) + \
ttl.block.broadcast(row, dims=[0], shape=(2, 2)))
with s_dfb.wait() as one, y_dfb.reserve() as out:
    out.store(ttl.math.broadcast(one, dims=[0, 1]) * ttl.block.fill(2.0, shape=(2, 2)) \
- ttl.block.fill(0.5))
"""
    result = compile_source(program(body, "compute"), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.broadcast %{{.*}} {dims = array<i64: 1>} : !ttl.tiles<2x1xbf16> \
-> !ttl.tiles<2x2xbf16>
        CHECK: ttl.broadcast %{{.*}} {dims = array<i64: 0>} : !ttl.tiles<1x2xbf16> \
-> !ttl.tiles<2x2xbf16>
        CHECK: ttl.broadcast %{{.*}} {dims = array<i64: 0, 1>} : !ttl.tiles<1x1xbf16> \
-> !ttl.tiles<2x2xbf16>
        CHECK: ttl.fill 2.000000e+00 : f32 : !ttl.tiles<2x2xbf16>
        CHECK: ttl.fill 5.000000e-01 : f32 : !ttl.tiles<2x2xbf16>
        """,
    )
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: unary_bcast<BroadcastType::COL>(dfb_c_dfb, i / 2, i);
        CHECK: unary_bcast<BroadcastType::ROW>(dfb_r_dfb, i % 2, i + 4);
        CHECK: unary_bcast<BroadcastType::SCALAR>(dfb_s_dfb, 0, i);
        CHECK: fill_tile_bitcast(i + 4, 0x40000000u);
        CHECK: mul_binary_tile(i, i + 4, i);
        CHECK: fill_tile_bitcast(i + 4, 0x3f000000u);
        CHECK: sub_binary_tile(i, i + 4, i);
        """,
    )


@pytest.mark.parametrize(
    "expr,message",
    [
        ("ttl.math.broadcast(blk, dims=[0])", "cannot broadcast a (2, 2) block along dims [0]"),
        ("blk + ttl.math.broadcast(col, dims=[1], shape=(2, 3))", "operands of '+' have shapes"),
        ("blk + col @ col", "cannot multiply blocks of shapes (2, 1) and (2, 1)"),
        ("blk + True", "must be an int or float"),
    ],
)
def test_block_math_shape_errors(compile_error, expr, message):
    body = f"""
with a_dfb.wait() as blk, c_dfb.wait() as col, y_dfb.reserve() as out:
    out.store({expr})  # ERROR
"""
    err = compile_error(program(body, "compute"), "op", SPECS)
    assert message in err.message


def test_loop_variables_poisoned_after_loop(compile_error):
    body = """
for i in range(3):
    last = i
n = last  # ERROR
"""
    err = compile_error(program(body), "op", SPECS)
    assert "'last' is assigned inside the for loop" in err.message


def test_explicit_acquire_release_without_with(compile_source):
    body = """
for i in range(2):
    blk = a_dfb.reserve()
    tx = ttl.copy(a[0:2, 2 * i:2 * i + 2], blk)
    tx.wait()
    blk.push()
"""
    result = compile_source(program(body), "op", SPECS)
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: cb_reserve_back(dfb_a_dfb, 4);
        CHECK-NEXT: const uint32_t blk_addr = get_write_ptr(dfb_a_dfb);
        CHECK: noc_async_read_page(
        CHECK: noc_async_read_barrier();
        CHECK: cb_push_back(dfb_a_dfb, 4);
        """,
    )


def test_kernel_selectors_on_decorators(write_source):
    from ttl.compiler.driver import compile_operation, load_operation

    path = write_source(
        """
        import ttl

        READER = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.operation(grid=(1, 1))
        def op(a):
            @ttl.compute(kernel=ttl.KernelKind.COMPUTE)
            def c():
                pass

            @ttl.datamovement()
            def d():
                pass

            @ttl.datamovement(kernel=READER)
            def e():
                pass
        """
    )
    op = load_operation(str(path), "op")
    m = compile_operation(op, {"a": "bf16[32,32]"}).manifest
    assert [(k["name"], k["kind"], k["processor_slot"]) for k in m["kernels"]] == [
        ("c", "compute", "compute"),
        ("d", "data_movement", "dm0"),
        ("e", "data_movement", "dm1"),
    ]
    # Registration binds the handle to its capture name (spec: logical-kernel selection).
    assert op.fn.__globals__["READER"].name == "op.READER"
    assert [k["logical_kernel"] for k in m["kernels"]] == ["op.c", "op.d", "op.READER"]


def test_kernel_selector_kind_must_match_thread(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.compute(kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR
        def c():
            pass
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]"})
    assert "does not match the thread kind" in err.message


def test_dialect_round_trips(compile_source):

    body = """
with a_dfb.wait() as blk, c_dfb.wait() as col, y_dfb.reserve() as out:
    out.store(ttl.block.fill(-1.5, shape=(2, 2)))
    out.store(ttl.math.relu(blk + ttl.math.broadcast(col, dims=[-1])), acc=True)
"""
    result = compile_source(program(body, "compute"), "op", SPECS)
    parsed = parse_ir(result.ir)
    parsed.verify()
    assert str(parsed) + "\n" == result.ir


def test_user_names_do_not_shadow_the_kernel_api(compile_source):
    body = """
pack_tile = 1
dfb_a_dfb = 2
exp_tile = 3
int = 4
for copy_tile in range(pack_tile + dfb_a_dfb + exp_tile + int + ttl.node(dims=1)):
    with a_dfb.reserve() as tensor_a:
        ttl.copy(a[0:2, 0:2], tensor_a).wait()
"""
    result = compile_source(program(body), "op", SPECS)
    filecheck(
        result.sources["kern.cpp"],
        """
        CHECK: for (int32_t v_copy_tile = 0; v_copy_tile < {{.*}}; ++v_copy_tile) {
        CHECK: const uint32_t v_tensor_a_addr = get_write_ptr(dfb_a_dfb);
        """,
    )


def test_buffer_factor_is_block_counts_name_before_spec_0_15(compile_source, compile_error):
    body = """
with a_dfb.reserve() as blk:
    ttl.copy(a[0:2, 0:2], blk).wait()
"""
    first = "shape=(2, 2))\n    c_dfb"
    old = program(body).replace(first, "shape=(2, 2), buffer_factor=3)\n    c_dfb")
    new = program(body).replace(first, "shape=(2, 2), block_count=3)\n    c_dfb")
    assert "buffer_factor=3" in old
    dfbs = [compile_source(s, "op", SPECS).manifest["dfbs"] for s in (old, new)]
    assert dfbs[0] == dfbs[1]
    both = old.replace("buffer_factor=3)", "block_count=2, buffer_factor=3)  # ERROR")
    err = compile_error(both, "op", SPECS)
    assert "got both block_count= and buffer_factor=" in err.message


CONSTANT_PARAMS = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, scale, y):
    rows, cols = scale
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, cols), block_count=2)

    @ttl.datamovement()
    def dm():
        for r in range(rows):
            with dfb.reserve() as blk:
                ttl.copy(a[r, 0:cols], blk).wait()
                ttl.copy(blk, y[r, 0:cols]).wait()
"""


def test_a_constant_parameter_is_compiled_in(compile_source):
    # Issue 28 item 3: upstream's examples pass scale_factor=(2, 2) beside tensors.
    specs = {"a": "bf16[64,64]", "scale": "const:(2, 2)", "y": "bf16[64,64]"}
    r = compile_source(CONSTANT_PARAMS, "op", specs)
    assert r.manifest["operation"]["constants"] == {"scale": "(2, 2)"}
    assert [(t["name"], t["index"]) for t in r.manifest["tensors"]] == [("a", 0), ("y", 1)]
    assert "for (int32_t r = 0; r < 2; ++r) {" in r.sources["dm.cpp"]
    other = compile_source(CONSTANT_PARAMS, "op", dict(specs, scale="const:(1, 2)"))
    assert "for (int32_t r = 0; r < 1; ++r) {" in other.sources["dm.cpp"]


def test_a_constant_parameter_spec_must_be_a_literal(compile_error):
    src = CONSTANT_PARAMS.replace("def op(a, scale, y):", "def op(a, scale, y):  # ERROR")
    specs = {"a": "bf16[64,64]", "scale": "const:open('x')", "y": "bf16[64,64]"}
    err = compile_error(src, "op", specs)
    assert err.message.startswith(
        "parameter 'scale' of operation 'op' has an invalid spec: 'const:open('x')' is not a "
        "Python literal"
    )
    assert "const:(2, 2)" in (err.hint or "")


def test_an_operation_without_kernel_work_runs_its_body_on_every_node(write_source):
    # Issue 28 item 8 (the spec's grid/node.py and grid_size.py): the body runs on the
    # host once per node; an assert that fails on one names it.
    from ttl.compiler.driver import load_operation
    from ttl.compiler.evaluate import evaluate_operation
    from ttl.errors import TTLCompileError
    from ttl.targets import TARGETS

    path = write_source(
        """
        import ttl

        @ttl.operation(grid=(2, 2))
        def op():
            x, y = ttl.node(dims=2)
            assert x + y < 2, "too far"
        """
    )
    with pytest.raises(TTLCompileError) as info:
        evaluate_operation(load_operation(str(path), "op"), {}, TARGETS["wormhole_b0"])
    err = info.value
    assert err.message == (
        "evaluating the top level of operation 'op' on node (1, 1) raised AssertionError: too far"
    )
    assert err.loc is not None and err.loc.line == 6  # the assert (dedented source)
    assert err.hint == "the assert must hold on every node: the top level runs once per node"


def test_a_kernel_function_outside_an_operation_stays_a_plain_function(write_source):
    # The spec's performance_and_debugging/debug_printing.py is a fragment: a
    # @ttl.datamovement() function at module level, in no operation.
    from ttl.compiler.driver import load_operation

    path = write_source(
        """
        import ttl

        @ttl.datamovement()
        def matmul_read():
            print("never runs")

        @ttl.operation(grid=(1, 1))
        def op(a):
            pass
        """
    )
    op = load_operation(str(path), "op")
    assert callable(op.fn.__globals__["matmul_read"])
