"""Calls of reductions, transpose, where and mask (``ttl.math.*`` and ``ttl.block.*``)."""

from __future__ import annotations

import ast

from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.calls import CallsMixin


class ReduceCallsMixin(CallsMixin):
    """reduce_sum/reduce_max, transpose, where, mask, mask_posinf (mixed into KernelCompiler)."""

    def call_reduce_sum(self, node: ast.Call) -> bx.Expr:
        return self._reduce(d.ReduceKindEnum.SUM, node)

    def call_reduce_max(self, node: ast.Call) -> bx.Expr:
        return self._reduce(d.ReduceKindEnum.MAX, node)

    def _reduce(self, kind: d.ReduceKindEnum, node: ast.Call) -> bx.Expr:
        fname = f"reduce_{kind.value}"
        a = self.args(node, ["x", "scaler", "dims", "shape"], 1)
        operand = self.block_operand(a["x"], node.args[0] if node.args else node)
        operand = self.materialize_operand(operand, node, f"{fname}()")
        if isinstance(a.get("scaler"), list | tuple):  # tt-lang-sim: reduce_sum(x, dims, shape)
            a["scaler"], a["dims"], a["shape"] = None, a["scaler"], a.get("dims", a.get("shape"))
        scaler = None
        if a.get("scaler") is not None:
            scaler = self.materialize_operand(
                self.block_operand(a["scaler"], node), node, f"the scaler of {fname}()"
            )
        if "dims" not in a or a["dims"] is None:
            self.fail(
                f"{fname}() needs dims=[...]", node, f"e.g. ttl.math.{fname}(x, s, dims=[-1])"
            )
        dims = a["dims"]
        if isinstance(dims, int) and not isinstance(dims, bool):
            dims = [dims]
        if not isinstance(dims, list | tuple) or not dims:
            self.fail("dims must be a list of compile-time integers", node, "write dims=[-1]")
        dims_t = tuple(self.static_int(x, node, f"each {fname} dim") for x in dims)
        shape = None if a.get("shape") is None else self.static_shape(a["shape"], node)
        return bx.Reduce(node, kind.value, operand, scaler, dims_t, shape)

    def call_transpose(self, node: ast.Call) -> bx.Expr:
        x = self.args(node, ["x"], 1)["x"]
        operand = self.materialize_operand(self.block_operand(x, node), node, "transpose()")
        return bx.Transpose(node, operand)

    def call_where(self, node: ast.Call) -> bx.Expr:
        a = self.args(node, ["condition", "true_value", "false_value"], 3)
        cond, t, f = (
            self.block_operand(a[n], node) for n in ("condition", "true_value", "false_value")
        )
        return bx.Where(node, cond, t, f)

    def call_mask(self, node: ast.Call) -> bx.Expr:
        return self._mask(node, posinf=False)

    def call_mask_posinf(self, node: ast.Call) -> bx.Expr:
        return self._mask(node, posinf=True)

    def _mask(self, node: ast.Call, posinf: bool) -> bx.Expr:
        a = self.args(node, ["x", "mask"], 2)
        return bx.Mask(
            node, self.block_operand(a["x"], node), self.block_operand(a["mask"], node), posinf
        )
