"""Debugging constructs in kernel bodies: ``print(...)`` and ``with ttl.signpost(name):``.

Spec v0.15, "Performance and debugging". ``print`` takes string constants,
scalars (compile-time values are formatted now, runtime integers and bools
on the device) and at most one TT-Lang object: a tensor (``num_pages=``,
default 1), a block (its tiles) or a DFB (its state). It lowers to one
``ttl.print`` op; ``ttl.signpost`` brackets its ``with`` body with
``ttl.signpost_begin``/``ttl.signpost_end``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ttl import dsl
from ttl._intrinsic import intrinsic_name
from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.values import BlockHandle, Dyn
from ttl.errors import TTLCompileError

_PRINT_KEYWORDS = ("sep", "end", "num_pages")
_OBJECTS = (dsl.TensorArg, dsl.DataflowBuffer, BlockHandle)


# f-string conversions (!r, !s, !a) by their ast.FormattedValue code.
_CONVERSIONS: dict[int, Callable[[Any], str]] = {ord("r"): repr, ord("s"): str, ord("a"): ascii}


class DebugMixin(MixinBase):
    """``print`` and ``ttl.signpost`` (mixed into KernelCompiler)."""

    # ------------------------------------------------------------ print
    def call_print(self, node: ast.Call) -> None:
        """``print(*args, sep=" ", end="\\n", num_pages=1)`` -> ``ttl.print``."""
        kw = {k.arg: k for k in node.keywords}
        for k in node.keywords:
            if k.arg not in _PRINT_KEYWORDS:
                self.fail(
                    f"print() got an unexpected keyword argument '{k.arg}'",
                    k.value if k.arg is not None else node,
                    "in a kernel print takes sep=, end= and (for a tensor) num_pages=",
                )
        sep = self._print_text(kw["sep"].value, "sep") if "sep" in kw else " "
        end = self._print_text(kw["end"].value, "end") if "end" in kw else "\n"
        args: list[list[str | int]] = []  # per argument: text, or the index of a value
        values: list[Any] = []
        obj: tuple[Any, ast.AST] | None = None
        obj_index = -1
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.fail("print(*args) is not supported in a kernel", arg, "list the values")
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                args.append([arg.value])
                continue
            if isinstance(arg, ast.JoinedStr):
                args.append(self._print_fstring(arg, values))
                continue
            v = self.visit(arg)
            if isinstance(v, _OBJECTS):
                if obj is not None:
                    self.fail(
                        f"print() takes one TT-Lang object per call; this is the second "
                        f"({self.describe(v)} after {self.describe(obj[0])})",
                        arg,
                        "print each tensor, block or dataflow buffer in its own print()",
                    )
                obj = (v, arg)
                values.append(self._print_object(v, arg))
                obj_index = len(values) - 1
                continue  # printed after the other arguments (as tt-lang-sim does)
            args.append([self._print_scalar(v, arg, values)])
        parts: list[str | int] = []
        for i, a in enumerate(args):
            parts += [sep, *a] if i else a
        if obj is not None:
            parts.append(obj_index)
        num_pages = None
        if "num_pages" in kw:
            if obj is None or not isinstance(obj[0], dsl.TensorArg):
                what = "no TT-Lang object" if obj is None else self.describe(obj[0])
                self.fail(
                    f"print(): num_pages= applies to a tensor, not {what}",
                    kw["num_pages"].value,
                    "remove num_pages=; a block prints all its tiles, a DFB its state",
                )
            num_pages = self._num_pages(obj[0], kw["num_pages"].value)
        merged = _merge_text(parts)
        self.emit(d.PrintOp(merged, values, end, num_pages))

    def _print_scalar(self, v: Any, arg: ast.AST, values: list[Any]) -> str | int:
        """Text for a compile-time value, or the index in ``values`` of a runtime one."""
        if isinstance(v, Dyn):
            values.append(v.value)
            return len(values) - 1
        if isinstance(v, bx.Expr):
            self.fail(
                "print() cannot print a block expression",
                arg,
                "store it into a reserved block and print the block",
            )
        if isinstance(v, _OBJECTS):
            self.fail(
                f"an f-string cannot format {self.describe(v)}",
                arg,
                "pass the tensor, block or dataflow buffer to print() as its own argument",
            )
        if isinstance(v, str | int | float | bool) or v is None:
            return str(v)  # a compile-time value: Python's own text
        self.fail(f"print() cannot print {self.describe(v)}", arg, _PRINT_HINT)

    def _print_fstring(self, node: ast.JoinedStr, values: list[Any]) -> list[str | int]:
        """An f-string argument: its text, and its runtime values in place."""
        out: list[str | int] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
                continue
            assert isinstance(part, ast.FormattedValue)
            v = self.visit(part.value)
            spec = part.format_spec
            if isinstance(v, Dyn) and (spec is not None or part.conversion == ord("a")):
                self.fail(
                    "a runtime value in an f-string prints with its default format",
                    part,
                    f"write {{{ast.unparse(part.value)}}} without a format specification",
                )
            if not isinstance(v, Dyn) and (spec is not None or part.conversion != -1):
                text = self._format_spec(spec) if isinstance(spec, ast.JoinedStr) else ""
                conv = _CONVERSIONS.get(part.conversion)
                v = format(conv(v) if conv else v, text)
            out.append(self._print_scalar(v, part, values))
        return out

    def _format_spec(self, spec: ast.JoinedStr) -> str:
        """The text of a format specification (``3d``, or ``{width}d`` of constants)."""
        text = ""
        for part in spec.values:
            if isinstance(part, ast.Constant):
                v = part.value
            else:
                assert isinstance(part, ast.FormattedValue)
                v = self.visit(part.value)
            if isinstance(v, Dyn):
                self.fail(
                    "a format specification must be a compile-time value",
                    part,
                    "write a constant specification, e.g. {x:>4}",
                )
            text += str(v)
        return text

    def _print_text(self, arg: ast.expr, what: str) -> str:
        v = arg.value if isinstance(arg, ast.Constant) else self.visit(arg)
        if not isinstance(v, str):
            self.fail(f"print(): {what}= must be a constant string", arg, f'e.g. {what}=""')
        return v

    def _num_pages(self, tensor: dsl.TensorArg, arg: ast.expr) -> int:
        n = self.visit(arg)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            self.fail(
                f"print(): num_pages must be a positive compile-time integer, got "
                f"{self.describe(n)}" + (f" {n}" if isinstance(n, int) else ""),
                arg,
                "e.g. num_pages=2",
            )
        return min(n, _tensor_pages(tensor))  # the first n pages: all of them, if fewer

    def _print_object(self, v: Any, node: ast.AST):
        row_major = (isinstance(v, BlockHandle) and v.dfb.is_row_major) or (
            isinstance(v, dsl.TensorArg) and v.spec.is_row_major
        )
        if row_major:  # the print formats show tiles: row-major data would be garbled
            self.fail(
                f"print() of {self.describe(v)} is not supported: it is row-major, and "
                "print shows tensors and blocks as 32x32 tiles",
                node,
                "print a DFB's state, or copy the data into a tiled tensor's DFB to print it",
            )
        if isinstance(v, BlockHandle):
            self.check_live(v, node)
            self.check_not_writing(v, node, "print()")
            v.unread = False
            return v.value
        return self.ref(v, node)

    # ------------------------------------------------------------ signpost
    def call_signpost(self, node: ast.Call) -> None:
        """``ttl.signpost(...)`` outside a ``with`` item."""
        self.fail(
            "ttl.signpost() can only be used as a 'with' statement",
            node,
            "write 'with ttl.signpost(\"name\"):' around the code to measure",
        )

    def signpost_name(self, expr: ast.expr) -> str | None:
        """The name if ``expr`` is ``ttl.signpost(name)`` (checked), else None."""
        if not isinstance(expr, ast.Call):
            return None
        try:
            callee = self.visit(expr.func)
        except TTLCompileError:
            return None  # not a name we know: the caller reports it as usual
        if intrinsic_name(callee) != "signpost":
            return None
        if len(expr.args) != 1 or expr.keywords:
            self.fail(
                "ttl.signpost() takes one argument, the signpost's name",
                expr,
                'write ttl.signpost("name")',
            )
        arg = expr.args[0]
        name = arg.value if isinstance(arg, ast.Constant) else self.visit(arg)
        if not isinstance(name, str):
            self.fail(
                f"ttl.signpost() name must be a constant string, got {self.describe(name)}",
                arg,
                'write ttl.signpost("read a and b")',
            )
        return name


_PRINT_HINT = "print() takes string constants, integers and one tensor, block or dataflow buffer"


def _merge_text(parts: list[str | int]) -> list[str | int]:
    """Joins adjacent text parts (deterministic, fewer device calls)."""
    out: list[str | int] = []
    for p in parts:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        elif p != "":
            out.append(p)
    return out


def _tensor_pages(tensor: dsl.TensorArg) -> int:
    """Tiles (DRAM pages) of a tiled tensor."""
    shape = tensor.spec.shape
    n = 1
    for s in shape[:-2]:
        n *= s
    return n * (-(-shape[-2] // 32)) * (-(-shape[-1] // 32))
