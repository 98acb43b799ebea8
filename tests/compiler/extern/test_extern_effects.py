"""Spec section: DFB dependencies and protocol effects."""

from __future__ import annotations

import re

import pytest
from compiler_testlib import filecheck

from ttl.compiler import dialect as d

STAGE = """
ttl.call_extern_func(
    HEADER,
    "external_stage",
    template_args=[ttl.get_dfb_id(src)],
    func_args=[src],
    dfb_dependencies=[dst],
    dfb_effects=[
        ttl.DFBEffect.wait(src, tiles=2),
        ttl.DFBEffect.pop(src, tiles=2),
        ttl.DFBEffect.reserve(dst, tiles=1),
        ttl.DFBEffect.push(dst, tiles=1),
    ],
    kernel=ttl.KernelKind.DATA_MOVEMENT,
)
"""


def _effects(ir: str) -> list[str]:
    return re.findall(r"#ttl\.dfb_effect<[^>]*>", ir)


def _call(result) -> d.CallExternOp:
    return next(op for op in result.module.walk() if isinstance(op, d.CallExternOp))


def test_dependencies_add_no_cpp_argument(extern_compile):
    """ "`dfb_dependencies` declares DFB storage used by external C++ without adding C++
    function arguments.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", dfb_dependencies=[src, dst],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(r.ir, 'CHECK: "f"() descriptors() deps(%src, %dst)')
    filecheck(r.sources["data_movement.cpp"], "CHECK: {{^  f\\(\\);}}")


def test_automatic_dependencies_come_first(extern_compile):
    """ "DFBs in `func_args` and DFB descriptors in `template_args` are dependencies
    automatically." (dependency order: func_args DFBs, descriptors, dfb_dependencies)"""
    r = extern_compile(
        """
        third = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
        ttl.call_extern_func(HEADER, "f", template_args=[ttl.dfb_descriptor(dst)],
                             func_args=[src], dfb_dependencies=[third],
                             dfb_effects=[ttl.DFBEffect.wait(third, tiles=1),
                                          ttl.DFBEffect.reserve(dst, tiles=1),
                                          ttl.DFBEffect.pop(src, tiles=1)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    call = _call(r)
    names = [v.name_hint for v in call.get_dfb_dependency_operands()]
    assert names == ["src", "dst", "third"]
    assert _effects(r.ir) == [
        "#ttl.dfb_effect<wait, 2, 1>",
        "#ttl.dfb_effect<reserve, 1, 1>",
        "#ttl.dfb_effect<pop, 0, 1>",
    ]


def test_dependencies_must_be_distinct(extern_error):
    """ "`dfb_dependencies` must contain distinct DFBs\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", dfb_dependencies=[src, src],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "DFB 'src' is listed twice in dfb_dependencies" in err.message
    assert "list each DFB once" in err.hint


@pytest.mark.parametrize("auto", ["func_args=[src]", "template_args=[ttl.dfb_descriptor(src)]"])
def test_dependencies_must_not_repeat_automatic_ones(extern_error, auto):
    """ "`dfb_dependencies` must contain distinct DFBs that are not already automatic
    dependencies.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", {auto}, dfb_dependencies=[src],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "already a dependency through func_args or ttl.dfb_descriptor" in err.message
    assert "remove src from dfb_dependencies" in err.hint


def test_effects_keep_the_call_wide_order(extern_compile):
    """ "The example defines one sequence across both DFBs: wait on `source`, pop `source`,
    reserve `destination`, then push `destination`." and "Actions on different DFBs occupy
    distinct positions in the call-wide sequence.\""""
    r = extern_compile(STAGE)
    assert _effects(r.ir) == [
        "#ttl.dfb_effect<wait, 0, 2>",
        "#ttl.dfb_effect<pop, 0, 2>",
        "#ttl.dfb_effect<reserve, 1, 1>",
        "#ttl.dfb_effect<push, 1, 1>",
    ]


def test_effects_emit_no_protocol_calls_and_keep_the_signature(extern_compile):
    """ "Effects describe external behavior; they do not emit reserve, push, wait, or pop
    calls. Dependency-only operands and all effect metadata leave the generated C++ call
    signature unchanged.\""""
    with_effects = extern_compile(STAGE).sources["data_movement.cpp"]
    plain = extern_compile(
        """
        ttl.call_extern_func(HEADER, "external_stage", template_args=[ttl.get_dfb_id(src)],
                             func_args=[src], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    ).sources["data_movement.cpp"]
    for text in (with_effects, plain):
        body = text.split("void kernel_main()")[1]
        assert re.findall(r"^\s+\w+(?:<.*>)?\(.*\);$", body, re.MULTILINE) == [
            "  external_stage<0>(dfb_src);"
        ]
    for api in ("cb_wait_front", "cb_pop_front", "cb_reserve_back", "cb_push_back"):
        assert api not in with_effects.split("void kernel_main()")[1]


@pytest.mark.parametrize(
    ("tiles", "shown"), [("0", "tiles=0"), ("-1", "tiles=-1"), ("3", "tiles=3")]
)
def test_tile_count_positive_and_within_capacity(extern_error, tiles, shown):
    """ "Each action explicitly names one DFB dependency and has a positive, statically
    resolvable tile count no greater than the DFB capacity.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", func_args=[src],
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles={tiles})],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert f"{shown} must be positive and at most the capacity of 'src' (2 tiles)" in err.message
    assert "1 <= tiles <= 2" in err.hint


def test_effect_must_name_a_declared_dependency(extern_error):
    """ "Each action explicitly names one DFB dependency\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src],
                             dfb_effects=[ttl.DFBEffect.push(dst, tiles=1)],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "effect on DFB 'dst', which is not a dependency of this call" in err.message
    assert "dfb_dependencies=[dst]" in err.hint


def test_static_count_forms(extern_compile):
    """ "Tile and repeat counts may use integer literals, integer captures, and module-level
    integer variables combined with unary `+` or `-` and the binary operators `+`, `-`, `*`,
    `//`, and `%`.\""""
    r = extern_compile(
        """
        big = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=8)
        local = 2
        ttl.call_extern_func(HEADER, "f", func_args=[big], dfb_effects=[
            ttl.DFBEffect.repeat(MODULE_COUNT % 3 + local - 1, [
                ttl.DFBEffect.wait(big, tiles=-(-MODULE_COUNT) // 2 * +1),
                ttl.DFBEffect.pop(big, tiles=(MODULE_COUNT * 3 - 4) // 4),
            ]),
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        top="MODULE_COUNT = 4",
    )
    assert _effects(r.ir) == ["#ttl.dfb_effect<wait, 0, 2>", "#ttl.dfb_effect<pop, 0, 2>"] * 2


@pytest.mark.parametrize(
    ("count", "what"),
    [
        ("True", "is a boolean, not an integer count"),
        ("ttl.node(dims=1)", "is not a static integer count"),
        ("n", "is a runtime value"),
        ("4 // (2 - 2)", "divisor '2 - 2' is zero"),
        ("4 % 0", "divisor '0' is zero"),
    ],
    ids=["bool", "call", "runtime", "floordiv-zero", "mod-zero"],
)
def test_invalid_static_counts(extern_error, count, what):
    """ "Booleans and runtime SSA values are not static integer counts. Floor-division and
    modulo divisors must be nonzero.\""""
    err = extern_error(
        f"""
        n = ttl.node(dims=1)
        ttl.call_extern_func(HEADER, "f", func_args=[src, n],
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles={count})],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert what in err.message
    assert "integer literals, integer captures or module-level integers" in err.hint


def test_repeat_expands_to_the_flat_sequence(extern_compile):
    """ "The frontend expands the repeat before creating IR, so downstream analyses receive
    the same flat effect sequence as an explicitly written list.\""""
    repeated = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects=[
            ttl.DFBEffect.repeat(TRANSACTIONS, [ttl.DFBEffect.wait(src, tiles=1),
                                                ttl.DFBEffect.pop(src, tiles=1)]),
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        top="TRANSACTIONS = 3",
    )
    flat = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects=[
            ttl.DFBEffect.wait(src, tiles=1), ttl.DFBEffect.pop(src, tiles=1),
            ttl.DFBEffect.wait(src, tiles=1), ttl.DFBEffect.pop(src, tiles=1),
            ttl.DFBEffect.wait(src, tiles=1), ttl.DFBEffect.pop(src, tiles=1),
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert _effects(repeated.ir) == _effects(flat.ir) and len(_effects(flat.ir)) == 6


def test_repeat_zero_times_is_empty(extern_compile):
    """ "`ttl.DFBEffect.repeat(count, effects)` repeats a nonempty literal effect sequence a
    nonnegative, statically resolvable number of times." (zero is allowed)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects=[
            ttl.DFBEffect.repeat(0, [ttl.DFBEffect.wait(src, tiles=1)]),
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "dfb_effects = []" in r.ir


@pytest.mark.parametrize(
    ("repeat", "what"),
    [
        ("ttl.DFBEffect.repeat(-1, [ttl.DFBEffect.wait(src, tiles=1)])", "must be non-negative"),
        ("ttl.DFBEffect.repeat(2, [])", "needs a nonempty literal list"),
        ("ttl.DFBEffect.repeat(2, EFFECTS)", "needs a nonempty literal list"),
    ],
    ids=["negative", "empty", "not-literal"],
)
def test_invalid_repeats(extern_error, repeat, what):
    """ "`ttl.DFBEffect.repeat(count, effects)` repeats a nonempty literal effect sequence a
    nonnegative, statically resolvable number of times.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects=[
            {repeat},  # ERROR
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        top="EFFECTS = []",
    )
    assert what in err.message


def test_limit_of_4096_actions(extern_compile, extern_error):
    """ "The expanded `dfb_effects` sequence is limited to 4096 actions per external call. This
    compiler-resource limit bounds materialization and analysis work; it is not a hardware
    limit\""""
    body = """
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects=[
            ttl.DFBEffect.repeat({n}, [ttl.DFBEffect.wait(src, tiles=1),  # ERROR
                                      ttl.DFBEffect.pop(src, tiles=1)]),
        ], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    assert len(_effects(extern_compile(body.format(n=2048)).ir)) == 4096
    err = extern_error(body.format(n=10**9))
    assert "more than 4096 actions" in err.message
    assert "compiler resource limit" in err.message and "not a hardware limit" in err.message


def test_partial_summary_is_valid(extern_compile):
    """ "A partial summary is valid but does not prove a bounded lifecycle for that
    dependency." (a wait without its pop compiles)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src],
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert _effects(r.ir) == ["#ttl.dfb_effect<wait, 0, 1>"]


def test_aliased_occurrences_are_not_merged(extern_compile):
    """ "A dependency occurrence with no listed effect is an opaque storage access ...
    including when operand adaptation aliases multiple occurrences to the same SSA DFB." and
    "Operation adaptation may map distinct occurrences to the same DFB without merging them.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src, src],
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    deps = _call(r).get_dfb_dependency_operands()
    assert len(deps) == 2 and deps[0] is deps[1]
    assert _effects(r.ir) == ["#ttl.dfb_effect<wait, 0, 1>"]  # occurrence 1 stays opaque


def test_unknown_dfb_access_is_a_unit_attribute(extern_compile):
    """ "`unknown_dfb_access=True` declares that external C++ may access user-managed DFBs not
    present in the declared dependencies." (recorded for allocation as an IR unit attribute)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src], unknown_dfb_access=True,
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    call = _call(r)
    assert call.unknown_dfb_access is not None
    assert len(call.dfb_effects.data) == 1  # listed effects remain available
    assert "unknown_dfb_access" in r.ir


def test_unknown_dfb_access_must_be_a_bool(extern_error):
    """`unknown_dfb_access=False` by default; only True/False are accepted."""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", unknown_dfb_access=1,  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "'unknown_dfb_access' must be True or False" in err.message


@pytest.mark.parametrize(
    ("effects", "what"),
    [
        ("EFFECTS", "dfb_effects must be a literal list"),
        ("[src]", "is not a DFB effect"),
        ("[ttl.DFBEffect.wait(src)]", "takes a DFB and tiles=N"),
    ],
    ids=["not-literal", "not-an-effect", "no-tiles"],
)
def test_malformed_effect_lists(extern_error, effects, what):
    """ "The supported actions are `ttl.DFBEffect.reserve`, `push`, `wait`, and `pop`.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", func_args=[src], dfb_effects={effects},  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        top="EFFECTS = []",
    )
    assert what in err.message


def test_effect_outside_dfb_effects_is_rejected(extern_error):
    """Effects are call metadata: "they do not emit reserve, push, wait, or pop calls"."""
    err = extern_error(
        """
        @ttl.datamovement()
        def dm():
            ttl.DFBEffect.wait(src, tiles=1)  # ERROR
        """
    )
    assert "only valid inside dfb_effects=[...]" in err.message


def test_callee_names_are_not_inspected(extern_compile):
    """ "Callee-name, header-name, and generated-C++ inspection do not provide a semantic
    contract and are not used." (a call named like a protocol API gets no effects)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "cb_wait_front", func_args=[src],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "dfb_effects = []" in r.ir
    assert "ttl.wait" not in r.ir


def test_conditional_actions_use_ttl_control_flow(extern_compile):
    """ "Conditional actions must use TTL control flow around both the matching acquisition
    and a call with an unconditional summary\""""
    r = extern_compile(
        """
        on = ttl.call_extern_func(HEADER, "is_enabled", result_type=ttl.ScalarType.I64,
                                  kernel=ttl.KernelKind.DATA_MOVEMENT)
        if on:
            with src.reserve() as blk:
                ttl.copy(inp[0, 0], blk).wait()
            ttl.call_extern_func(HEADER, "drain", func_args=[src],
                                 dfb_effects=[ttl.DFBEffect.wait(src, tiles=1),
                                              ttl.DFBEffect.pop(src, tiles=1)],
                                 kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(
        r.ir,
        """
        CHECK: scf.if
        CHECK: ttl.reserve
        CHECK: ttl.call_extern {{.*}}"drain"{{.*}}#ttl.dfb_effect<wait, 0, 1>, \
#ttl.dfb_effect<pop, 0, 1>
        """,
    )
