"""The TT-Lang operation-level objects: operations, kernels, DFBs, tensors.

The top level of an operation body runs in Python with :class:`TensorArg`
proxies built from tensor specs; the objects here record what it declares
(DFBs, kernel functions) into the active :class:`EvalContext`. Kernel bodies
are never executed; the compiler reads them from their AST.
"""

from __future__ import annotations

import contextvars
import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ttl._intrinsic import INTRINSIC_ATTR, intrinsic
from ttl.errors import SourceLoc, TTLCompileError, caller_loc
from ttl.specs import ROW_MAJOR_PAGE_ELEMENTS, TILE, TensorSpec, normalize_dtype
from ttl.targets import COMPUTE, DATA_MOVEMENT, TILE_COLS, TILE_ROWS, tile_bytes

#: Rows x columns of one tile, in elements.
TILE_SHAPE = (TILE_ROWS, TILE_COLS)


class KernelKind(enum.Flag):
    """Kinds of logical kernels; combine with ``|`` to select several."""

    COMPUTE = enum.auto()
    DATA_MOVEMENT = enum.auto()

    @property
    def slot_kind(self) -> str:
        """The slot-table key (``compute`` / ``data_movement``) of a single kind."""
        return COMPUTE if self is KernelKind.COMPUTE else DATA_MOVEMENT


@dataclass(frozen=True)
class KernelBinding:
    """Where a :class:`Kernel` handle belongs: its owning operation and capture name."""

    owner: Any  # the ttl.Operation that registered the handle (compared with ``is``)
    capture_name: str

    @property
    def operation_name(self) -> str:
        return self.owner.name


class Kernel:
    """An operation-local logical-kernel handle of one kind.

    Distinguishes several kernels of the same kind (see the external-functions
    spec). Operation registration binds the handle in place, exactly once, to
    its capture name and its owning operation; equality and hashing use the
    owner's deterministic identity and the capture name, so they raise while
    the handle is unbound.
    """

    def __init__(self, kind: KernelKind):
        if kind not in (KernelKind.COMPUTE, KernelKind.DATA_MOVEMENT):
            raise TTLCompileError(
                f"ttl.Kernel takes exactly one KernelKind, got {kind!r}",
                caller_loc(2),
                "write ttl.Kernel(ttl.KernelKind.COMPUTE) or "
                "ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)",
            )
        self.kind = kind
        self.loc = caller_loc(2)
        self.binding: KernelBinding | None = None

    @property
    def is_bound(self) -> bool:
        return self.binding is not None

    @property
    def name(self) -> str | None:
        """``<operation>.<capture name>`` once bound (the logical-kernel name), else None."""
        b = self.binding
        return None if b is None else f"{b.operation_name}.{b.capture_name}"

    def bind(self, owner: Any, capture_name: str) -> bool:
        """Bind to ``owner`` (an Operation) as ``capture_name``; only the first binding counts.

        Returns True if the handle is (now) owned by ``owner``; False if another
        operation owns it (the caller diagnoses the foreign use where it occurs).
        """
        if self.binding is None:
            self.binding = KernelBinding(owner, capture_name)
        return self.binding.owner is owner

    def _key(self) -> tuple[str, str, str | None]:  # enum.Flag names are Optional
        b = self.binding
        if b is None:
            raise TTLCompileError(
                f"this ttl.Kernel({self.kind}) handle is compared or hashed before any "
                "operation registered it",
                caller_loc(3),
                "capture the handle in a @ttl.operation (or declare it in the operation body) "
                "before comparing it; registration binds it",
            )
        return (b.owner.identity, b.capture_name, self.kind.name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Kernel):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __ttl_fingerprint__(self) -> str:
        """Identity fingerprint as a capture (the kind; the binding depends on the identity)."""
        return f"Kernel({self.kind.name})"

    def __repr__(self) -> str:
        return f"ttl.Kernel({self.kind}, name={self.name!r})"


@dataclass
class DataflowBuffer:
    """A DFB declared at the operation's top level (logical; physical index assigned later).

    ``tensor``: the tensor it is made like (``make_dataflow_buffer_like``), or None for a
    DFB of an explicit ``element_dtype`` (``make_dfb``: tiles of that dtype).
    """

    tensor: TensorArg | None
    shape: tuple[int, ...]
    block_count: int
    loc: SourceLoc
    order: int
    name: str = ""
    element_dtype: str = ""
    allocation_group: DFBAllocationGroup | None = None
    # ttl.make_tensor_backed_dfb (spec v0.21): its capacity is ``tensor``'s L1 shard
    # on each node, from ``byte_offset``.
    tensor_backed: bool = False
    byte_offset: int = 0

    @property
    def dtype(self) -> str:
        return self.tensor.spec.dtype if self.tensor is not None else self.element_dtype

    @property
    def layout(self) -> str:
        """The layout of the tensor it is made like: its shape unit is a tile or an element."""
        return self.tensor.spec.layout if self.tensor is not None else TILE

    @property
    def is_row_major(self) -> bool:
        return self.tensor is not None and self.tensor.spec.is_row_major

    @property
    def tiles_per_block(self) -> int:
        """L1 pages per block: tiles, or a row-major block's elements in 1024-element pages."""
        n = 1
        for d in self.shape:
            n *= d
        return -(-n // ROW_MAJOR_PAGE_ELEMENTS) if self.is_row_major else n

    def _kernel_only(self, what: str) -> Any:
        raise TTLCompileError(
            f"{what}() on a dataflow buffer can only be used inside a kernel body",
            caller_loc(3),
            "call it inside a @ttl.compute() or @ttl.datamovement() function",
        )

    def reserve(self) -> Any:
        """Producer side: acquire a free block (kernel bodies only)."""
        return self._kernel_only("reserve")

    def wait(self) -> Any:
        """Consumer side: acquire a filled block (kernel bodies only)."""
        return self._kernel_only("wait")


#: The type of a DFB parameter of an expand-only operation (spec v0.19: ``d: ttl.DFB``).
DFB = DataflowBuffer


@dataclass
class TensorArg:
    """An operation parameter during top-level evaluation: a tensor spec with a name."""

    name: str
    spec: TensorSpec
    index: int

    @property
    def shape(self) -> tuple[int, ...]:
        """The logical shape (a ttnn tensor's ``shape``); kernels index whole tiles of
        :attr:`padded_shape`."""
        return self.spec.logical_shape

    @property
    def padded_shape(self) -> tuple[int, ...]:
        """The stored shape: the logical one padded to whole tiles (ttnn's ``padded_shape``)."""
        return self.spec.shape

    @property
    def dtype(self) -> str:
        return self.spec.dtype

    def __getitem__(self, item: Any) -> Any:
        raise TTLCompileError(
            f"slicing tensor '{self.name}' is only meaningful inside a kernel body",
            caller_loc(2),
            "slice tensors inside a @ttl.datamovement() function, e.g. ttl.copy(t[r, c], blk)",
        )


@dataclass
class Thread:
    """A kernel function declared with @ttl.compute() / @ttl.datamovement()."""

    kind: KernelKind
    fn: Callable[..., Any]
    selector: KernelKind | Kernel | None
    loc: SourceLoc
    order: int


@dataclass
class EvalContext:
    """What the top-level evaluation of one operation records."""

    grid: tuple[int, int]
    dfbs: list[DataflowBuffer] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    pipe_nets: list[Any] = field(default_factory=list)  # ttl.pipes.PipeNet, in creation order
    semaphores: list[Any] = field(default_factory=list)  # ttl.semaphore.Semaphore
    node: tuple[int, int] = (0, 0)  # the node ttl.node() returns at the top level
    node_used: bool = False  # the top level called ttl.node(): evaluate it per node


_CONTEXT: contextvars.ContextVar[EvalContext | None] = contextvars.ContextVar(
    "ttl_eval_context", default=None
)


def active_context(what: str) -> EvalContext:
    """The context of the operation being evaluated, or a diagnostic at the caller."""
    ctx = _CONTEXT.get()
    if ctx is None:
        raise TTLCompileError(
            f"{what} can only be used in the body of a @ttl.operation function",
            caller_loc(3),
            "define DFBs and kernels inside the operation function",
        )
    return ctx


class DFBAllocationGroup:
    """An immutable compile-time identity (spec v0.21): its member DFBs
    (``allocation_group=``) request one physical DFB index and one L1 allocation.

    The compiler accepts the request once it has proved every member's accesses
    complete before the next member's begin on every node, with formats and pointer
    positions that let one circular buffer serve them in turn (docs/language.md,
    "DFB allocation groups"); otherwise it is a located error at the member."""

    def __init__(self, loc: SourceLoc):
        self.loc = loc

    def __repr__(self) -> str:
        return f"ttl.DFBAllocationGroup(made at line {self.loc.line})"


def make_dfb_allocation_group() -> DFBAllocationGroup:
    """A new DFB allocation group (spec v0.21): pass it as ``allocation_group=`` to
    ``ttl.make_dataflow_buffer_like`` or ``ttl.make_dfb``."""
    return DFBAllocationGroup(caller_loc(2))


def _allocation_group(value: Any, loc: SourceLoc) -> DFBAllocationGroup | None:
    if value is None or isinstance(value, DFBAllocationGroup):
        return value
    raise TTLCompileError(
        f"allocation_group= takes a ttl.make_dfb_allocation_group(), got {type(value).__name__}",
        loc,
        "write group = ttl.make_dfb_allocation_group() and pass allocation_group=group",
    )


def make_dataflow_buffer_like(
    tensor: Any,
    shape: Any,
    block_count: int | None = None,
    *,
    buffer_factor: int | None = None,
    allocation_group: Any = None,
) -> DataflowBuffer:
    """Create a DFB whose blocks have ``shape`` units of ``tensor``'s dtype: tiles for a
    tiled tensor, elements for a row-major one (any rank, e.g. ``shape=(C,)``).

    ``block_count`` defaults to 2; ``buffer_factor`` is its name before spec v0.15,
    which renamed it, and is accepted for programs written then.
    """
    ctx = active_context("ttl.make_dataflow_buffer_like()")
    loc = caller_loc(2)
    group = _allocation_group(allocation_group, loc)
    if block_count is not None and buffer_factor is not None:
        raise TTLCompileError(
            "make_dataflow_buffer_like() got both block_count= and buffer_factor= (its name "
            "before spec v0.15)",
            loc,
            "write only block_count=",
        )
    if block_count is None:
        block_count = buffer_factor if buffer_factor is not None else 2
    if not isinstance(tensor, TensorArg):
        raise TTLCompileError(
            "the first argument of make_dataflow_buffer_like must be an operation tensor",
            loc,
            "pass one of the operation's tensor parameters, e.g. make_dataflow_buffer_like(a, "
            '...), or make a DFB of a dtype: ttl.make_dfb("bf16", shape=...)',
        )
    dfb = DataflowBuffer(tensor, _dfb_shape(shape, loc), _block_count(block_count, loc), loc, 0)
    dfb.allocation_group = group
    return _declare(ctx, dfb)


def make_tensor_backed_dfb(
    tensor: Any,
    shape: Any,
    *,
    block_count: int = 1,
    byte_offset: int = 0,
    allocation_group: Any = None,
) -> DataflowBuffer:
    """Create a DFB whose whole capacity is a byte range of ``tensor``'s L1 shard on each
    node (spec v0.21): ``block_count`` blocks of ``shape`` tiles from ``byte_offset``
    (a multiple of the page size). ``tensor`` must be tiled and, when the operation
    runs, height-, width- or block-sharded in L1. An input is published once by a
    data-movement kernel (``dfb.publish()``: its blocks become readable where they
    are, with no copy); an output is reserved, stored and pushed as any DFB, and the
    tensor holds what the kernels left there."""
    ctx = active_context("ttl.make_tensor_backed_dfb()")
    loc = caller_loc(2)
    if not isinstance(tensor, TensorArg):
        raise TTLCompileError(
            "the first argument of make_tensor_backed_dfb must be an operation tensor",
            loc,
            "pass one of the operation's tensor parameters (L1-sharded when it is called)",
        )
    if tensor.spec.is_row_major:
        raise TTLCompileError(
            f"make_tensor_backed_dfb: tensor '{tensor.name}' is row-major; a tensor-backed "
            "DFB uses a ttnn.TILE_LAYOUT tensor's shard",
            loc,
            "pass a tiled tensor, or copy a row-major one through a DFB of "
            "make_dataflow_buffer_like",
        )
    if allocation_group is not None:
        raise TTLCompileError(
            "tensor-backed DFBs in an allocation group are not supported: only DFBs with "
            "storage of their own (make_dataflow_buffer_like, make_dfb) share an allocation",
            loc,
            "drop allocation_group= from the tensor-backed DFB",
        )
    page = tile_bytes(tensor.spec.dtype)
    if not isinstance(byte_offset, int) or byte_offset < 0 or byte_offset % page:
        raise TTLCompileError(
            f"byte_offset must be a non-negative multiple of the page size ({page} bytes for "
            f"{tensor.spec.dtype}), got {byte_offset!r}",
            loc,
            f"write byte_offset=0, or a multiple of {page}",
        )
    dfb = DataflowBuffer(tensor, _dfb_shape(shape, loc), _block_count(block_count, loc), loc, 0)
    dfb.tensor_backed, dfb.byte_offset = True, byte_offset
    return _declare(ctx, dfb)


def make_dfb(
    dtype: Any, shape: Any, block_count: int = 2, tile: Any = TILE_SHAPE, **kwargs: Any
) -> DataflowBuffer:
    """Create a scratch DFB of an explicit element ``dtype`` (spec v0.21): blocks of
    ``shape`` tiles of ``tile`` elements.

    ``dtype``: a name (``"bf16"``, ``"float32"``, ...), a ttnn dtype or a torch dtype.
    ``tile``: only TT-Metal's default 32x32 tile (the one the emulator models).
    """
    ctx = active_context("ttl.make_dfb()")
    loc = caller_loc(2)
    group = _allocation_group(kwargs.get("allocation_group"), loc)
    unknown = [name for name in kwargs if name != "allocation_group"]
    if unknown:
        raise TTLCompileError(
            f"make_dfb() got an unexpected keyword argument {unknown[0]!r}",
            loc,
            "write ttl.make_dfb(dtype, shape, block_count=2, tile=(32, 32))",
        )
    try:
        element_dtype = normalize_dtype(dtype)
    except ValueError as e:
        raise TTLCompileError(
            f"make_dfb(): {e}", loc, 'write e.g. ttl.make_dfb("bf16", shape=(1, 1))'
        ) from None
    tile_t = tuple(tile) if isinstance(tile, tuple | list) else tile
    if tile_t != TILE_SHAPE:
        raise TTLCompileError(
            f"make_dfb(tile={tile!r}): only {TILE_SHAPE[0]}x{TILE_SHAPE[1]} tiles are supported "
            "(smaller TT-Metal tiles are not modelled)",
            loc,
            "omit tile= (32x32 tiles)",
        )
    shape_t = _dfb_shape(shape, loc)
    if len(shape_t) < 2:
        raise TTLCompileError(
            f"make_dfb() makes blocks of tiles, which need two dimensions; got shape={shape!r}",
            loc,
            f"write shape=(1, {shape_t[0]})",
        )
    dfb = DataflowBuffer(None, shape_t, _block_count(block_count, loc), loc, 0)
    dfb.element_dtype = element_dtype
    dfb.allocation_group = group
    return _declare(ctx, dfb)


def _dfb_shape(shape: Any, loc: SourceLoc) -> tuple[int, ...]:
    shape_t = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape_t or not all(isinstance(d, int) and d > 0 for d in shape_t):
        raise TTLCompileError(
            f"DFB shape must be positive integers, got {shape!r}",
            loc,
            "write a tuple of tile counts, e.g. shape=(1, 1) (element counts for a row-major "
            "tensor, e.g. shape=(64,))",
        )
    return shape_t


def _block_count(block_count: Any, loc: SourceLoc) -> int:
    if not isinstance(block_count, int) or block_count <= 0:
        raise TTLCompileError(
            f"block_count must be a positive integer, got {block_count!r}",
            loc,
            "write e.g. block_count=2 for double buffering",
        )
    return block_count


def _declare(ctx: EvalContext, dfb: DataflowBuffer) -> DataflowBuffer:
    dfb.order = len(ctx.dfbs)
    ctx.dfbs.append(dfb)
    return dfb


def _kind_word(kind: KernelKind) -> str:
    return "compute" if kind is KernelKind.COMPUTE else "data-movement"


def check_thread_selector(kind: KernelKind, kernel: Any, loc: SourceLoc) -> None:
    """A thread decorator takes one selector (KernelKind or Kernel) of the thread's kind."""
    deco = "compute" if kind is KernelKind.COMPUTE else "datamovement"
    example = "ttl.KernelKind.COMPUTE" if kind is KernelKind.COMPUTE else "reader"
    if isinstance(kernel, str):
        raise TTLCompileError(
            f"kernel={kernel!r} names a physical processor; selectors are logical kernels "
            "and the compiler assigns processors from the target's slot table",
            loc,
            f"write @ttl.{deco}(kernel={example}) with a ttl.KernelKind or a ttl.Kernel handle, "
            "or omit kernel=",
        )
    if isinstance(kernel, KernelKind) and kernel not in (
        KernelKind.COMPUTE,
        KernelKind.DATA_MOVEMENT,
    ):
        raise TTLCompileError(
            f"a thread decorator takes one selector, got {kernel}",
            loc,
            f"write @ttl.{deco}(kernel=ttl.KernelKind.{kind.name}), or omit kernel=",
        )
    if not isinstance(kernel, KernelKind | Kernel):
        raise TTLCompileError(
            f"kernel= takes a ttl.KernelKind or a ttl.Kernel handle, got {kernel!r}",
            loc,
            f"write @ttl.{deco}(kernel=ttl.KernelKind.{kind.name}) or pass a "
            f"ttl.Kernel(ttl.KernelKind.{kind.name}) handle",
        )
    sel_kind = kernel.kind if isinstance(kernel, Kernel) else kernel
    if sel_kind is not kind:
        what = "ttl.Kernel handle" if isinstance(kernel, Kernel) else "selector"
        raise TTLCompileError(
            f"kernel= {what} of kind {_kind_word(sel_kind)} does not match the thread "
            f"kind {_kind_word(kind)} of @ttl.{deco}()",
            loc,
            f"use a {_kind_word(kind)} selector (ttl.KernelKind.{kind.name} or a "
            f"ttl.Kernel(ttl.KernelKind.{kind.name}) handle), or omit kernel=",
        )


def _thread_decorator(kind: KernelKind, kernel: KernelKind | Kernel | None):
    loc = caller_loc(3)
    if kernel is not None:
        check_thread_selector(kind, kernel, loc)

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        ctx = _CONTEXT.get()
        if ctx is None:
            # Outside an operation body (the spec's debug_printing.py fragment defines one
            # at module level): the function belongs to no operation and stays a plain
            # function; a kernel runs only where an operation body defines it.
            return fn
        ctx.threads.append(Thread(kind, fn, kernel, loc, len(ctx.threads)))
        return fn

    return wrap


def compute(kernel: KernelKind | Kernel | None = None):
    """Decorate the operation's compute kernel function (no parameters)."""
    return _thread_decorator(KernelKind.COMPUTE, kernel)


def datamovement(kernel: KernelKind | Kernel | None = None):
    """Decorate a data-movement kernel function (no parameters)."""
    return _thread_decorator(KernelKind.DATA_MOVEMENT, kernel)


def _flatten(sizes: tuple[int, ...], dims: int, pad: int) -> tuple[int, ...]:
    """TT-Lang's rule: flatten the highest dims into the last requested one, or pad."""
    if dims >= len(sizes):
        return sizes + (pad,) * (dims - len(sizes))
    head = sizes[: dims - 1]
    last = 1
    for s in sizes[dims - 1 :]:
        last *= s
    return (*head, last)


DIMS_HINT = "write dims=1 (flattened) or dims=2 (x, y)"


def dims_error(function: str, dims: object) -> str | None:
    """What is wrong with ``dims`` given to ``ttl.<function>`` (grid_size, node), or None.

    The one rule for both the operation-scope calls here and the kernel-scope
    calls the compiler reads.
    """
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        return f"ttl.{function}(dims={dims!r}): dims must be an integer of at least 1"
    return None


def _check_dims(function: str, dims: object) -> None:
    if message := dims_error(function, dims):
        raise TTLCompileError(message, caller_loc(3), DIMS_HINT)


def grid_size(dims: int = 2) -> Any:
    """Size of the grid: an int for dims=1, else a tuple (x first)."""
    ctx = active_context("ttl.grid_size()")
    _check_dims("grid_size", dims)
    sizes = _flatten(ctx.grid, dims, 1)
    return sizes[0] if dims == 1 else sizes


def node_index(coord: tuple[int, int], grid: tuple[int, int]) -> int:
    """The spec's flattened index of node (x, y): ``x * grid_y + y`` (y varies fastest).

    TT-Lang flattens a grid row-major over its dimensions (x, y), as
    ``ttl.node(dims=1)`` and 1-D node coordinates in pipes and semaphores read it.
    """
    return coord[0] * grid[1] + coord[1]


def node_at_index(index: int, grid: tuple[int, int]) -> tuple[int, int]:
    """The (x, y) node whose flattened index (:func:`node_index`) is ``index``."""
    return (index // grid[1], index % grid[1])


def flatten_node(coord: tuple[int, int], grid: tuple[int, int], dims: int) -> Any:
    """TT-Lang's node coordinates in ``dims`` dimensions (see :func:`node_index`)."""
    if dims == 1:
        return node_index(coord, grid)
    return tuple(coord) + (0,) * (dims - 2)


def node(dims: int = 2) -> Any:
    """This node's coordinates: an int for dims=1, else (x, y, ...).

    In kernel bodies the compiler reads it as the running node's coordinates; at
    an operation's top level it returns the node being evaluated, and the
    compiler evaluates the top level once per node of the grid.
    """
    ctx = active_context("ttl.node()")
    _check_dims("node", dims)
    ctx.node_used = True
    return flatten_node(ctx.node, ctx.grid, dims)


setattr(node, INTRINSIC_ATTR, "node")


@intrinsic("signpost")
def signpost(name: str) -> Any:
    """A profiling zone (kernel bodies only): ``with ttl.signpost("name"): ...``."""


class CopyTransferHandler:
    """The transfer ``ttl.copy`` returns in a kernel body, to ``wait()`` on (spec v0.21's
    name; ``ttl.Transfer`` before it). Kernel bodies are compiled, never run: this class
    names the type for annotations (``xf: ttl.CopyTransferHandler = ttl.copy(...)``)."""

    def wait(self) -> None:
        """Block until the copy completed (kernel bodies only)."""


#: The name of :class:`CopyTransferHandler` before spec v0.21.
Transfer = CopyTransferHandler


class ReceiveRequest:
    """What ``ttl.copy(pipe, blk)`` returns (spec v0.21): a receive posted into a
    reserved block, to ``wait()`` on or to select with :func:`wait_any`. Kernel bodies
    are compiled, never run: this class names the type for annotations."""

    def wait(self) -> None:
        """Block until the receive completed (kernel bodies only)."""


class ReadyReceive:
    """What :func:`wait_any` returns: the receive it selected (kernel bodies only)."""

    def index(self) -> Any:
        """The selected request's zero-based index in the tuple given to ``wait_any``."""


@intrinsic("wait_any")
def wait_any(requests: Any, start: Any = 0) -> Any:
    """Wait until one of ``requests`` (a nonempty tuple of distinct receive requests)
    has completed and select the first completed one in cyclic tuple order from
    ``start`` (taken modulo the tuple's length); returns a :class:`ReadyReceive`
    (spec v0.21; data-movement kernel bodies only). The others stay pending."""


@intrinsic("read_index")
def read_index(block: Any, *coords: Any) -> Any:
    """The bf16 or f32 element of ``block`` at scalar-element ``coords`` (one per block
    dimension) as an index, truncated toward zero (spec v0.21; data-movement kernel
    bodies only; the block must hold data: waited, or reserved and copied into).
    The value must be finite, non-negative and at most 2**31 - 1."""


@intrinsic("raw_element_read")
def raw_element_read(block: Any, *coords: Any) -> Any:
    """The bf16 or f32 element of ``block`` at scalar-element ``coords`` (spec v0.18;
    data-movement kernel bodies only): a value to write with :func:`raw_element_write`
    or to compare (``<``, ``>``, ...) with another or with a float constant."""


@intrinsic("raw_element_write")
def raw_element_write(block: Any, *args: Any, value: Any = None) -> None:
    """Write ``value`` (from :func:`raw_element_read`, or a float constant) to the
    element of ``block`` at scalar-element coordinates: ``raw_element_write(blk, r, c,
    value)`` or ``raw_element_write(blk, r, c, value=v)`` (spec v0.18; data-movement
    kernel bodies only). An f32 value written to a bf16 block is truncated."""


@intrinsic("copy")
def copy(src: Any, dst: Any) -> Any:
    """Start an asynchronous copy between a block and a tensor slice; returns a transfer."""
