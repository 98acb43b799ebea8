"""The ``ttl`` dialect: TT-Lang operations, kernels, DFBs, copies and block math.

Structure of a compiled module::

    builtin.module {
      ttl.operation @name {grid = [x, y], target = "...", identity = "..."} {
        ttl.tensor @a {index = 0} : !ttl.tensor<64x64xbf16>
        ttl.dfb @a_dfb {tensor = @a, block_count = 2, ...} : !ttl.dfb<1x1xbf16>
        ttl.kernel @compute {kind = #ttl.kernel_kind<compute>, logical_kernel = "..."} {
          ... scf / arith / ttl ops ...
        }
      }
    }

Value types: ``!ttl.block`` (a block acquired from a DFB), ``!ttl.tiles`` (a
block-expression value living in DST), ``!ttl.slice`` (a tile-unit view of a
tensor), ``!ttl.transfer`` (an asynchronous copy).

Effects (what xDSL's generic ``dce`` and ``cse`` rely on): symbol reads, slices,
``ttl.node``, ``ttl.raw_addr`` and block math are ``Pure``; ``ttl.read`` only
reads L1; the DFB protocol ops, copies, transfer waits, stores and external
calls read and write (``MemoryReadEffect`` + ``MemoryWriteEffect``), so they are
never removed or merged. Declarations (``ttl.operation``, ``ttl.tensor``,
``ttl.dfb``, ``ttl.kernel``) are symbols, which DCE keeps.

Analysis results the passes record on ``ttl.dfb`` (see ``passes/``):
``protocol = #ttl.protocol<...>`` (``ttl-check-dfb-protocol``), ``lifetime =
#ttl.lifetime<...>`` (``ttl-compute-lifetimes``) and ``physical_index``
(``ttl-allocate-dfbs``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from enum import auto
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FlatSymbolRefAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    bf16,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    OpTrait,
    Pure,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ttl.math import EXP_OPTIONS, UNARY_PARAMS
from ttl.specs import ROW_MAJOR, ROW_MAJOR_PAGE_ELEMENTS, TILE, tile_padded

# ----------------------------------------------------------------- attributes


class KernelKindEnum(StrEnum):
    """Kinds of logical kernels (mirrors ``ttl.KernelKind``)."""

    COMPUTE = "compute"
    DATA_MOVEMENT = "data_movement"


@irdl_attr_definition
class KernelKindAttr(EnumAttribute[KernelKindEnum], SpacedOpaqueSyntaxAttribute):
    """The kind of a logical kernel."""

    name = "ttl.kernel_kind"


class UnaryFnEnum(StrEnum):
    """Element-wise unary functions of ``ttl.math``."""

    EXP = auto()
    LOG = auto()
    SQRT = auto()
    RSQRT = auto()
    RECIP = auto()
    RELU = auto()
    SIGMOID = auto()
    TANH = auto()
    ABS = auto()
    NEG = auto()
    EXP2 = auto()
    EXPM1 = auto()
    LOGP1 = auto()
    SQUARE = auto()
    TAN = auto()
    ATAN = auto()
    ATANH = auto()
    SIN = auto()
    ASIN = auto()
    ASINH = auto()
    COS = auto()
    ACOS = auto()
    ACOSH = auto()
    GELU = auto()
    SILU = auto()
    SOFTSIGN = auto()
    HARDSIGMOID = auto()
    FRAC = auto()
    TRUNC = auto()
    FLOOR = auto()
    CEIL = auto()
    SIGN = auto()
    SIGNBIT = auto()
    POW = auto()
    RELU_MAX = auto()
    RELU_MIN = auto()
    LEAKY_RELU = auto()
    ELU = auto()
    CELU = auto()
    PRELU = auto()
    SOFTPLUS = auto()
    HARDTANH = auto()
    SELU = auto()
    ROUND = auto()
    CLAMP = auto()
    THRESHOLD = auto()


@irdl_attr_definition
class UnaryFnAttr(EnumAttribute[UnaryFnEnum], SpacedOpaqueSyntaxAttribute):
    """Which unary function a ``ttl.unary`` applies."""

    name = "ttl.unary_fn"


class BinaryFnEnum(StrEnum):
    """Element-wise binary functions beyond ``+ - * /``: ``ttl.math.max/min``,
    comparisons (0/1 results), ``%`` (Python floor modulo) and ``//``."""

    MAX = auto()
    MIN = auto()
    GT = auto()
    LT = auto()
    GE = auto()
    LE = auto()
    EQ = auto()
    NE = auto()
    MOD = auto()
    FLOORDIV = auto()


@irdl_attr_definition
class BinaryFnAttr(EnumAttribute[BinaryFnEnum], SpacedOpaqueSyntaxAttribute):
    """Which binary function a ``ttl.binary`` applies."""

    name = "ttl.binary_fn"


class ScalarFnEnum(StrEnum):
    """Block-with-scalar operations (``blk * 2.0``, ``1.0 - blk``, ``ttl.math.rsub``)."""

    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    RSUB = auto()  # value - x
    RDIV = auto()  # value / x


@irdl_attr_definition
class ScalarFnAttr(EnumAttribute[ScalarFnEnum], SpacedOpaqueSyntaxAttribute):
    """Which scalar operation a ``ttl.scalar`` applies."""

    name = "ttl.scalar_fn"


# ---------------------------------------------------------------------- types


class _ShapedType(ParametrizedAttribute, TypeAttribute):
    """Common form ``!ttl.<name><AxBxelem>``: a static shape and an element type.

    Subclasses declare the two parameters themselves (``shape``, then
    ``element_type``): IRDL only compares and hashes parameters declared on
    the decorated class.
    """

    if TYPE_CHECKING:
        shape: ArrayAttr[IntAttr]
        element_type: Attribute
        layout: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute, layout: str = TILE):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element_type, StringAttr(layout))

    @property
    def is_row_major(self) -> bool:
        """Row-major: the shape is in elements (else in tiles, or elements for tensors)."""
        return self.layout_name == ROW_MAJOR

    @property
    def layout_name(self) -> str:
        """``tile`` or ``row_major`` (ttl.specs' layout names)."""
        return self.layout.data if isinstance(self.layout, StringAttr) else TILE

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def dtype(self) -> str:
        """``bf16``, ``f32`` or ``bfp8``."""
        if isinstance(self.element_type, Bfp8Type):
            return "bfp8"
        return "f32" if str(self.element_type) == "f32" else "bf16"

    @property
    def num_tiles(self) -> int:
        """Pages of the value: tiles, or for a row-major block its elements in whole
        1024-element pages (the unit the compute engine works on; docs/runtime.md)."""
        n = 1
        for d in self.dims:
            n *= d
        return -(-n // ROW_MAJOR_PAGE_ELEMENTS) if self.is_row_major else n

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_dimension_list(self.dims)
            printer.print_string("x")
            printer.print_attribute(self.element_type)
            if self.is_row_major:
                printer.print_string(f", {ROW_MAJOR}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, elem = parser.parse_ranked_shape()
            layout = TILE
            if parser.parse_optional_punctuation(",") is not None:
                layout = parser.parse_identifier()
                if layout not in (TILE, ROW_MAJOR):
                    parser.raise_error(f"unknown layout '{layout}': write {ROW_MAJOR}")
        return (ArrayAttr(IntAttr(d) for d in dims), elem, StringAttr(layout))


@irdl_attr_definition(init=False)  # __init__ of the base class
class TensorType(_ShapedType):
    """A tiled DRAM tensor; shape in elements."""

    name = "ttl.tensor"

    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    layout: Attribute = param_def()

    @property
    def tile_dims(self) -> tuple[int, ...]:
        """The shape in tiles: the two innermost dimensions in 32x32 tiles."""
        dims = self.dims
        return (*dims[:-2], -(-dims[-2] // 32), -(-dims[-1] // 32))

    @property
    def unit_dims(self) -> tuple[int, ...]:
        """The shape in index units: tiles, or elements for a row-major tensor."""
        return self.dims if self.is_row_major else self.tile_dims


@irdl_attr_definition(init=False)  # __init__ of the base class
class DFBType(_ShapedType):
    """A dataflow buffer; shape of one block in tiles."""

    name = "ttl.dfb"

    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    layout: Attribute = param_def()


@irdl_attr_definition(init=False)  # __init__ of the base class
class BlockType(_ShapedType):
    """A block acquired from a DFB; shape in tiles."""

    name = "ttl.block"

    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    layout: Attribute = param_def()


@irdl_attr_definition(init=False)  # __init__ of the base class
class TilesType(_ShapedType):
    """A block-expression value (tiles computed in DST); shape in tiles."""

    name = "ttl.tiles"

    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    layout: Attribute = param_def()


@irdl_attr_definition(init=False)  # __init__ of the base class
class SliceType(_ShapedType):
    """A view of a tensor in tile units; shape in tiles."""

    name = "ttl.slice"

    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    layout: Attribute = param_def()


@irdl_attr_definition
class Bfp8Type(ParametrizedAttribute, TypeAttribute):
    """The element type of BFP8_b (block-float) tensors and DFBs: ``!ttl.bfp8``.

    Kernels move its packed tile pages as bytes; the coprocessor unpacks and
    packs them (docs/runtime.md, "Block-float tiles").
    """

    name = "ttl.bfp8"


@irdl_attr_definition
class TransferType(ParametrizedAttribute, TypeAttribute):
    """An asynchronous copy; ``ttl.transfer_wait`` completes it."""

    name = "ttl.transfer"


# --------------------------------------------------- analysis results on ttl.dfb


@irdl_attr_definition
class ProtocolAttr(ParametrizedAttribute):
    """The DFB protocol verdict of one DFB (``ttl-check-dfb-protocol``).

    ``#ttl.protocol<balanced [4]>``: proven balanced on every path, with the
    distinct per-path tile totals; ``#ttl.protocol<unknown "why">``: not proven.
    """

    name = "ttl.protocol"

    balanced: BoolAttr = param_def()
    tiles: ArrayAttr[IntAttr] = param_def()
    reason: StringAttr = param_def(base(StringAttr))

    def __init__(self, balanced: bool, tiles: Sequence[int] = (), reason: str = ""):
        super().__init__(
            BoolAttr.from_bool(balanced), ArrayAttr(IntAttr(t) for t in tiles), StringAttr(reason)
        )

    @property
    def is_balanced(self) -> bool:
        return self.balanced.value.data != 0

    @property
    def tile_totals(self) -> tuple[int, ...]:
        return tuple(t.data for t in self.tiles.data)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            if self.is_balanced:
                printer.print_string("balanced [")
                printer.print_list(self.tile_totals, printer.print_int)
                printer.print_string("]")
            else:
                printer.print_string("unknown ")
                printer.print_string_literal(self.reason.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            if parser.parse_optional_keyword("balanced") is not None:
                tiles = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_integer
                )
                return (
                    BoolAttr.from_bool(True),
                    ArrayAttr(IntAttr(t) for t in tiles),
                    StringAttr(""),
                )
            parser.parse_keyword("unknown")
            reason = parser.parse_str_literal()
        return (BoolAttr.from_bool(False), ArrayAttr(()), StringAttr(reason))


@irdl_attr_definition
class LifetimeAttr(ParametrizedAttribute):
    """Where one DFB lives (``ttl-compute-lifetimes``).

    ``#ttl.lifetime<kernels ["op.k"], span [2, 5]>``: the logical kernels
    touching it (declaration order), for a single kernel the range of top-level
    statements of its body containing an access, and optionally ``opaque
    "why"``: the first access the compiler cannot see through.
    """

    name = "ttl.lifetime"

    kernels: ArrayAttr[StringAttr] = param_def()
    span: ArrayAttr[IntAttr] = param_def()  # [] or [first, last]
    opaque: StringAttr = param_def(base(StringAttr))  # "" when every access is visible

    def __init__(
        self, kernels: Sequence[str], span: tuple[int, int] | None = None, opaque: str = ""
    ):
        super().__init__(
            ArrayAttr(StringAttr(k) for k in kernels),
            ArrayAttr(IntAttr(i) for i in (span or ())),
            StringAttr(opaque),
        )

    @property
    def kernel_names(self) -> list[str]:
        return [k.data for k in self.kernels.data]

    @property
    def statement_span(self) -> tuple[int, int] | None:
        vals = [i.data for i in self.span.data]
        return (vals[0], vals[1]) if len(vals) == 2 else None

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("kernels [")
            printer.print_list(self.kernel_names, printer.print_string_literal)
            printer.print_string("]")
            span = self.statement_span
            if span is not None:
                printer.print_string(f", span [{span[0]}, {span[1]}]")
            if self.opaque.data:
                printer.print_string(", opaque ")
                printer.print_string_literal(self.opaque.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        span: list[int] = []
        opaque = ""
        with parser.in_angle_brackets():
            parser.parse_keyword("kernels")
            kernels = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_str_literal
            )
            while parser.parse_optional_punctuation(",") is not None:
                key = parser.parse_keyword_in(("span", "opaque"), " in #ttl.lifetime")
                if key == "span":
                    span = parser.parse_comma_separated_list(
                        parser.Delimiter.SQUARE, parser.parse_integer
                    )
                else:
                    opaque = parser.parse_str_literal()
        return (
            ArrayAttr(StringAttr(k) for k in kernels),
            ArrayAttr(IntAttr(i) for i in span),
            StringAttr(opaque),
        )

    def verify(self) -> None:
        if len(self.span.data) not in (0, 2):
            raise VerifyException("a lifetime span is [first, last]")


# ------------------------------------------------------------ module-level ops


@irdl_op_definition
class OperationOp(IRDLOperation):
    """One TT-Lang operation: its tensors, DFBs and logical kernels."""

    name = "ttl.operation"

    sym_name = prop_def(SymbolNameConstraint())
    grid = prop_def(DenseArrayBase)
    target = prop_def(StringAttr)
    identity = prop_def(StringAttr)
    # Compute options (compiler/compute_config.py): DST mode, and the canonical flag
    # string of the ttl.CompilerOptions that differ from their defaults.
    fp32_dest_acc_en = opt_prop_def(UnitAttr)
    dst_full_sync_en = opt_prop_def(UnitAttr)
    options = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict-with-keyword $body"

    def __init__(
        self,
        name: str,
        grid: Sequence[int],
        target: str,
        identity: str,
        body: Region,
        *,
        fp32_dest_acc_en: bool = False,
        dst_full_sync_en: bool = False,
        options: str = "",
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "grid": DenseArrayBase.from_list(i64, list(grid)),
            "target": StringAttr(target),
            "identity": StringAttr(identity),
        }
        if fp32_dest_acc_en:
            props["fp32_dest_acc_en"] = UnitAttr()
        if dst_full_sync_en:
            props["dst_full_sync_en"] = UnitAttr()
        if options:
            props["options"] = StringAttr(options)
        super().__init__(properties=props, regions=[body])


@irdl_op_definition
class TensorOp(IRDLOperation):
    """Declares operation parameter ``index`` as a tensor symbol.

    ``logical_shape``: a tiled tensor's logical shape where tile padding stores it as
    the larger ``tensor_type`` (the operation read it as ``tensor.shape``; kernels
    index the stored tiles).
    """

    name = "ttl.tensor"

    sym_name = prop_def(SymbolNameConstraint())
    index = prop_def(IntegerAttr[I64])
    tensor_type = prop_def(TensorType)
    logical_shape = opt_prop_def(DenseArrayBase)

    traits = traits_def(SymbolOpInterface(), HasParent(OperationOp))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict"

    def __init__(
        self,
        name: str,
        index: int,
        tensor_type: TensorType,
        logical_shape: tuple[int, ...] | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "index": IntegerAttr(index, i64),
            "tensor_type": tensor_type,
        }
        if logical_shape is not None:
            props["logical_shape"] = DenseArrayBase.from_list(i64, list(logical_shape))
        super().__init__(properties=props)

    @property
    def logical_dims(self) -> tuple[int, ...] | None:
        """The logical shape, if the tensor has one apart from its stored shape."""
        if self.logical_shape is None:
            return None
        return tuple(int(n) for n in self.logical_shape.get_values())

    def verify_(self) -> None:
        logical = self.logical_dims
        if logical is None:
            return
        ty = self.tensor_type
        if ty.is_row_major or tile_padded(logical) != ty.dims:
            raise VerifyException(
                f"logical shape {list(logical)} of tensor @{self.sym_name.data} does not pad "
                f"to its {ty.layout_name} shape {list(ty.dims)}"
            )


class DFBTensorUse(SymbolUserOpInterface):
    """``ttl.dfb``: its ``tensor``, if any, names a ``ttl.tensor`` of the operation."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, DFBOp)
        if op.parent_op() is None or op.tensor is None:
            return
        if not isinstance(lookup_declaration(op, op.tensor), TensorOp):
            raise VerifyException(f"'{op.tensor.string_value()}' is not a ttl.tensor")


@irdl_op_definition
class DFBOp(IRDLOperation):
    """Declares a dataflow buffer, made like tensor ``tensor`` or (no ``tensor``) of the
    element type its ``dfb_type`` names (``ttl.make_dfb``).

    ``scratch``: the compiler made it for one compute kernel's own use, one block
    at a time (an accumulator, an expression operand, a shadow): no other kernel
    touches it, so that kernel may publish its reserved block to read it back
    (``ttl-prepare-read-back``).

    ``allocation_group``: the ordinal of the DFB allocation group it belongs to (spec
    v0.21): the members share one physical index and allocation once
    ``ttl-check-allocation-groups`` proved that safe.

    ``backing_offset``: a tensor-backed DFB (``ttl.make_tensor_backed_dfb``): its
    capacity is ``tensor``'s L1 shard on each node from this byte offset, not an
    allocation of its own.
    """

    name = "ttl.dfb"

    sym_name = prop_def(SymbolNameConstraint())
    tensor = opt_prop_def(FlatSymbolRefAttr)
    block_count = prop_def(IntegerAttr[I64])
    page_size = prop_def(IntegerAttr[I64])
    dfb_type = prop_def(DFBType)
    physical_index = opt_prop_def(IntegerAttr[I64])

    scratch = opt_prop_def(UnitAttr)
    allocation_group = opt_prop_def(IntegerAttr[I64])
    backing_offset = opt_prop_def(IntegerAttr[I64])

    protocol = opt_prop_def(ProtocolAttr)
    lifetime = opt_prop_def(LifetimeAttr)

    traits = traits_def(SymbolOpInterface(), HasParent(OperationOp), DFBTensorUse())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict"

    def __init__(
        self,
        name: str,
        tensor: str | None,
        dfb_type: DFBType,
        block_count: int,
        page_size: int,
        scratch: bool = False,
        allocation_group: int | None = None,
        backing_offset: int | None = None,
    ):
        properties: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if tensor is not None:  # printed in this order: sym_name, tensor, ...
            properties["tensor"] = SymbolRefAttr(tensor)
        properties.update(
            block_count=IntegerAttr(block_count, i64),
            page_size=IntegerAttr(page_size, i64),
            dfb_type=dfb_type,
        )
        if scratch:
            properties["scratch"] = UnitAttr()
        if allocation_group is not None:
            properties["allocation_group"] = IntegerAttr(allocation_group, i64)
        if backing_offset is not None:
            properties["backing_offset"] = IntegerAttr(backing_offset, i64)
        super().__init__(properties=properties)

    @property
    def is_tensor_backed(self) -> bool:
        return self.backing_offset is not None

    def verify_(self) -> None:
        if self.block_count.value.data <= 0:
            raise VerifyException("block_count must be positive")
        if self.backing_offset is not None and (
            self.tensor is None or self.backing_offset.value.data % self.page_size.value.data
        ):
            raise VerifyException(
                "a tensor-backed DFB names its tensor and starts on a page boundary"
            )


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A logical kernel: a function with no parameters, of one kind.

    ``logical_kernel`` is its identity (``<operation>.<kernel>``); ``slot`` is
    the processor slot the target assignment gave it.
    """

    name = "ttl.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(KernelKindAttr)
    logical_kernel = prop_def(StringAttr)
    slot = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), HasParent(OperationOp), NoTerminator())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict-with-keyword $body"

    def __init__(self, name: str, kind: KernelKindEnum, logical_kernel: str, body: Region):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "kind": KernelKindAttr(kind),
                "logical_kernel": StringAttr(logical_kernel),
            },
            regions=[body],
        )

    @property
    def is_compute(self) -> bool:
        return self.kind.data == KernelKindEnum.COMPUTE


def _parent_operation(op: Operation) -> OperationOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, OperationOp):
        parent = parent.parent_op()
    if parent is None:
        raise VerifyException(f"'{op.name}' must be nested in a ttl.operation")
    return parent


def _kernel_of(op: Operation) -> KernelOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        parent = parent.parent_op()
    if parent is None:
        raise VerifyException(f"'{op.name}' must be nested in a ttl.kernel")
    return parent


def lookup_declaration(op: Operation, ref: str | SymbolRefAttr) -> Operation | None:
    """The symbol ``ref`` of the ``ttl.operation`` enclosing ``op`` (xDSL's symbol table)."""
    return SymbolTable.lookup_symbol(_parent_operation(op), ref)


class SymbolGetterUse(SymbolUserOpInterface):
    """``ttl.get_tensor`` / ``ttl.get_dfb``: ``ref`` names a declaration of the op's
    ``DECL_CLASS`` whose ``DECL_TYPE_FIELD`` is the result type."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, _SymbolGetter)
        ref: FlatSymbolRefAttr = op.properties["ref"]  # type: ignore[assignment]
        decl = lookup_declaration(op, ref)
        if not isinstance(decl, op.DECL_CLASS):
            raise VerifyException(f"'{ref.string_value()}' is not a {op.DECL_CLASS.name}")
        if getattr(decl, op.DECL_TYPE_FIELD) != op.results[0].type:
            raise VerifyException("result type differs from the declaration's type")


class _SymbolGetter(IRDLOperation):
    """Shared traits of ``ttl.get_tensor`` / ``ttl.get_dfb``: a pure symbol read."""

    DECL_CLASS: ClassVar[type[IRDLOperation]]
    DECL_TYPE_FIELD: ClassVar[str]

    traits = traits_def(Pure(), SymbolGetterUse())


@irdl_op_definition
class GetTensorOp(_SymbolGetter):
    """The tensor declared by ``ref``."""

    name = "ttl.get_tensor"
    DECL_CLASS: ClassVar[type[IRDLOperation]] = TensorOp
    DECL_TYPE_FIELD: ClassVar[str] = "tensor_type"

    ref = prop_def(FlatSymbolRefAttr)
    result = result_def(TensorType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$ref attr-dict `:` type($result)"

    def __init__(self, ref: str, tensor_type: TensorType):
        super().__init__(properties={"ref": SymbolRefAttr(ref)}, result_types=[tensor_type])


@irdl_op_definition
class GetDFBOp(_SymbolGetter):
    """The DFB declared by ``ref``."""

    name = "ttl.get_dfb"
    DECL_CLASS: ClassVar[type[IRDLOperation]] = DFBOp
    DECL_TYPE_FIELD: ClassVar[str] = "dfb_type"

    ref = prop_def(FlatSymbolRefAttr)
    result = result_def(DFBType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$ref attr-dict `:` type($result)"

    def __init__(self, ref: str, dfb_type: DFBType):
        super().__init__(properties={"ref": SymbolRefAttr(ref)}, result_types=[dfb_type])


# ------------------------------------------------------------ DFB protocol


# Acquire and release block on the DFB and move its read/write pointers.
_DFB_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())


class _AcquireOp(IRDLOperation):
    dfb = operand_def(DFBType)
    result = result_def(BlockType)

    traits = traits_def(*_DFB_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$dfb attr-dict `:` type($dfb) `->` type($result)"

    def __init__(self, dfb: SSAValue):
        assert isinstance(dfb.type, DFBType)
        super().__init__(
            operands=[dfb],
            result_types=[BlockType(dfb.type.dims, dfb.type.element_type, dfb.type.layout_name)],
        )

    def verify_(self) -> None:
        src, res = self.dfb.type, self.result.type
        assert isinstance(src, DFBType) and isinstance(res, BlockType)
        if src.dims != res.dims or src.element_type != res.element_type:
            raise VerifyException("block type must match the DFB's block shape and dtype")


@irdl_op_definition
class ReserveOp(_AcquireOp):
    """Producer: acquire a free block (cb_reserve_back)."""

    name = "ttl.reserve"


@irdl_op_definition
class WaitOp(_AcquireOp):
    """Consumer: acquire a filled block (cb_wait_front)."""

    name = "ttl.wait"


class _ReleaseOp(IRDLOperation):
    block = operand_def(BlockType)
    ACQUIRE_CLASS: ClassVar[type[IRDLOperation]]

    traits = traits_def(*_DFB_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$block attr-dict `:` type($block)"

    def __init__(self, block: SSAValue):
        super().__init__(operands=[block])

    def verify_(self) -> None:
        if not isinstance(self.block.owner, self.ACQUIRE_CLASS):
            raise VerifyException(
                f"'{self.name}' releases a block acquired by '{self.ACQUIRE_CLASS.name}'"
            )


@irdl_op_definition
class PushOp(_ReleaseOp):
    """Producer: release a filled block to the consumer (cb_push_back)."""

    name = "ttl.push"
    ACQUIRE_CLASS: ClassVar[type[IRDLOperation]] = ReserveOp


@irdl_op_definition
class PopOp(_ReleaseOp):
    """Consumer: release a consumed block to the producer (cb_pop_front)."""

    name = "ttl.pop"
    ACQUIRE_CLASS: ClassVar[type[IRDLOperation]] = WaitOp


# ------------------------------------------------------------------- copies


@irdl_op_definition
class SliceOp(IRDLOperation):
    """A tile-unit view ``tensor[offsets : offsets + sizes]``.

    ``in_bounds`` lists the dimensions whose offset ``ttl-prove-slice-bounds``
    proved inside the tensor; the others are checked when the copy runs.
    """

    name = "ttl.slice"

    tensor = operand_def(TensorType)
    offsets = var_operand_def(EqAttrConstraint(i32))
    result = result_def(SliceType)
    in_bounds = opt_prop_def(DenseArrayBase)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tensor `[` $offsets `]` attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue, offsets: Sequence[SSAValue], sizes: Sequence[int]):
        assert isinstance(tensor.type, TensorType)
        super().__init__(
            operands=[tensor, offsets],
            result_types=[SliceType(sizes, tensor.type.element_type, tensor.type.layout_name)],
        )

    def verify_(self) -> None:
        t, s = self.tensor.type, self.result.type
        assert isinstance(t, TensorType) and isinstance(s, SliceType)
        if len(self.offsets) != len(t.dims) or len(s.dims) != len(t.dims):
            raise VerifyException("a slice needs one offset and one size per tensor dimension")
        if s.element_type != t.element_type:
            raise VerifyException("slice dtype must match the tensor's")
        if self.in_bounds is not None:
            proven = self.in_bounds.get_values()
            if any(not 0 <= dim < len(t.dims) for dim in proven):
                raise VerifyException("in_bounds names a dimension the tensor does not have")

    @property
    def proven_dims(self) -> frozenset[int]:
        """The dimensions whose offsets are proven in range (``in_bounds``)."""
        return frozenset(self.in_bounds.get_values() if self.in_bounds is not None else ())


@irdl_op_definition
class CopyOp(IRDLOperation):
    """Start an asynchronous copy between a block and a tensor slice.

    The two sides may differ in dtype between bf16 and f32 (a NOC transfer moves
    bytes, so the data-movement core converts them in software): ``staging`` is then
    the DFB whose reserved page holds one tensor page on its way
    (``ttl-stage-converting-copies``).
    """

    name = "ttl.copy"

    src = operand_def(BlockType | SliceType)
    dst = operand_def(BlockType | SliceType)
    staging = opt_operand_def(DFBType)
    result = result_def(TransferType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # NOC transfer

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$src `,` $dst (`staging` $staging^ `:` type($staging))? attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(self, src: SSAValue, dst: SSAValue, staging: SSAValue | None = None):
        super().__init__(
            operands=[src, dst, [staging] if staging is not None else []],
            result_types=[TransferType()],
        )

    @property
    def is_read(self) -> bool:
        """True for tensor -> block (a NOC read)."""
        return isinstance(self.src.type, SliceType)

    @property
    def converts(self) -> bool:
        """Whether the tensor and the block differ in dtype (bf16 <-> f32)."""
        # (ignore: operand_def fields are SSAValue[Attribute]; verify_ checked the types)
        return self.src.type.element_type != self.dst.type.element_type  # type: ignore[attr-defined]

    def verify_(self) -> None:
        s, d = self.src.type, self.dst.type
        if isinstance(s, BlockType) == isinstance(d, BlockType):
            raise VerifyException("one side of a copy must be a block and the other a slice")
        assert isinstance(s, _ShapedType) and isinstance(d, _ShapedType)
        if s.layout != d.layout:
            raise VerifyException("copy source and destination must have the same layout")
        if s.is_row_major:  # the same elements in the same order (size-1 dims aside)
            same = [n for n in s.dims if n != 1] == [n for n in d.dims if n != 1]
        else:
            same = s.dims == d.dims
        if not same:
            raise VerifyException("copy source and destination must have the same shape")
        if s.element_type != d.element_type and {s.dtype, d.dtype} != CONVERTIBLE_DTYPES:
            raise VerifyException(
                "copy source and destination must have the same dtype, or be bf16 and f32"
            )
        if self.staging is not None and not self.converts:
            raise VerifyException("a copy stages its pages only when it converts dtypes")
        if self.is_read and not isinstance(self.dst.owner, ReserveOp):
            raise VerifyException("a copy into a block needs a reserved block")
        if _kernel_of(self).is_compute:
            raise VerifyException("ttl.copy is only valid in data-movement kernels")


CONVERTIBLE_DTYPES = frozenset({"bf16", "f32"})
"""The dtypes a copy converts between (``CopyOp``): bf16 -> f32 is exact, f32 -> bf16
rounds to nearest even, as the packer does."""


@irdl_op_definition
class TransferWaitOp(IRDLOperation):
    """Wait for a copy to complete (NOC read/write barrier)."""

    name = "ttl.transfer_wait"

    transfer = operand_def(TransferType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # NOC barrier

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$transfer attr-dict"

    def __init__(self, transfer: SSAValue):
        super().__init__(operands=[transfer])


# ------------------------------------------------------------------ grid


@irdl_op_definition
class NodeOp(IRDLOperation):
    """This node's coordinate along grid dimension ``dim`` (0 = x, 1 = y)."""

    name = "ttl.node"

    dim = prop_def(IntegerAttr[I64])
    result = result_def(i32)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, dim: int):
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[i32])

    def verify_(self) -> None:
        if self.dim.value.data not in (0, 1):
            raise VerifyException("ttl.node dim must be 0 (x) or 1 (y)")


@irdl_op_definition
class DeviceIndexOp(IRDLOperation):
    """The running device's row-major index in the operation's device domain (spec
    v0.21, ``DeviceDomain.current_index()``): a runtime arg, the same on every node."""

    name = "ttl.device_index"

    result = result_def(i32)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self) -> None:
        super().__init__(result_types=[i32])


# ------------------------------------------------------------- block math


def _require_compute(op: Operation) -> None:
    if not _kernel_of(op).is_compute:
        raise VerifyException(f"'{op.name}' is only valid in compute kernels")


@irdl_op_definition
class ReadOp(IRDLOperation):
    """Use an acquired block as a block-expression operand."""

    name = "ttl.read"

    block = operand_def(BlockType)
    result = result_def(TilesType)

    traits = traits_def(MemoryReadEffect())  # the block's tiles in L1

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$block attr-dict `:` type($block) `->` type($result)"

    def __init__(
        self,
        block: SSAValue,
        view: Sequence[int] | None = None,
        element_type: Attribute | None = None,
    ):
        """``view``: the shape the block is read at (``ttl.math.unsqueeze``/``squeeze``);
        ``element_type``: the type its tiles are unpacked to in DST (default: the
        block's; a store of mixed dtypes unpacks every operand to the stored one)."""
        assert isinstance(block.type, BlockType)
        dims = block.type.dims if view is None else tuple(view)
        elem = element_type or block.type.element_type
        layout = block.type.layout_name
        super().__init__(operands=[block], result_types=[TilesType(dims, elem, layout)])

    def verify_(self) -> None:
        _require_compute(self)
        b, r = self.block.type, self.result.type
        assert isinstance(b, BlockType) and isinstance(r, TilesType)
        if [x for x in b.dims if x != 1] != [x for x in r.dims if x != 1]:
            raise VerifyException(
                "a read may only add or drop size-1 dimensions of the block (a view)"
            )


class _BinaryOp(IRDLOperation):
    T: ClassVar = VarConstraint("T", base(TilesType))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: TilesType):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        _require_compute(self)
        if not (self.lhs.type == self.rhs.type == self.result.type):
            raise VerifyException("element-wise operands and result must have one shape")


@irdl_op_definition
class AddOp(_BinaryOp):
    """Element-wise ``lhs + rhs``."""

    name = "ttl.add"


@irdl_op_definition
class SubOp(_BinaryOp):
    """Element-wise ``lhs - rhs``."""

    name = "ttl.sub"


@irdl_op_definition
class MulOp(_BinaryOp):
    """Element-wise ``lhs * rhs``."""

    name = "ttl.mul"


@irdl_op_definition
class DivOp(_BinaryOp):
    """Element-wise ``lhs / rhs``."""

    name = "ttl.div"


BINARY_OPS: dict[str, type[_BinaryOp]] = {"add": AddOp, "sub": SubOp, "mul": MulOp, "div": DivOp}


@irdl_op_definition
class BinaryFnOp(IRDLOperation):
    """An element-wise binary function (max, min, comparisons, ``%``, ``//``)."""

    name = "ttl.binary"

    T: ClassVar = VarConstraint("T", base(TilesType))
    fn = prop_def(BinaryFnAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$fn $lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, fn: BinaryFnEnum, lhs: SSAValue, rhs: SSAValue):
        super().__init__(
            properties={"fn": BinaryFnAttr(fn)}, operands=[lhs, rhs], result_types=[lhs.type]
        )

    def verify_(self) -> None:
        _require_compute(self)


@irdl_op_definition
class ScalarOp(IRDLOperation):
    """An element-wise operation of a block expression with a compile-time scalar."""

    name = "ttl.scalar"

    T: ClassVar = VarConstraint("T", base(TilesType))
    fn = prop_def(ScalarFnAttr)
    value = prop_def(FloatAttr)
    operand = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$fn $operand `,` $value attr-dict `:` type($result)"

    def __init__(self, fn: ScalarFnEnum, operand: SSAValue, value: float):
        super().__init__(
            properties={"fn": ScalarFnAttr(fn), "value": FloatAttr(value, 32)},
            operands=[operand],
            result_types=[operand.type],
        )

    def verify_(self) -> None:
        _require_compute(self)


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """Block matrix product ``[M, K] @ [K, N] -> [M, N]`` (in tiles).

    Batched: ``[B.., M, K] @ [B.., K, N] -> [B.., M, N]``, one 2-D product per
    batch index (the batch dims of both operands are equal).
    """

    name = "ttl.matmul"

    lhs = operand_def(TilesType)
    rhs = operand_def(TilesType)
    result = result_def(TilesType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: TilesType):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        _require_compute(self)
        a, b, r = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(a, TilesType) and isinstance(b, TilesType) and isinstance(r, TilesType)
        shape = matmul_shape(a.dims, b.dims)
        if shape is None:
            raise VerifyException("matmul needs [B.., M, K] @ [B.., K, N] blocks")
        if r.dims != shape:
            raise VerifyException("matmul result must be [B.., M, N]")


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """The shape of ``a @ b`` (2-D, or batched with equal batch dims), or None."""
    if len(a) < 2 or len(a) != len(b) or tuple(a[:-2]) != tuple(b[:-2]) or a[-1] != b[-2]:
        return None
    return (*a[:-1], b[-1])


@irdl_op_definition
class UnaryOp(IRDLOperation):
    """An element-wise ``ttl.math`` function."""

    name = "ttl.unary"

    T: ClassVar = VarConstraint("T", base(TilesType))
    fn = prop_def(UnaryFnAttr)
    # Compile-time parameters (ttl.math.UNARY_PARAMS): f32 floats, i32 naturals.
    params = opt_prop_def(ArrayAttr[FloatAttr | IntegerAttr])
    operand = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$fn $operand attr-dict `:` type($result)"

    def __init__(
        self, fn: UnaryFnEnum, operand: SSAValue, params: Sequence[float | int] = ()
    ) -> None:
        props: dict[str, Attribute] = {"fn": UnaryFnAttr(fn)}
        if params:
            props["params"] = ArrayAttr(
                IntegerAttr(p, 32) if isinstance(p, int) else FloatAttr(p, 32) for p in params
            )
        super().__init__(properties=props, operands=[operand], result_types=[operand.type])

    @property
    def param_values(self) -> tuple[float | int, ...]:
        """The parameters as Python numbers (ints for natural parameters)."""
        if self.params is None:
            return ()
        return tuple(p.value.data for p in self.params.data)

    def verify_(self) -> None:
        _require_compute(self)
        if self.operand.type != self.result.type:
            raise VerifyException("unary result type must equal the operand type")
        want = UNARY_PARAMS.get(str(self.fn.data), ())
        got = self.param_values
        if self.fn.data is UnaryFnEnum.EXP and got:
            want = EXP_OPTIONS  # its hardware options, when any is not the default
        if len(got) != len(want):
            raise VerifyException(
                f"ttl.unary {self.fn.data} takes {len(want)} parameters, got {len(got)}"
            )
        for p, v in zip(want, got, strict=True):
            if p.kind == "natural" and not (isinstance(v, int) and v >= 0):
                raise VerifyException(f"parameter {p.name} of {self.fn.data} must be a natural")
            if p.kind == "flag" and v not in (0, 1):
                raise VerifyException(f"parameter {p.name} of {self.fn.data} must be 0 or 1")


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """Broadcast size-1 dimensions ``dims`` of the operand to the result shape.

    Within a tile, a broadcast over the last dim replicates column 0, over the
    second-to-last replicates row 0.
    """

    name = "ttl.broadcast"

    dims = prop_def(DenseArrayBase)
    operand = operand_def(TilesType)
    result = result_def(TilesType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, dims: Sequence[int], result_type: TilesType):
        super().__init__(
            properties={"dims": DenseArrayBase.from_list(i64, list(dims))},
            operands=[operand],
            result_types=[result_type],
        )

    @property
    def normalized_dims(self) -> tuple[int, ...]:
        """The broadcast dims as non-negative indices, sorted."""
        rank = len(self.result.type.dims)
        return tuple(sorted({d % rank for d in self.dims.get_values()}))

    def verify_(self) -> None:
        _require_compute(self)
        src, res = self.operand.type, self.result.type
        assert isinstance(src, TilesType) and isinstance(res, TilesType)
        if len(src.dims) != len(res.dims):
            raise VerifyException("broadcast keeps the rank")
        rank = len(res.dims)
        if any(not -rank <= d < rank for d in self.dims.get_values()):
            raise VerifyException("broadcast dim out of range")
        bdims = self.normalized_dims
        for i, (s, r) in enumerate(zip(src.dims, res.dims, strict=True)):
            if i in bdims and s != 1:
                raise VerifyException(f"broadcast dim {i} must have size 1 in the operand")
            if i not in bdims and s != r:
                raise VerifyException(f"non-broadcast dim {i} must keep its size")


@irdl_op_definition
class FillOp(IRDLOperation):
    """A block with every element equal to ``value``."""

    name = "ttl.fill"

    value = prop_def(FloatAttr)
    result = result_def(TilesType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value attr-dict `:` type($result)"

    def __init__(self, value: float, result_type: TilesType):
        super().__init__(properties={"value": FloatAttr(value, 32)}, result_types=[result_type])

    def verify_(self) -> None:
        _require_compute(self)


class ReduceKindEnum(StrEnum):
    """What ``ttl.reduce`` computes: ``ttl.math.reduce_sum`` or ``reduce_max``."""

    SUM = auto()
    MAX = auto()


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKindEnum], SpacedOpaqueSyntaxAttribute):
    """Which reduction a ``ttl.reduce`` applies."""

    name = "ttl.reduce_kind"


def reduced_shape(shape: Sequence[int], dims: Sequence[int]) -> tuple[int, ...]:
    """``shape`` with dimensions ``dims`` (negative from the end) reduced to 1."""
    rank = len(shape)
    gone = {d % rank for d in dims}
    return tuple(1 if i in gone else s for i, s in enumerate(shape))


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Scaled sum or max of the operand over ``dims`` (each reduced to size 1).

    Within a tile, reducing the last dim leaves column 0, the second-to-last
    row 0; ``scaler`` is a tile whose value multiplies each element (a
    ``ttl.fill 1.0`` when the program gives none).
    """

    name = "ttl.reduce"

    kind = prop_def(ReduceKindAttr)
    dims = prop_def(DenseArrayBase)
    operand = operand_def(TilesType)
    scaler = operand_def(TilesType)
    result = result_def(TilesType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$kind $operand `,` $scaler attr-dict `:` type($operand) `,` type($scaler) "
        "`->` type($result)"
    )

    def __init__(
        self,
        kind: ReduceKindEnum,
        operand: SSAValue,
        scaler: SSAValue,
        dims: Sequence[int],
        result_type: TilesType,
    ):
        super().__init__(
            properties={
                "kind": ReduceKindAttr(kind),
                "dims": DenseArrayBase.from_list(i64, list(dims)),
            },
            operands=[operand, scaler],
            result_types=[result_type],
        )

    @property
    def normalized_dims(self) -> tuple[int, ...]:
        """The reduced dims as non-negative indices, sorted."""
        rank = len(self.result.type.dims)
        return tuple(sorted({d % rank for d in self.dims.get_values()}))

    def verify_(self) -> None:
        _require_compute(self)
        src, res = self.operand.type, self.result.type
        assert isinstance(src, TilesType) and isinstance(res, TilesType)
        rank = len(src.dims)
        dims = self.dims.get_values()
        if not dims or any(not -rank <= d < rank for d in dims):
            raise VerifyException("reduce dims out of range")
        if tuple(res.dims) != reduced_shape(src.dims, dims):
            raise VerifyException("reduce result must be the operand shape with dims reduced to 1")
        fill = self.scaler.owner
        within_tiles = bool(set(self.normalized_dims) & {rank - 1, rank - 2})
        if within_tiles and isinstance(fill, FillOp) and fill.value.value.data != 1.0:
            raise VerifyException(
                "a reduction within tiles reads its scaler tile from a DFB (a ttl.read), or "
                "scales by ttl.fill 1.0, for which ttl-materialize-scalers makes that DFB"
            )


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """Transpose of a 2-D block: tiles and the elements within each tile."""

    name = "ttl.transpose"

    operand = operand_def(TilesType)
    result = result_def(TilesType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, result_type: TilesType):
        super().__init__(operands=[operand], result_types=[result_type])

    def verify_(self) -> None:
        _require_compute(self)
        src, res = self.operand.type, self.result.type
        assert isinstance(src, TilesType) and isinstance(res, TilesType)
        if len(src.dims) != 2 or tuple(res.dims) != tuple(reversed(src.dims)):
            raise VerifyException("transpose maps a (M, N) block to (N, M)")


@irdl_op_definition
class WhereOp(IRDLOperation):
    """Element-wise ``true_value`` where ``condition`` is non-zero, else ``false_value``."""

    name = "ttl.where"

    T: ClassVar = VarConstraint("T", base(TilesType))
    condition = operand_def(T)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$condition `,` $true_value `,` $false_value attr-dict `:` type($result)"

    def __init__(self, condition: SSAValue, true_value: SSAValue, false_value: SSAValue):
        super().__init__(
            operands=[condition, true_value, false_value], result_types=[true_value.type]
        )

    def verify_(self) -> None:
        _require_compute(self)


@irdl_op_definition
class MaskOp(IRDLOperation):
    """``operand`` with the elements where ``mask`` is 1 replaced by 0 (or +inf: ``posinf``)."""

    name = "ttl.mask"

    T: ClassVar = VarConstraint("T", base(TilesType))
    operand = operand_def(T)
    mask = operand_def(T)
    posinf = opt_prop_def(UnitAttr)
    result = result_def(T)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$operand `,` $mask attr-dict `:` type($result)"

    def __init__(self, operand: SSAValue, mask: SSAValue, posinf: bool):
        super().__init__(
            operands=[operand, mask],
            result_types=[operand.type],
            properties={"posinf": UnitAttr()} if posinf else {},
        )

    def verify_(self) -> None:
        _require_compute(self)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Materialise a block expression into a reserved block (``acc``: add to it)."""

    name = "ttl.store"

    block = operand_def(BlockType)
    value = operand_def(TilesType)
    acc = prop_def(BoolAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # packs into L1 (acc reads)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `,` $block attr-dict `:` type($value) `,` type($block)"

    def __init__(self, block: SSAValue, value: SSAValue, acc: bool):
        super().__init__(
            operands=[block, value],
            properties={"acc": BoolAttr.from_bool(acc)},
        )

    def verify_(self) -> None:
        _require_compute(self)
        b, v = self.block.type, self.value.type
        assert isinstance(b, BlockType) and isinstance(v, TilesType)
        if b.dims != v.dims:
            raise VerifyException("stored value must have the block's shape")
        if not isinstance(self.block.owner, ReserveOp):
            raise VerifyException("store needs a reserved block")


@irdl_op_definition
class FillScalerOp(IRDLOperation):
    """A data-movement kernel writes the scaler tile of a reduction into a reserved block.

    ``value`` goes into the first row of each 16x16 face, 0 into the rest: the
    elements ``reduce_tile`` reads as its scaler, laid out as TT-Metal kernels'
    ``generate_reduce_scaler`` lays them out. ``ttl-materialize-scalers`` makes these
    for reductions written without a scaler block.
    """

    name = "ttl.fill_scaler"

    block = operand_def(BlockType)
    value = prop_def(FloatAttr)

    traits = traits_def(MemoryWriteEffect())  # writes the block's L1

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `,` $block attr-dict `:` type($block)"

    def __init__(self, block: SSAValue, value: float):
        super().__init__(operands=[block], properties={"value": FloatAttr(value, 32)})

    @property
    def bf16_bits(self) -> int:
        """``value``'s bfloat16 bit pattern (verify_: ``value`` is exact in bf16)."""
        return struct.unpack("<I", struct.pack("<f", self.value.value.data))[0] >> 16

    def verify_(self) -> None:
        _require_data_movement(self)
        if self.bf16_bits << 16 != struct.unpack("<I", struct.pack("<f", self.value.value.data))[0]:
            raise VerifyException("a scaler value must be exact in bf16")
        b = self.block.type
        assert isinstance(b, BlockType)
        if tuple(b.dims) != (1, 1) or b.element_type != bf16:
            raise VerifyException("a scaler block is one bf16 tile (!ttl.block<1x1xbf16>)")
        if not isinstance(self.block.owner, ReserveOp):
            raise VerifyException("fill_scaler needs a reserved block")


# ------------------------------------------------------------- debugging


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Debug print (spec "Debug printing"): text, scalars and at most one TT-Lang object.

    ``parts`` is the line in order: a ``StringAttr`` is literal text (separators
    included), an ``IntegerAttr`` the index of a ``values`` operand (an i1/i32/i64
    scalar, or the one tensor, DFB or block). ``end`` ends the line (Python's
    ``end=``); ``num_pages`` is the tensor pages to print. ``staging`` is the
    one-page DFB a data-movement kernel reads a printed tensor's pages into
    (``ttl-stage-tensor-prints``): TT-Metal prints tiles from L1.
    """

    name = "ttl.print"

    values = var_operand_def()
    staging = opt_operand_def(DFBType)
    parts = prop_def(ArrayAttr)
    end = prop_def(StringAttr)
    num_pages = opt_prop_def(IntegerAttr[I64])

    # Output is a side effect: never removed, merged or moved.
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "`(` $values `)` (`staging` $staging^ `:` type($staging))? attr-dict "
        "`:` `(` type($values) `)`"
    )

    def __init__(
        self,
        parts: Sequence[str | int],
        values: Sequence[SSAValue],
        end: str = "\n",
        num_pages: int | None = None,
    ):
        props: dict[str, Attribute] = {
            "parts": ArrayAttr(
                StringAttr(p) if isinstance(p, str) else IntegerAttr(p, i64) for p in parts
            ),
            "end": StringAttr(end),
        }
        if num_pages is not None:
            props["num_pages"] = IntegerAttr(num_pages, i64)
        super().__init__(operands=[list(values), []], properties=props)

    @property
    def object(self) -> SSAValue | None:
        """The tensor, DFB or block printed, if any."""
        objs = [v for v in self.values if isinstance(v.type, TensorType | DFBType | BlockType)]
        return objs[0] if objs else None

    def verify_(self) -> None:
        objs = [v for v in self.values if not isinstance(v.type, IntegerType)]
        if len(objs) > 1:
            raise VerifyException("ttl.print prints at most one TT-Lang object")
        for v in objs:
            if not isinstance(v.type, TensorType | DFBType | BlockType):
                raise VerifyException(f"ttl.print cannot print a value of type {v.type}")
        for p in self.parts.data:
            if isinstance(p, IntegerAttr) and not 0 <= p.value.data < len(self.values):
                raise VerifyException("ttl.print part index out of range")
            if not isinstance(p, IntegerAttr | StringAttr):
                raise VerifyException("ttl.print parts are strings or operand indices")
        if self.num_pages is not None and (
            self.num_pages.value.data < 1
            or not any(isinstance(v.type, TensorType) for v in self.values)
        ):
            raise VerifyException("num_pages needs a tensor operand and is at least 1")
        if self.staging is not None:
            obj = self.object
            if obj is None or not isinstance(obj.type, TensorType):
                raise VerifyException("ttl.print stages pages only of a printed tensor")
            staged = self.staging.type
            assert isinstance(staged, DFBType)
            if staged.dims != (1, 1) or staged.dtype != obj.type.dtype:
                raise VerifyException(
                    f"ttl.print's staging DFB holds one tile of the tensor's dtype "
                    f"({obj.type.dtype}), not {staged}"
                )


@irdl_op_definition
class SignpostBeginOp(IRDLOperation):
    """Entry of a profiling signpost zone (``with ttl.signpost(name):``)."""

    name = "ttl.signpost_begin"

    signpost = prop_def(StringAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # a timestamp: keep in place

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$signpost attr-dict"

    def __init__(self, signpost: str):
        super().__init__(properties={"signpost": StringAttr(signpost)})


@irdl_op_definition
class SignpostEndOp(IRDLOperation):
    """Exit of the innermost open signpost zone (the end of its ``with``)."""

    name = "ttl.signpost_end"

    signpost = prop_def(StringAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$signpost attr-dict"

    def __init__(self, signpost: str):
        super().__init__(properties={"signpost": StringAttr(signpost)})


# ===================================================================
# External calls (ttl.call_extern_func). Contract: docs/compiler.md,
# "External calls in the IR". Passes read DFB dependencies only through
# DFBDependencyInterface.
# ===================================================================


class DFBEffectKind(StrEnum):
    """A synchronous DFB protocol action performed by external C++, or an access
    (``ttl.DFBAccess.inspect`` / ``interface_preserved``): a typed access with no queue
    transaction, an identity transition of the DFB's protocol state (its ``tiles`` is 0)."""

    RESERVE = "reserve"
    PUSH = "push"
    WAIT = "wait"
    POP = "pop"
    INSPECT = "inspect"
    INTERFACE_PRESERVED = "interface_preserved"

    @property
    def is_access(self) -> bool:
        """An access (``dfb_accesses``), not a protocol action (``dfb_effects``)."""
        return self in (DFBEffectKind.INSPECT, DFBEffectKind.INTERFACE_PRESERVED)


@irdl_attr_definition
class DFBEffectKindAttr(EnumAttribute[DFBEffectKind], SpacedOpaqueSyntaxAttribute):
    """The kind of one ``#ttl.dfb_effect``."""

    name = "ttl.dfb_effect_kind"


@irdl_attr_definition
class DFBEffectAttr(ParametrizedAttribute):
    """``#ttl.dfb_effect<kind, dependency_index, tiles>``.

    ``dependency_index`` points into ``CallExternOp.get_dfb_dependency_operands()``.
    """

    name = "ttl.dfb_effect"

    kind: DFBEffectKindAttr = param_def(base(DFBEffectKindAttr))
    dependency_index: IntAttr = param_def()
    tiles: IntAttr = param_def()

    def __init__(self, kind: DFBEffectKind, dependency_index: int, tiles: int):
        super().__init__(DFBEffectKindAttr(kind), IntAttr(dependency_index), IntAttr(tiles))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{self.kind.data.value}, {self.dependency_index.data}, {self.tiles.data}>"
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = DFBEffectKind(parser.parse_identifier())
            parser.parse_punctuation(",")
            index = parser.parse_integer()
            parser.parse_punctuation(",")
            tiles = parser.parse_integer()
        return (DFBEffectKindAttr(kind), IntAttr(index), IntAttr(tiles))

    def verify(self) -> None:
        if self.dependency_index.data < 0:
            raise VerifyException("dfb_effect dependency_index must be non-negative")
        if self.kind.data.is_access:
            if self.tiles.data != 0:
                raise VerifyException(
                    f"an {self.kind.data.value} access moves no tiles: its tiles is 0"
                )
        elif self.tiles.data <= 0:
            raise VerifyException("dfb_effect tiles must be positive")


class _DFBRefAttr(ParametrizedAttribute):
    """``#ttl.<name><@dfb>``: a compile-time reference to a DFB symbol."""

    if TYPE_CHECKING:
        dfb: SymbolRefAttr

    def __init__(self, dfb: str):
        super().__init__(SymbolRefAttr(dfb))

    @property
    def dfb_name(self) -> str:
        return self.dfb.root_reference.data

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<@{self.dfb_name}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            ref = parser.parse_symbol_name()
        return (SymbolRefAttr(ref.data),)


@irdl_attr_definition(init=False)  # __init__ of the base class
class DFBDescriptorAttr(_DFBRefAttr):
    """Template argument ``ttl.dfb_descriptor(dfb)`` -> ``ttlang::DFBDescriptor<...>``."""

    name = "ttl.dfb_descriptor"

    dfb: SymbolRefAttr = param_def(base(SymbolRefAttr))


@irdl_attr_definition(init=False)  # __init__ of the base class
class DFBIdAttr(_DFBRefAttr):
    """Template argument ``ttl.get_dfb_id(dfb)`` -> the physical index constant."""

    name = "ttl.dfb_id"

    dfb: SymbolRefAttr = param_def(base(SymbolRefAttr))


@irdl_attr_definition
class FloatBitsAttr(ParametrizedAttribute):
    """Template argument ``float`` as its binary32 bit pattern (``1.0`` -> ``<1065353216>``)."""

    name = "ttl.float_bits"

    bits: IntAttr = param_def()

    def __init__(self, bits: int):
        super().__init__(IntAttr(bits))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.bits.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer()),)

    def verify(self) -> None:
        if not 0 <= self.bits.data < 2**32:
            raise VerifyException("float_bits must be a 32-bit pattern")


@irdl_attr_definition
class DispatchConditionAttr(ParametrizedAttribute):
    """``#ttl.dispatch_condition<ordinal, i32|i64>``: one ``ttl.DispatchCondition``.

    Equal attributes (same ordinal) identify one declaration in the module.
    """

    name = "ttl.dispatch_condition"

    ordinal: IntAttr = param_def()
    scalar_type: IntegerType = param_def()

    def __init__(self, ordinal: int, scalar_type: IntegerType):
        super().__init__(IntAttr(ordinal), scalar_type)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.ordinal.data}, ")
        printer.print_attribute(self.scalar_type)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            ordinal = parser.parse_integer()
            parser.parse_punctuation(",")
            ty = parser.parse_type()
        return (IntAttr(ordinal), ty)

    def verify(self) -> None:
        if self.scalar_type not in (i32, i64):
            raise VerifyException("a dispatch condition is i32 or i64")


class DFBDependencyInterface(OpTrait):
    """Ops whose DFB storage dependencies passes must see (external calls).

    ``get_dfb_dependency_operands(op)`` is the sequence effect indices point
    into; aliased occurrences of one SSA DFB stay separate elements.
    """

    def get_dfb_dependency_operands(self, op: Operation) -> tuple[SSAValue, ...]:
        return op.get_dfb_dependency_operands()  # type: ignore[attr-defined]


TEMPLATE_ARG_ATTRS = (IntegerAttr, DFBDescriptorAttr, DFBIdAttr, FloatBitsAttr)
MAX_DFB_EFFECTS = 4096


@irdl_op_definition
class RawAddrOp(IRDLOperation):
    """``ttl.raw_addr(tensor)``: the tensor's DRAM buffer address (``uint32_t``)."""

    name = "ttl.raw_addr"

    tensor = operand_def(TensorType)
    result = result_def(i32)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tensor attr-dict `:` type($tensor)"

    def __init__(self, tensor: SSAValue):
        super().__init__(operands=[tensor], result_types=[i32])


class _ElementReadOp(IRDLOperation):
    """An element of a data-movement kernel's block at scalar-element ``coords`` (one per
    block dimension), read as an i32. Reads L1: ordered with the copies and releases
    around it (never moved or merged)."""

    block = operand_def(BlockType)
    coords = var_operand_def(EqAttrConstraint(i32))
    result = result_def(i32)

    traits = traits_def(MemoryReadEffect())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$block `[` $coords `]` attr-dict `:` type($block)"

    def __init__(self, block: SSAValue, coords: Sequence[SSAValue]):
        super().__init__(operands=[block, list(coords)], result_types=[i32])

    def verify_(self) -> None:
        _verify_element_access(self.block, self.coords)


def _verify_element_access(block: SSAValue, coords: Sequence[SSAValue]) -> None:
    ty = block.type
    assert isinstance(ty, BlockType)
    if len(coords) != len(ty.dims):
        raise VerifyException(f"{len(coords)} coordinates for a block of rank {len(ty.dims)}")
    if ty.dtype not in ("bf16", "f32"):
        raise VerifyException(f"element access to bf16 or f32 blocks only, not {ty.dtype}")


@irdl_op_definition
class ReadIndexOp(_ElementReadOp):
    """``ttl.read_index(block, *coords)`` (spec v0.21): the bf16 or f32 element, truncated
    toward zero to an index."""

    name = "ttl.read_index"


@irdl_op_definition
class RawElementReadOp(_ElementReadOp):
    """``ttl.raw_element_read(block, *coords)`` (spec v0.18): the element as f32 bits (a
    bf16 element widened)."""

    name = "ttl.raw_element_read"


@irdl_op_definition
class RawElementWriteOp(IRDLOperation):
    """``ttl.raw_element_write(block, *coords, value)`` (spec v0.18): f32 bits written
    to an element of a data-movement kernel's block (truncated to a bf16 element)."""

    name = "ttl.raw_element_write"

    block = operand_def(BlockType)
    coords = var_operand_def(EqAttrConstraint(i32))
    value = operand_def(EqAttrConstraint(i32))

    traits = traits_def(MemoryWriteEffect())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$block `[` $coords `]` `=` $value attr-dict `:` type($block)"

    def __init__(self, block: SSAValue, coords: Sequence[SSAValue], value: SSAValue):
        super().__init__(operands=[block, list(coords), value])

    def verify_(self) -> None:
        _verify_element_access(self.block, self.coords)


#: Predicates of ``ttl.element_compare``: IEEE-754 comparisons (false with a NaN, but ne).
ELEMENT_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@irdl_op_definition
class ElementCompareOp(IRDLOperation):
    """Compares two element values (f32 bits) as the floats they hold."""

    name = "ttl.element_compare"

    lhs = operand_def(EqAttrConstraint(i32))
    rhs = operand_def(EqAttrConstraint(i32))
    predicate = prop_def(StringAttr)
    result = result_def(i1)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        super().__init__(
            operands=[lhs, rhs],
            properties={"predicate": StringAttr(predicate)},
            result_types=[i1],
        )

    def verify_(self) -> None:
        if self.predicate.data not in ELEMENT_PREDICATES:
            raise VerifyException(f"unknown predicate {self.predicate.data!r}")


class ExternDFBSymbolUse(SymbolUserOpInterface):
    """``ttl.call_extern``: every ``#ttl.dfb_descriptor`` / ``#ttl.dfb_id`` names a ``ttl.dfb``."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallExternOp)
        for a in op.template_args.data:
            if isinstance(a, _DFBRefAttr) and not isinstance(
                lookup_declaration(op, a.dfb_name), DFBOp
            ):
                raise VerifyException(f"{a} does not name a ttl.dfb")


@irdl_op_definition
class CallExternOp(IRDLOperation):
    """A call of external C++ ``callee`` declared in ``header``.

    Operand segments: ``func_args`` (C++ arguments: scalars, DFBs, tensors,
    ``ttl.raw_addr`` values), ``descriptor_dfbs`` (the DFB of each
    ``#ttl.dfb_descriptor`` template argument, in template order) and
    ``dfb_dependencies`` (dependency-only DFBs, no C++ argument).
    """

    name = "ttl.call_extern"

    header = prop_def(StringAttr)
    callee = prop_def(StringAttr)
    template_args = prop_def(ArrayAttr)
    include_paths = prop_def(ArrayAttr[StringAttr])
    dfb_effects = prop_def(ArrayAttr[DFBEffectAttr])
    unknown_dfb_access = opt_prop_def(UnitAttr)
    condition = opt_prop_def(DispatchConditionAttr)

    func_args = var_operand_def()
    descriptor_dfbs = var_operand_def(DFBType)
    dfb_dependencies = var_operand_def(DFBType)
    result = opt_result_def(EqAttrConstraint(i32) | EqAttrConstraint(i64))

    # External C++: anything may be read or written (never removed or merged).
    traits = traits_def(
        DFBDependencyInterface(), ExternDFBSymbolUse(), MemoryReadEffect(), MemoryWriteEffect()
    )
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$header `,` $callee `(` $func_args `)` `descriptors` `(` $descriptor_dfbs `)` "
        "`deps` `(` $dfb_dependencies `)` attr-dict `:` `(` type($func_args) `)` "
        "`,` `(` type($descriptor_dfbs) `)` `,` `(` type($dfb_dependencies) `)` "
        "(`->` type($result)^)?"
    )

    def __init__(
        self,
        header: str,
        callee: str,
        *,
        template_args: Sequence[Attribute] = (),
        func_args: Sequence[SSAValue] = (),
        descriptor_dfbs: Sequence[SSAValue] = (),
        dfb_dependencies: Sequence[SSAValue] = (),
        dfb_effects: Sequence[DFBEffectAttr] = (),
        unknown_dfb_access: bool = False,
        include_paths: Sequence[str] = (),
        result_type: Attribute | None = None,
        condition: DispatchConditionAttr | None = None,
    ):
        props: dict[str, Attribute] = {
            "header": StringAttr(header),
            "callee": StringAttr(callee),
            "template_args": ArrayAttr(template_args),
            "include_paths": ArrayAttr(StringAttr(p) for p in include_paths),
            "dfb_effects": ArrayAttr(dfb_effects),
        }
        if unknown_dfb_access:
            props["unknown_dfb_access"] = UnitAttr()
        if condition is not None:
            props["condition"] = condition
        super().__init__(
            operands=[list(func_args), list(descriptor_dfbs), list(dfb_dependencies)],
            properties=props,
            result_types=[[result_type] if result_type is not None else []],
        )

    def get_dfb_dependency_operands(self) -> tuple[SSAValue, ...]:
        """DFB func args, then descriptor DFBs, then ``dfb_dependencies``, in source order."""
        direct = tuple(v for v in self.func_args if isinstance(v.type, DFBType))
        return direct + tuple(self.descriptor_dfbs) + tuple(self.dfb_dependencies)

    getDFBDependencyOperands = get_dfb_dependency_operands  # noqa: N815 (the spec's name)

    def verify_(self) -> None:
        for a in self.template_args.data:
            if not isinstance(a, TEMPLATE_ARG_ATTRS):
                raise VerifyException(f"unsupported template argument attribute {a}")
        descriptors = [a for a in self.template_args.data if isinstance(a, DFBDescriptorAttr)]
        if len(descriptors) != len(self.descriptor_dfbs):
            raise VerifyException("one descriptor_dfbs operand per #ttl.dfb_descriptor")
        for attr, value in zip(descriptors, self.descriptor_dfbs, strict=True):
            if (
                isinstance(value.owner, GetDFBOp)
                and value.owner.ref.root_reference.data != attr.dfb_name
            ):
                raise VerifyException("a descriptor operand must be the DFB its attribute names")
        for v in self.func_args:
            if not isinstance(v.type, IntegerType | DFBType | TensorType):
                raise VerifyException(f"unsupported external argument type {v.type}")
        deps = self.get_dfb_dependency_operands()
        dep_names = {v.owner.ref.root_reference.data for v in deps if isinstance(v.owner, GetDFBOp)}
        for a in self.template_args.data:
            if isinstance(a, DFBIdAttr) and a.dfb_name not in dep_names:
                raise VerifyException(f"#ttl.dfb_id<@{a.dfb_name}> needs that DFB as a dependency")
        if len(self.dfb_effects.data) > MAX_DFB_EFFECTS:
            raise VerifyException(f"more than {MAX_DFB_EFFECTS} dfb_effects")
        for e in self.dfb_effects.data:
            if e.dependency_index.data >= len(deps):
                raise VerifyException("dfb_effect dependency_index out of range")
        if self.condition is not None:
            if deps or self.dfb_effects.data or self.unknown_dfb_access is not None:
                raise VerifyException("a condition-result call cannot touch DFBs")
            if any(isinstance(a, DFBIdAttr) for a in self.template_args.data):
                raise VerifyException("a condition-result call cannot carry a DFB index")
            if self.result is None or self.result.type != self.condition.scalar_type:
                raise VerifyException("a condition-result call returns the condition's type")


# ------------------------------------------------------------------ pipes


class _PipeCopyOp(IRDLOperation):
    """A ``ttl.copy`` between a block and a pipe (see ``analysis/pipes.py``).

    ``src`` is the sending node (x, y), ``rect`` the destination rectangle
    (x_start, y_start, x_end, y_end, inclusive, as NOC multicast addresses
    take it), ``slot`` the pipe's sync slot, ``landing`` its landing buffer.
    """

    block = operand_def(BlockType)
    landing = operand_def(DFBType)
    result = result_def(TransferType)
    net = prop_def(IntegerAttr[I64])
    index = prop_def(IntegerAttr[I64])
    src = prop_def(DenseArrayBase)
    rect = prop_def(DenseArrayBase)
    slot = prop_def(IntegerAttr[I64])

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # NOC traffic, semaphores

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$block `,` $landing attr-dict `:` type($block) `,` type($landing)"

    def __init__(
        self,
        block: SSAValue,
        landing: SSAValue,
        net: int,
        index: int,
        src: tuple[int, int],
        rect: tuple[int, int, int, int],
        slot: int,
    ):
        super().__init__(
            operands=[block, landing],
            result_types=[TransferType()],
            properties={
                "net": IntegerAttr(net, i64),
                "index": IntegerAttr(index, i64),
                "src": DenseArrayBase.from_list(i64, list(src)),
                "rect": DenseArrayBase.from_list(i64, list(rect)),
                "slot": IntegerAttr(slot, i64),
            },
        )

    def verify_(self) -> None:
        if len(self.src.get_values()) != 2 or len(self.rect.get_values()) != 4:
            raise VerifyException("a pipe has a source (x, y) and a rectangle (x0, y0, x1, y1)")
        x0, y0, x1, y1 = self.rect.get_values()
        if x1 < x0 or y1 < y0:
            raise VerifyException("a pipe destination rectangle needs start <= end")
        if _kernel_of(self).is_compute:
            raise VerifyException(f"'{self.name}' is only valid in data-movement kernels")

    @property
    def receivers(self) -> list[tuple[int, int]]:
        x0, y0, x1, y1 = (int(v) for v in self.rect.get_values())
        return [(x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]


@irdl_op_definition
class PipeSendOp(_PipeCopyOp):
    """``ttl.copy(blk, pipe)`` in an ``if_src`` body: write ``blk`` to the receivers."""

    name = "ttl.pipe_send"


@irdl_op_definition
class PipeRecvOp(_PipeCopyOp):
    """``ttl.copy(pipe, blk)`` in an ``if_dst`` body: take the message into ``blk``."""

    name = "ttl.pipe_recv"

    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.block.owner, ReserveOp):
            raise VerifyException("a copy out of a pipe needs a reserved block")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """A condition the program requires of this node at run time, e.g. that it is the
    pipe's destination where a copy from a ``ttl.Pipe`` runs outside ``if_dst``: TT-Metal's
    ``ASSERT`` (the watcher's check on hardware; the emulator always checks)."""

    name = "ttl.assert"

    condition = operand_def(EqAttrConstraint(i1))
    message = prop_def(StringAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # stops the kernel: in place

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$condition attr-dict"

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})


@irdl_op_definition
class WaitAnyOp(IRDLOperation):
    """``ttl.wait_any(requests, start)`` (spec v0.21): the index of the first completed
    receive in cyclic order from ``start`` (modulo the count), which this op takes into
    its block; it waits while none has completed. The others stay pending: a later
    ``ttl.transfer_wait`` of any of them takes it, once, whichever took it first."""

    name = "ttl.wait_any"

    requests = var_operand_def(TransferType)
    start = operand_def(EqAttrConstraint(i32))
    result = result_def(i32)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # semaphores, NOC reads

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $requests `)` `start` $start attr-dict"

    def __init__(self, requests: Sequence[SSAValue], start: SSAValue):
        super().__init__(operands=[list(requests), start], result_types=[i32])

    def verify_(self) -> None:
        if not self.requests:
            raise VerifyException("ttl.wait_any needs at least one receive request")
        if len(set(self.requests)) != len(self.requests):
            raise VerifyException("the receive requests of a ttl.wait_any are distinct")
        slots = []
        for r in self.requests:
            if not isinstance(r.owner, PipeRecvOp):
                raise VerifyException("ttl.wait_any selects among pipe receives (ttl.pipe_recv)")
            slots.append(r.owner.slot.value.data)
        if len(set(slots)) != len(slots):
            raise VerifyException("the receives of a ttl.wait_any use distinct pipe slots")


# ------------------------------------------------------------ semaphores

_SYNC_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())  # L1 words and the NOC: keep in place


def _require_data_movement(op: Operation) -> None:
    if _kernel_of(op).is_compute:
        raise VerifyException(f"'{op.name}' is only valid in data-movement kernels")


@irdl_op_definition
class SemaphoreOp(IRDLOperation):
    """Declares semaphore ``index`` of every node, with its initial value."""

    name = "ttl.semaphore"

    sym_name = prop_def(SymbolNameConstraint())
    index = prop_def(IntegerAttr[I64])
    initial_value = prop_def(IntegerAttr[I64])

    traits = traits_def(SymbolOpInterface(), HasParent(OperationOp))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict"

    def __init__(self, name: str, index: int, initial_value: int):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "index": IntegerAttr(index, i64),
                "initial_value": IntegerAttr(initial_value, i64),
            }
        )

    def verify_(self) -> None:
        if not 0 <= self.initial_value.value.data < 2**32:
            raise VerifyException("a semaphore's initial value must be in [0, 2**32)")


@irdl_op_definition
class SemaphoreWaitOp(IRDLOperation):
    """Block until the local semaphore equals ``value`` (``minimum``: is at least it)."""

    name = "ttl.semaphore_wait"

    semaphore = prop_def(FlatSymbolRefAttr)
    minimum = opt_prop_def(UnitAttr)
    value = operand_def(i32)

    traits = traits_def(*_SYNC_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$semaphore `,` $value attr-dict"

    def __init__(self, semaphore: str, value: SSAValue, minimum: bool):
        props: dict[str, Attribute] = {"semaphore": SymbolRefAttr(semaphore)}
        if minimum:
            props["minimum"] = UnitAttr()
        super().__init__(properties=props, operands=[value])

    def verify_(self) -> None:
        _require_data_movement(self)


@irdl_op_definition
class SemaphoreSetOp(IRDLOperation):
    """Set the local semaphore to ``value``."""

    name = "ttl.semaphore_set"

    semaphore = prop_def(FlatSymbolRefAttr)
    value = operand_def(i32)

    traits = traits_def(*_SYNC_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$semaphore `,` $value attr-dict"

    def __init__(self, semaphore: str, value: SSAValue):
        super().__init__(properties={"semaphore": SymbolRefAttr(semaphore)}, operands=[value])

    def verify_(self) -> None:
        _require_data_movement(self)


@irdl_op_definition
class SemaphoreRemoteOp(IRDLOperation):
    """``set`` or ``inc`` the semaphore of node (x, y) over the NOC.

    A remote ``set`` writes the value from the kernel's ``staging`` semaphore word
    (NOC writes copy from L1, as TT-Metal's ``noc_semaphore_set_remote``).
    """

    name = "ttl.semaphore_remote"

    semaphore = prop_def(FlatSymbolRefAttr)
    action = prop_def(StringAttr)
    staging = opt_prop_def(FlatSymbolRefAttr)
    x = operand_def(i32)
    y = operand_def(i32)
    value = operand_def(i32)

    traits = traits_def(*_SYNC_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$semaphore `[` $x `,` $y `]` `,` $value attr-dict"

    def __init__(
        self,
        semaphore: str,
        action: str,
        coord: Sequence[SSAValue],
        value: SSAValue,
        staging: str | None = None,
    ):
        props: dict[str, Attribute] = {
            "semaphore": SymbolRefAttr(semaphore),
            "action": StringAttr(action),
        }
        if staging is not None:
            props["staging"] = SymbolRefAttr(staging)
        super().__init__(properties=props, operands=[*coord, value])

    def verify_(self) -> None:
        _require_data_movement(self)
        if self.action.data not in ("set", "inc"):
            raise VerifyException("a remote semaphore action is 'set' or 'inc'")
        if (self.action.data == "set") != (self.staging is not None):
            raise VerifyException("a remote semaphore set (only) needs a staging semaphore")


@irdl_op_definition
class SemaphoreMulticastOp(IRDLOperation):
    """Set the semaphore on every node of the rectangle [x0..x1] x [y0..y1] (inclusive),
    the sender included when it lies inside; the value goes out of ``staging``."""

    name = "ttl.semaphore_multicast"

    semaphore = prop_def(FlatSymbolRefAttr)
    staging = prop_def(FlatSymbolRefAttr)
    x0 = operand_def(i32)
    y0 = operand_def(i32)
    x1 = operand_def(i32)
    y1 = operand_def(i32)
    value = operand_def(i32)

    traits = traits_def(*_SYNC_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$semaphore `[` $x0 `,` $y0 `,` $x1 `,` $y1 `]` `,` $value attr-dict"

    def __init__(self, semaphore: str, rect: Sequence[SSAValue], value: SSAValue, staging: str):
        super().__init__(
            properties={"semaphore": SymbolRefAttr(semaphore), "staging": SymbolRefAttr(staging)},
            operands=[*rect, value],
        )

    def verify_(self) -> None:
        _require_data_movement(self)


@irdl_op_definition
class GroupWaitOp(IRDLOperation):
    """``GroupTransfer.wait_all()``: wait for the group's reads and/or writes."""

    name = "ttl.group_wait"

    reads = opt_prop_def(UnitAttr)
    writes = opt_prop_def(UnitAttr)

    traits = traits_def(*_SYNC_EFFECTS)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, reads: bool, writes: bool):
        props: dict[str, Attribute] = {}
        if reads:
            props["reads"] = UnitAttr()
        if writes:
            props["writes"] = UnitAttr()
        super().__init__(properties=props)


@irdl_op_definition
class NodeTableOp(IRDLOperation):
    """A top-level integer that differs between nodes: ``values[y * grid_x + x]``."""

    name = "ttl.node_table"

    values = prop_def(DenseArrayBase)
    result = result_def(i32)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, values: Sequence[int]):
        super().__init__(
            properties={"values": DenseArrayBase.from_list(i32, list(values))}, result_types=[i32]
        )


SYNC_OPS = (
    SemaphoreOp,
    SemaphoreWaitOp,
    SemaphoreSetOp,
    SemaphoreRemoteOp,
    SemaphoreMulticastOp,
    GroupWaitOp,
    NodeTableOp,
)


TTL = Dialect(
    "ttl",
    [
        OperationOp,
        TensorOp,
        DFBOp,
        KernelOp,
        GetTensorOp,
        GetDFBOp,
        ReserveOp,
        WaitOp,
        PushOp,
        PopOp,
        SliceOp,
        CopyOp,
        ReadIndexOp,
        RawElementReadOp,
        RawElementWriteOp,
        ElementCompareOp,
        TransferWaitOp,
        NodeOp,
        ReadOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        BinaryFnOp,
        ScalarOp,
        MatmulOp,
        UnaryOp,
        BroadcastOp,
        FillOp,
        ReduceOp,
        TransposeOp,
        WhereOp,
        MaskOp,
        StoreOp,
        FillScalerOp,
        PrintOp,
        SignpostBeginOp,
        SignpostEndOp,
        RawAddrOp,
        CallExternOp,
        PipeSendOp,
        PipeRecvOp,
        WaitAnyOp,
        AssertOp,
        DeviceIndexOp,
        *SYNC_OPS,
    ],
    [
        KernelKindAttr,
        UnaryFnAttr,
        ReduceKindAttr,
        BinaryFnAttr,
        ScalarFnAttr,
        TensorType,
        DFBType,
        BlockType,
        TilesType,
        SliceType,
        TransferType,
        Bfp8Type,
        DFBEffectKindAttr,
        DFBEffectAttr,
        DFBDescriptorAttr,
        DFBIdAttr,
        FloatBitsAttr,
        DispatchConditionAttr,
        ProtocolAttr,
        LifetimeAttr,
    ],
)
