"""Typed contracts between the kernel frontend's mixins and their host class.

:class:`~ttl.compiler.frontend.kernel.KernelCompiler` is assembled from three
mixins (:class:`~.control.ControlFlowMixin`, :class:`~.calls.CallsMixin`,
:class:`~.extern.ExternMixin`) and ``ast.NodeVisitor``. Each mixin reads state
and calls methods that another part of the class defines.
:class:`KernelCompilerProtocol` declares exactly those members: the state and
helpers of ``KernelCompiler`` itself, ``NodeVisitor.visit``, and the few methods
one mixin borrows from another (``_kind``, ``release``, ``call_extern_intrinsic``).

The chosen approach: every mixin derives from :class:`MixinBase`, which is the
protocol (behind ``ast.NodeVisitor``) while type checking and plain ``object``
at run time::

    class CallsMixin(MixinBase): ...

rather than annotating ``self: KernelCompilerProtocol`` on each mixin method.
With explicit self-types the protocol would also have to declare every helper
a mixin calls on itself (dozens of private methods); deriving from it, a
mixin's own methods type-check as usual and only what it takes from elsewhere
is declared. mypy also checks each definition in ``KernelCompiler`` and the
mixins against the protocol's signature (an incompatible override is an error),
so the contract cannot drift from the implementation. At run time nothing
changes: the mixins derive from ``object`` as before, the MRO of
``KernelCompiler`` is the same, and the protocol is never instantiated.

:class:`Reporter` is the smaller contract of helpers that only report errors
(``kernel=`` selectors, ``ttl.call_extern_func`` argument binding), which the
kernel compiler and the unified-operation splitter both satisfy.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Block, Operation, SSAValue

from ttl import dsl
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.symbols import ModuleSymbols
from ttl.compiler.frontend.values import BlockHandle, Dyn
from ttl.compiler.model import OperationModel, ThreadModel
from ttl.errors import TTLCompileError

_OpT = TypeVar("_OpT", bound=Operation)


class Reporter(Protocol):
    """Reports a compile error at an AST node."""

    def fail(self, message: str, node: ast.AST, hint: str) -> NoReturn: ...


class KernelCompilerProtocol(Protocol):
    """What the frontend mixins use from the class they are mixed into."""

    # ------------------------------------------------------------ state
    model: OperationModel
    thread: ThreadModel
    symbols: ModuleSymbols
    is_compute: bool
    vars: dict[str, Any]  # name -> frontend value (see values.py)
    blocks: list[Block]  # innermost last: where emit() appends
    handles: list[BlockHandle]  # every block acquired so far
    published: set[str]  # tensor-backed DFBs published by this kernel (dfb.publish())
    loop_depth: int
    stmt: ast.AST  # the statement being compiled (the location of emitted ops)

    # ------------------------------------------------------------ ast.NodeVisitor
    def visit(self, node: ast.AST) -> Any: ...

    # ------------------------------------------------------------ KernelCompiler
    def visit_body(self, stmts: list[ast.stmt]) -> None: ...

    def error(self, message: str, node: ast.AST, hint: str | None = None) -> TTLCompileError: ...

    def fail(self, message: str, node: ast.AST, hint: str | None = None) -> NoReturn: ...

    def emit(self, op: _OpT) -> _OpT: ...

    def ref(self, obj: dsl.TensorArg | dsl.DataflowBuffer, node: ast.AST) -> SSAValue: ...

    def to_ssa(self, v: Any, node: ast.AST) -> SSAValue: ...

    def describe(self, v: Any) -> str: ...

    def bind(self, name: str, value: Any) -> None: ...

    def truth(self, v: Any, node: ast.AST) -> SSAValue: ...

    def _assign_target(self, target: ast.expr, value: Any) -> None: ...

    def block_operand(self, v: Any, node: ast.AST) -> bx.Expr: ...

    def int_binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Dyn: ...

    def block_fn(self, fn: str, left: Any, right: Any, node: ast.AST) -> bx.Expr: ...

    def scalar_operand(self, v: Any, node: ast.AST) -> float: ...

    # ------------------------------------------------------------ borrowed between mixins
    def _kind(self, v: Any) -> str: ...  # ControlFlowMixin

    def release(self, h: BlockHandle, node: ast.AST, implicit: bool) -> None: ...  # CallsMixin

    def call_extern_intrinsic(self, name: str, node: ast.Call) -> Any: ...  # ExternMixin

    def check_live(self, h: BlockHandle, node: ast.AST) -> None: ...  # CallsMixin

    def check_not_writing(self, h: BlockHandle, node: ast.AST, what: str) -> None: ...  # CallsMixin

    def note_write(self, h: BlockHandle, node: ast.AST, what: str) -> None: ...  # CallsMixin

    def check_not_read_by_copy(
        self, h: BlockHandle, node: ast.AST, what: str
    ) -> None: ...  # CallsMixin

    def element_compare(
        self, op: ast.cmpop, left: Any, right: Any, node: ast.AST
    ) -> Dyn: ...  # ElementsMixin

    def store_expr(
        self, h: BlockHandle, expr: bx.Expr, acc: bool, node: ast.AST
    ) -> None: ...  # CallsMixin

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any: ...

    def _loc(self, node: ast.AST) -> FileLineColLoc: ...

    def args(self, node: ast.Call, names: list[str], required: int) -> dict[str, Any]: ...

    def per_node(self, v: Any) -> Any: ...  # SyncMixin

    def call_sync_method(self, obj: Any, method: str, node: ast.Call) -> Any: ...  # SyncMixin

    def call_print(self, node: ast.Call) -> None: ...  # DebugMixin

    def signpost_name(self, expr: ast.expr) -> str | None: ...  # DebugMixin

    def visit_If(self, node: ast.If) -> None: ...  # ControlFlowMixin
    def exhaustive_switch(
        self, stmts: list[ast.stmt], i: int
    ) -> tuple[ast.If, int] | None: ...  # ControlFlowMixin

    def refuse_branch_on(self, cond: Any, node: ast.AST) -> None: ...  # ControlFlowMixin

    def call_pipe_net(self, m: Any, node: ast.Call) -> Any: ...  # PipesMixin

    def call_helper(self, fn: Any, fdef: ast.FunctionDef, node: ast.Call) -> Any: ...  # Inline

    def call_function(self, fn: Any, node: ast.Call) -> Any: ...  # InlineMixin

    def lookup_free_name(self, name: str) -> Any: ...  # InlineMixin

    def pipe_copy(self, node: ast.Call, src: Any, dst: Any) -> Any: ...  # PipesMixin

    def _and(self, a: Any, b: Any, node: ast.AST) -> Any: ...

    def _compiler_buffer(
        self, base: str, shape: tuple[int, ...], dtype: str, node: ast.AST
    ) -> tuple[Any, SSAValue]: ...  # AccumulateMixin

    # ------------------------------------------------------------ accumulators (accumulate.py)
    filename: str  # the file of the code being compiled (a helper's, while inlining it)
    header: list[Operation]  # ops placed at the kernel's entry
    accumulators: dict[str, BlockHandle]  # accumulator name -> its reserved block
    accumulator_names: frozenset[str]  # targets of augmented assignments (compute kernels)
    materialized: list[list[BlockHandle]]  # per open statement list: blocks to pop at its end

    def materialize_operand(self, expr: bx.Expr, node: ast.AST, what: str) -> bx.Expr: ...


if TYPE_CHECKING:

    class MixinBase(ast.NodeVisitor, KernelCompilerProtocol):
        """The mixins' base for mypy: the protocol, after ``ast.NodeVisitor``.

        ``ast.NodeVisitor`` comes first so that its ``visit`` implements the
        protocol's (a protocol method with an empty body counts as abstract, and
        ``KernelCompiler(...)`` would be rejected as instantiating an abstract class).
        """

        # Re-declared: the mixins rebind these. A bare annotation in a protocol is an
        # abstract member, and mypy lets a subclass's ``self.x = ...`` define a new
        # attribute (of the first assigned value's type) instead of checking it.
        vars: dict[str, Any]
        stmt: ast.AST

else:
    MixinBase = object
