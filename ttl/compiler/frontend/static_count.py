"""Static integer counts of DFB effects (tiles, repeat counts).

Accepted: integer literals, names bound to integers at compile time (captures,
module-level integers), unary ``+``/``-`` and binary ``+ - * // %``.
Booleans and runtime values are rejected; divisors must be nonzero.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ttl.compiler.frontend.values import Dyn

if TYPE_CHECKING:
    from ttl.compiler.frontend.protocol import KernelCompilerProtocol

_HINT = (
    "use integer literals, integer captures or module-level integers combined with "
    "unary + - and + - * // %"
)
_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


def static_count(compiler: KernelCompilerProtocol, node: ast.expr, what: str) -> int:
    """Evaluate ``node`` as a static count, or fail at the offending sub-expression."""
    if isinstance(node, ast.Constant):
        return _int(compiler, node.value, node, what)
    if isinstance(node, ast.Name):
        return _int(compiler, compiler.visit(node), node, what)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        v = static_count(compiler, node.operand, what)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        a = static_count(compiler, node.left, what)
        b = static_count(compiler, node.right, what)
        if isinstance(node.op, ast.FloorDiv | ast.Mod) and b == 0:
            compiler.fail(f"{what}: divisor '{ast.unparse(node.right)}' is zero", node.right, _HINT)
        return _BINARY[type(node.op)](a, b)
    compiler.fail(f"{what} '{ast.unparse(node)}' is not a static integer count", node, _HINT)


def _int(compiler: KernelCompilerProtocol, value: Any, node: ast.expr, what: str) -> int:
    if isinstance(value, bool):
        compiler.fail(
            f"{what} '{ast.unparse(node)}' is a boolean, not an integer count", node, _HINT
        )
    if isinstance(value, Dyn):
        compiler.fail(
            f"{what} '{ast.unparse(node)}' is a runtime value, not a static integer count",
            node,
            _HINT,
        )
    if not isinstance(value, int):
        compiler.fail(f"{what} '{ast.unparse(node)}' is not an integer", node, _HINT)
    return value
