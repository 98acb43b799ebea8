"""Unary ``ttl.math`` calls, ``**`` and ``ttl.math`` name lookup in kernel bodies.

``ttl.math.<fn>(expr, <params>)`` binds its arguments like a Python call
(positional or keyword, tt-lang-sim's keyword spellings as aliases, the
defaults of ``ttl.math.UNARY_PARAMS``) and checks each parameter's kind at
compile time: a natural (``ttl.NaturalInt``: an int >= 0) or a number.
"""

from __future__ import annotations

import ast
import difflib
import sys
import types
from typing import Any, NoReturn

from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.protocol import KernelCompilerProtocol
from ttl.compiler.frontend.values import BlockHandle, Dyn
from ttl.math import EXP_MAX_ITERATIONS, EXP_OPTIONS, UNARY_FUNCTIONS, UNARY_PARAMS, UnaryParam

# Keyword spellings of the block operand: the spec's ``expr``, ours and tt-lang-sim's.
_OPERAND_NAMES = ("expr", "x", "block")


def signature(fn: str) -> str:
    """``ttl.math.<fn>(expr, ...)`` as the spec writes it (for hints)."""
    parts = ["expr"]
    for p in UNARY_PARAMS.get(fn, ()):
        parts.append(p.name if p.default is None else f"{p.name}={p.default!r}")
    return f"ttl.math.{fn}({', '.join(parts)})"


def call_unary(kc: KernelCompilerProtocol, name: str, node: ast.Call) -> bx.Expr:
    """``ttl.math.<fn>(...)`` -> a ``bx.Unary`` with its parameters resolved."""
    fn = name.split(".", 1)[1]
    assert fn in UNARY_FUNCTIONS
    if fn == "exp":
        return call_exp(kc, node)
    specs = UNARY_PARAMS.get(fn, ())
    names = ["expr"] + [p.name for p in specs]
    sig = signature(fn)
    if len(node.args) > len(names):
        kc.fail(
            f"ttl.math.{fn}() takes {len(names)} argument{'s' if len(names) > 1 else ''} "
            f"but {len(node.args)} were given",
            node,
            f"write {sig}",
        )
    values: dict[str, tuple[Any, ast.AST]] = {}
    for n, arg in zip(names, node.args, strict=False):
        if isinstance(arg, ast.Starred):
            kc.fail(f"*args is not supported in ttl.math.{fn}()", arg, f"write {sig}")
        values[n] = (kc.visit(arg), arg)
    for kw in node.keywords:
        key = kw.arg
        if key in _OPERAND_NAMES:
            key = "expr"
        for p in specs:
            if key in p.aliases:
                key = p.name
        if key is None or key not in names:
            shown = "**kwargs" if kw.arg is None else f"keyword argument '{kw.arg}'"
            kc.fail(f"ttl.math.{fn}() got an unexpected {shown}", kw.value, f"its form is {sig}")
        if key in values:
            kc.fail(
                f"ttl.math.{fn}() got multiple values for argument '{key}'",
                kw.value,
                f"pass '{key}' once: {sig}",
            )
        values[key] = (kc.visit(kw.value), kw.value)
    if "expr" not in values:
        kc.fail(f"ttl.math.{fn}() is missing its block operand 'expr'", node, f"write {sig}")
    operand = kc.block_operand(*values["expr"])
    params: list[float | int] = []
    for p in specs:
        if p.name in values:
            params.append(check_param(kc, fn, p, *values[p.name]))
        elif p.default is None:
            kc.fail(f"ttl.math.{fn}() is missing its '{p.name}' argument", node, f"write {sig}")
        else:
            params.append(int(p.default) if p.kind == "natural" else float(p.default))
    return bx.Unary(node, fn, operand, tuple(params))


def call_exp(kc: KernelCompilerProtocol, node: ast.Call) -> bx.Expr:
    """``ttl.math.exp(expr, *, approx=, scale=, skip_clamp_check=, iterations=)`` (spec
    v0.20). ``exp(x * C)`` (or ``exp(C * x)``) with no ``scale=`` is ``exp(x, scale=C)``:
    the SFPU scales its input itself (the spec's canonicalisation)."""
    sig = "ttl.math.exp(expr, *, approx=False, scale=None, skip_clamp_check=False, iterations=8)"
    operand_nodes = [*node.args[:1], *(k.value for k in node.keywords if k.arg in _OPERAND_NAMES)]
    if len(node.args) > 1 or len(operand_nodes) != 1:
        kc.fail(
            "ttl.math.exp() takes one block operand; its options are keyword-only",
            node,
            f"write {sig}",
        )
    options = {p.name: p for p in EXP_OPTIONS}
    values: dict[str, float | int] = {}
    for kw in node.keywords:
        if kw.arg in _OPERAND_NAMES:
            continue
        if kw.arg not in options:
            shown = "**kwargs" if kw.arg is None else f"keyword argument '{kw.arg}'"
            kc.fail(f"ttl.math.exp() got an unexpected {shown}", kw.value, f"its form is {sig}")
        value = kc.visit(kw.value)
        if kw.arg == "scale" and value is None:
            continue  # the default: no scaling
        values[kw.arg] = _exp_option(kc, options[kw.arg], value, kw.value)
    operand = kc.block_operand(kc.visit(operand_nodes[0]), operand_nodes[0])
    if isinstance(operand, bx.Scalar) and operand.fn == "mul" and "scale" not in values:
        values["scale"] = float(operand.value)
        operand = operand.operand
    params = tuple(values.get(p.name, p.default) for p in EXP_OPTIONS)
    if params == tuple(p.default for p in EXP_OPTIONS):
        return bx.Unary(node, "exp", operand)
    # (ignore: defaults are numbers for every option)
    return bx.Unary(node, "exp", operand, params)  # type: ignore[arg-type]


def _exp_option(kc: KernelCompilerProtocol, p: UnaryParam, v: Any, where: ast.AST) -> float | int:
    what = f"'{p.name}' of ttl.math.exp"
    if p.kind == "flag":
        if isinstance(v, bool):
            return int(v)
        kc.fail(
            f"{what} must be a compile-time bool, got {_describe(kc, v)}",
            where,
            f"write {p.name}=True or {p.name}=False",
        )
    value = check_param(kc, "exp", p, v, where)
    if p.name == "iterations" and not 1 <= int(value) <= EXP_MAX_ITERATIONS:
        kc.fail(
            f"{what} is {value}: the emulator models 1 to {EXP_MAX_ITERATIONS} SFPU "
            "iterations (8 cover a whole 16x16 face)",
            where,
            "omit iterations= (8), or give 1 to 8",
        )
    return value


def check_param(
    kc: KernelCompilerProtocol, fn: str, p: UnaryParam, v: Any, where: ast.AST
) -> float | int:
    """A parameter's compile-time value, or a located error naming its kind."""
    what = f"'{p.name}' of ttl.math.{fn}" if fn != "**" else "the exponent of '**'"
    got = _describe(kc, v)
    if p.kind == "natural":
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v
        if isinstance(v, int | float) and not isinstance(v, bool):
            reason = "negative" if v < 0 else "not an integer"
            kc.fail(
                f"{what} must be a natural number (ttl.NaturalInt: an int >= 0), got {v!r} "
                f"({reason})",
                where,
                "write a non-negative integer constant, e.g. 2",
            )
        kc.fail(
            f"{what} must be a compile-time natural number (ttl.NaturalInt), got {got}",
            where,
            "write a non-negative integer constant, or a captured int",
        )
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    kc.fail(
        f"{what} must be a compile-time int or float, got {got}",
        where,
        f"write a number, e.g. {p.name}=1.0; block math parameters are constants",
    )


def _describe(kc: KernelCompilerProtocol, v: Any) -> str:
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, bool):
        return f"the bool {v}"
    if isinstance(v, Dyn):
        return f"{kc.describe(v)} (only known when the kernel runs)"
    return kc.describe(v)


def block_pow(kc: KernelCompilerProtocol, base: Any, exponent: Any, node: ast.AST) -> bx.Expr:
    """``blk ** n`` with ``n`` a compile-time natural: ``ttl.math.pow(blk, n)``."""
    if not isinstance(base, BlockHandle | bx.Expr):
        kc.fail(
            f"'**' with a block exponent is not supported (base: {_describe(kc, base)})",
            node,
            "the exponent of '**' on blocks is a compile-time natural: write blk ** 2",
        )
    if isinstance(exponent, BlockHandle | bx.Expr):
        kc.fail(
            "the exponent of '**' must be a compile-time natural number, got a block",
            node,
            "write blk ** 2 or ttl.math.pow(blk, 2); element-wise powers of blocks are "
            "ttl.math.exp(b * ttl.math.log(a))",
        )
    where = node.right if isinstance(node, ast.BinOp) else node
    n = check_param(kc, "**", UNARY_PARAMS["pow"][0], exponent, where)
    return bx.Unary(node, "pow", kc.block_operand(base, node), (n,))


def unknown_attribute(kc: KernelCompilerProtocol, module: Any, node: ast.Attribute) -> None:
    """Fails with close-name suggestions when ``node`` names a missing ``ttl.*`` function."""
    if not isinstance(module, types.ModuleType) or not module.__name__.startswith("ttl."):
        return
    public = [n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))]
    close = difflib.get_close_matches(node.attr, public, n=3, cutoff=0.6)
    label = module.__name__
    # The same name in the sibling namespace (tt-lang-sim spells some ttl.math.* as ttl.block.*).
    sibling = {"ttl.block": "ttl.math", "ttl.math": "ttl.block"}.get(label)
    elsewhere = sibling is not None and callable(getattr(sys.modules.get(sibling), node.attr, None))
    hint = (
        f"write {sibling}.{node.attr}(...)"
        if elsewhere
        else "did you mean " + " or ".join(f"{label}.{c}" for c in close) + "?"
        if close
        else f'docs/language.md, "Block math", lists the functions of {label}'
    )
    _fail(kc, f"{label} has no function '{node.attr}'", node, hint)


def _fail(kc: KernelCompilerProtocol, message: str, node: ast.AST, hint: str) -> NoReturn:
    kc.fail(message, node, hint)
