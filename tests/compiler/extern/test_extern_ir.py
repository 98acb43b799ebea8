"""Spec: "The IR stores each effect as a generated enum and a typed attribute. Its dependency
index identifies an element of the value sequence returned by the call's
`getDFBDependencyOperands()` interface method." (and the rest of the IR contract)"""

from __future__ import annotations

import pytest
from compiler_testlib import parse_ir
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, ModuleOp, StringAttr, bf16, i32, i64
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ttl.compiler import dialect as d

DFB = d.DFBType((1, 1), bf16)


def _module(make_call) -> tuple[ModuleOp, d.CallExternOp]:
    top = Block()
    top.add_op(d.TensorOp("t", 0, d.TensorType((32, 32), bf16)))
    for name in ("a", "b"):
        top.add_op(d.DFBOp(name, "t", DFB, 2, 2048))
    kb = Block()
    a, b = (kb.add_op(d.GetDFBOp(n, DFB)) or kb.last_op for n in ("a", "b"))
    call = make_call(a.results[0], b.results[0])
    kb.add_op(call)
    top.add_op(d.KernelOp("k", d.KernelKindEnum.DATA_MOVEMENT, "op.k", Region(kb)))
    return ModuleOp([d.OperationOp("op", (1, 1), "wormhole_b0", "id", Region(top))]), call


def _stage(a, b, **kw):
    args = {
        "template_args": [
            d.DFBIdAttr("a"),
            IntegerAttr(4, i64),
            BoolAttr.from_bool(False),
            d.FloatBitsAttr(1065353216),
            d.DFBDescriptorAttr("b"),
        ],
        "func_args": [a, a],
        "descriptor_dfbs": [b],
        "dfb_dependencies": [],
        "dfb_effects": [
            d.DFBEffectAttr(d.DFBEffectKind.WAIT, 0, 2),
            d.DFBEffectAttr(d.DFBEffectKind.PUSH, 2, 1),
        ],
    }
    args.update(kw)
    return d.CallExternOp("h.hpp", "stage", **args)


def test_effect_kind_is_a_generated_enum():
    """ "The IR stores each effect as a generated enum and a typed attribute.\""""
    assert issubclass(d.DFBEffectKind, StrEnum)
    # The four protocol actions, and the typed accesses of dfb_accesses (identity
    # transitions, tests/compiler/extern/test_extern_accesses.py).
    kinds = [k.value for k in d.DFBEffectKind]
    assert kinds == ["reserve", "push", "wait", "pop", "inspect", "interface_preserved"]
    assert [k.is_access for k in d.DFBEffectKind] == [False] * 4 + [True] * 2
    attr = d.DFBEffectAttr(d.DFBEffectKind.POP, 1, 3)
    assert isinstance(attr.kind, d.DFBEffectKindAttr) and attr.kind.data is d.DFBEffectKind.POP


def test_dependency_operands_interface_and_order():
    """ "Its dependency index identifies an element of the value sequence returned by the
    call's `getDFBDependencyOperands()` interface method." (aliased occurrences stay apart)"""
    module, call = _module(lambda a, b: _stage(a, b))
    module.verify()
    trait = call.get_trait(d.DFBDependencyInterface)
    assert trait is not None
    deps = trait.get_dfb_dependency_operands(call)
    assert deps == call.getDFBDependencyOperands() == call.get_dfb_dependency_operands()
    assert [v.owner.ref.root_reference.data for v in deps] == ["a", "a", "b"]


def test_ir_prints_and_parses_back():
    """Template args are ordered typed attributes; DFB operands are a separate segment."""
    module, _ = _module(lambda a, b: _stage(a, b, condition=None))
    text = str(module)
    assert (
        "template_args = [#ttl.dfb_id<@a>, 4 : i64, false, #ttl.float_bits<1065353216>, "
        "#ttl.dfb_descriptor<@b>]" in text
    )
    assert "dfb_effects = [#ttl.dfb_effect<wait, 0, 2>, #ttl.dfb_effect<push, 2, 1>]" in text
    reparsed = parse_ir(text)
    reparsed.verify()
    assert str(reparsed) == text


def _condition(a, b):
    return d.CallExternOp("h.hpp", "c", result_type=i64, condition=d.DispatchConditionAttr(0, i64))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda a, b: _stage(a, b, dfb_effects=[d.DFBEffectAttr(d.DFBEffectKind.POP, 3, 1)]),
            "dependency_index out of range",
        ),
        (lambda a, b: _stage(a, b, func_args=[]), "needs that DFB as a dependency"),
        (lambda a, b: _stage(a, b, descriptor_dfbs=[]), "one descriptor_dfbs operand"),
        (lambda a, b: _stage(a, b, template_args=[StringAttr("x")]), "unsupported template"),
        (
            lambda a, b: _stage(
                a, b, dfb_effects=[d.DFBEffectAttr(d.DFBEffectKind.WAIT, 0, 1)] * 4097
            ),
            "more than 4096",
        ),
        (
            lambda a, b: d.CallExternOp(
                "h",
                "c",
                dfb_dependencies=[a],
                result_type=i64,
                condition=d.DispatchConditionAttr(0, i64),
            ),
            "cannot touch DFBs",
        ),
        (
            lambda a, b: d.CallExternOp(
                "h", "c", result_type=i32, condition=d.DispatchConditionAttr(0, i64)
            ),
            "returns the condition's type",
        ),
    ],
    ids=[
        "index-range",
        "id-without-dependency",
        "descriptor-operand",
        "template-kind",
        "limit",
        "condition-dfb",
        "condition-type",
    ],
)
def test_verifier_rejects_malformed_calls(make, message):
    """The op's `verify_` enforces the contract passes rely on."""
    module, _ = _module(make)
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_condition_call_verifies():
    """ "In the compiled IR module, equal condition attributes identify one declaration\""""
    module, call = _module(_condition)
    module.verify()
    assert call.condition == d.DispatchConditionAttr(0, i64)
    assert call.condition != d.DispatchConditionAttr(1, i64)
