"""C++ emission: one TT-Metal kernel source per ``ttl.kernel``.

A data-movement kernel is written against TT-Metal's ``api/dataflow/dataflow_api.h``.
Conventions (also recorded in the manifest, see docs/manifest.md and
:mod:`ttl.compiler.kernel_args`):

* DFB physical indices are compile-time args, in ascending physical index of
  the DFBs the kernel uses: ``constexpr uint32_t dfb_<name> = get_compile_time_arg_val(k);``
* Runtime arg ``i`` is the address of operation tensor ``i``; a data-movement
  kernel wraps it as ``TensorAccessor(tensor_<name>_args, addr, page_size)``, its
  ``TensorAccessorArgs`` following the DFB indices in the compile-time args, each
  tensor's at the previous one's ``next_compile_time_args_offset()``.
* NOC coordinates of other nodes come from runtime args (``noc_x_of(column)``,
  ``noc_y_of(row)``), never from constants in the code.
* Every kernel defines ``void kernel_main()``; a comment precedes the code of
  each source line it came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FileLineColLoc, FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from ttl.compiler import dialect as d
from ttl.compiler import kernel_args
from ttl.compiler.analysis.store_plan import plan_store, read_back_blocks
from ttl.compiler.compute_config import ComputeConfig
from ttl.compiler.emit import pipes, tt_metal_api
from ttl.compiler.emit.compute import emit_store
from ttl.compiler.emit.convert import Conversion, converter_definitions
from ttl.compiler.emit.debug import emit_print, outliving_values, zone_statement
from ttl.compiler.emit.row_major import row_major_copy_lines, tensor_page_bytes
from ttl.compiler.emit.sync import SyncEmitMixin
from ttl.targets import TILE_COLS, TILE_ROWS, Target, tile_bytes

PRELUDE = """\
#include <cstdint>

namespace ttlang {
// Allocation metadata of one DFB, usable in constant expressions.
template <uint32_t Index, uint32_t PagesPerBlock, uint32_t BlockCount, uint32_t PageSizeBytes>
struct DFBDescriptor {
  static constexpr uint32_t index = Index;
  static constexpr uint32_t pages_per_block = PagesPerBlock;
  static constexpr uint32_t block_count = BlockCount;
  static constexpr uint32_t page_size_bytes = PageSizeBytes;
};
}  // namespace ttlang
"""

# The emulator's run-time checks of generated code (emitted only where a kernel
# needs one); on hardware they are TT-Metal's watcher assertions.
CHECKS_ON_HARDWARE = """
#ifndef TTL_EMULATOR
// On hardware, the emulator's checks are TT-Metal watcher assertions.
#include "api/debug/assert.h"
#define ttl_check_slice(index, size, extent, what) \\
  ASSERT(static_cast<uint32_t>(index) <= (extent) - (size))
#define ttl_check_divisor(dividend, divisor) ASSERT((divisor) != 0)
#endif
"""

FLOORDIV_HELPER = """
// Python floor division on int32 (rounds toward negative infinity).
static inline int32_t ttl_floordiv(int32_t a, int32_t b) {
  const int32_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
"""

ELEMENT_HELPERS = """
// Element values (ttl.read_index, ttl.raw_element_read) are an f32's bits, used in
// integer arithmetic: the data-movement cores have no FPU.
// An index: truncated toward zero. The spec requires a finite value in
// [0, 2^31 - 1]; a negative or smaller-than-one value reads as 0.
static inline uint32_t ttl_index_of_f32_bits(uint32_t bits) {
  const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xffu) - 127;
  if ((bits >> 31) != 0u || exponent < 0) {
    return 0u;
  }
  const uint32_t mantissa = (bits & 0x7fffffu) | 0x800000u;
  return exponent >= 23 ? mantissa << (exponent - 23) : mantissa >> (23 - exponent);
}
// IEEE-754 comparisons: a NaN is unordered, -0 equals +0.
static inline bool ttl_f32_bits_is_nan(uint32_t bits) {
  return (bits & 0x7fffffffu) > 0x7f800000u;
}
static inline int32_t ttl_f32_bits_order(uint32_t bits) {
  const int32_t magnitude = static_cast<int32_t>(bits & 0x7fffffffu);
  return (bits >> 31) != 0u ? -magnitude : magnitude;
}
static inline bool ttl_f32_bits_less(uint32_t a, uint32_t b) {
  return !ttl_f32_bits_is_nan(a) && !ttl_f32_bits_is_nan(b) &&
         ttl_f32_bits_order(a) < ttl_f32_bits_order(b);
}
static inline bool ttl_f32_bits_equal(uint32_t a, uint32_t b) {
  return !ttl_f32_bits_is_nan(a) && !ttl_f32_bits_is_nan(b) &&
         ttl_f32_bits_order(a) == ttl_f32_bits_order(b);
}
"""

#: An integer term of C++ index arithmetic: a constant, folded, or an expression.
_Term = int | str


def _add(a: _Term, b: _Term) -> _Term:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    return a if b == 0 else f"{a} + {b}"


def _mul(a: _Term, k: int) -> _Term:
    if isinstance(a, int):
        return a * k
    return a if k == 1 else f"({a}) * {k}"


def _div(a: _Term, k: int) -> _Term:
    return a // k if isinstance(a, int) else f"({a}) / {k}"


def _mod(a: _Term, k: int) -> _Term:
    return a % k if isinstance(a, int) else f"({a}) % {k}"


_CPP_KEYWORDS = frozenset(
    [
        "alignas",
        "alignof",
        "and",
        "asm",
        "auto",
        "bitand",
        "bitor",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "compl",
        "const",
        "constexpr",
        "const_cast",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "dynamic_cast",
        "else",
        "enum",
        "explicit",
        "export",
        "extern",
        "false",
        "float",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "nullptr",
        "operator",
        "or",
        "private",
        "protected",
        "public",
        "register",
        "reinterpret_cast",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "static_assert",
        "static_cast",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "true",
        "try",
        "typedef",
        "typeid",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "wchar_t",
        "while",
        "xor",
    ]
)
_BINARY = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.AndIOp: "&&",
    arith.OrIOp: "||",
    arith.XOrIOp: "!=",
}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$")
# Block-expression nodes: emitted by the ttl.store that uses them.
_EXPR_OPS: tuple[type[Operation], ...] = (
    d.ReadOp,
    d.FillOp,
    d.BroadcastOp,
    d.MatmulOp,
    d.ReduceOp,
    d.TransposeOp,
    d.WhereOp,
    d.MaskOp,
    d.UnaryOp,
    *d.BINARY_OPS.values(),
    d.BinaryFnOp,
    d.ScalarOp,
)
_CMP = ["==", "!=", "<", "<=", ">", ">="]


@dataclass(frozen=True)
class KernelSource:
    """One emitted kernel: file name, text and the compile-time args it expects."""

    filename: str
    text: str
    dfbs: tuple[str, ...]  # compile-time arg k is the physical index of dfbs[k]
    # Then the TensorAccessorArgs of these tensors: (name, page size), in order.
    tensor_args: tuple[tuple[str, int], ...] = ()


def _cb_formats(kernel: d.KernelOp) -> set[str]:
    """The data formats (dtypes) of the CBs ``kernel`` acquires blocks of."""
    return {
        # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked them)
        op.dfb.type.dtype  # type: ignore[attr-defined]
        for op in kernel.walk()
        if isinstance(op, d.WaitOp | d.ReserveOp)
    }


# Kernel-API identifiers a user variable must not shadow inside kernel_main.
_API_NAMES = frozenset(
    [
        "TensorAccessor",
        "TensorAccessorArgs",
        "noc_x_of",
        "noc_y_of",
        "noc_index",
        "get_relative_logical_x",
        "get_relative_logical_y",
        "noc_async_read_page",
        "noc_async_write_page",
        "ASSERT",
        "SrcOrder",
        "DataFormat",
        "compute_kernel_hw_startup",
        *(fn for fns in tt_metal_api.COMPUTE_HEADERS.values() for fn in fns),
        "BroadcastType",
        "NONE",
        "ROW",
        "COL",
        "SCALAR",
        "ttlang",
        "int32_t",
        "uint32_t",
        "uint64_t",
        "size_t",
        "get_arg_val",
        "get_common_arg_val",
        "get_compile_time_arg_val",
        "get_noc_addr",
        "get_read_ptr",
        "get_write_ptr",
        "get_semaphore",
        "cb_reserve_back",
        "cb_push_back",
        "cb_wait_front",
        "cb_pop_front",
        "noc_async_read",
        "noc_async_write",
        "noc_async_read_tile",
        "noc_async_write_tile",
        "noc_async_read_barrier",
        "noc_async_write_barrier",
        "noc_async_write_multicast",
        "noc_semaphore_wait",
        "noc_semaphore_wait_min",
        "noc_semaphore_set",
        "noc_semaphore_set_remote",
        "noc_semaphore_set_multicast",
        "noc_semaphore_inc",
        "get_noc_multicast_addr",
        "tile_regs_acquire",
        "tile_regs_commit",
        "tile_regs_wait",
        "tile_regs_release",
        "copy_tile",
        "copy_tile_init",
        "binary_op_init_common",
        "mm_init",
        "matmul_tiles",
        "fill_tile_init",
        "fill_tile_bitcast",
        "unary_bcast",
        "unary_bcast_init",
        "pack_tile",
        "pack_reconfig_l1_acc",
        "DPRINT",
        "ENDL",
        "DebugPrinter",
    ]
)
# Prefixes of generated and API names (dfb_x, tensor_x, ttl_node_x, exp_tile, ...).
_RESERVED_PREFIX = re.compile(r"^(dfb_|tensor_|ttl_|KERNEL_|__)|_tiles?(_init)?$")


class Namer:
    """Stable, unique C++ identifiers from IR name hints."""

    def __init__(self, reserved: set[str]):
        self.used = set(reserved) | _CPP_KEYWORDS | _API_NAMES

    def fresh(self, hint: str | None, default: str = "v") -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or default)
        base = re.sub(r"_\d+$", "", base) or default
        if base[0].isdigit() or _RESERVED_PREFIX.search(base):
            base = "v_" + base
        name, n = base, 1
        while name in self.used:
            name, n = f"{base}_{n}", n + 1
        self.used.add(name)
        return name


class KernelEmitter(SyncEmitMixin):
    """Emits one ``ttl.kernel`` as C++."""

    def __init__(
        self,
        kernel: d.KernelOp,
        operation: d.OperationOp,
        target: Target,
        source_lines: list[str],
        source_name: str,
    ):
        self.kernel = kernel
        self.target = target
        self.compute = ComputeConfig.of(operation)
        self.source_lines = source_lines
        self.source_name = source_name
        self.lines: list[str] = []
        self.depth = 1
        self.last_line = -1
        self.needs_floordiv = False
        self.needs_elements = False
        self.needs_checks = False
        self.needs_noc_coords = False
        self.converters: set[str] = set()  # of copies between bf16 and f32 (emit/convert.py)
        self.mixed_formats = kernel.is_compute and len(_cb_formats(kernel)) > 1
        self.needs_profiler = False
        self.needs_print = False  # api/debug/dprint.h
        self.needs_assert = False  # api/debug/assert.h
        self.needs_print_pages = False  # api/debug/dprint_pages.h (print_cb_details)
        # Values a profiling zone declared before its scope because they outlive it.
        self.hoisted: set[SSAValue] = set()
        self.pending_comment: str | None = None
        self.tensors = {t.sym_name.data: t for t in operation.body.ops if isinstance(t, d.TensorOp)}
        self.num_tensors = len(self.tensors)
        self.dfbs = {f.sym_name.data: f for f in operation.body.ops if isinstance(f, d.DFBOp)}
        self.semaphores = {
            s.sym_name.data: s for s in operation.body.ops if isinstance(s, d.SemaphoreOp)
        }
        gx, gy = operation.grid.get_values()
        self.grid = (gx, gy)
        self.used_dfbs = sorted(
            {op.ref.root_reference.data for op in kernel.walk() if isinstance(op, d.GetDFBOp)},
            # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
            key=lambda n: (self.dfbs[n].physical_index.value.data, n),  # type: ignore[union-attr]
        )
        self.used_tensors = sorted(
            {op.ref.root_reference.data for op in kernel.walk() if isinstance(op, d.GetTensorOp)},
            key=lambda n: self.tensors[n].index.value.data,
        )
        self.namer = Namer(
            {f"dfb_{n}" for n in self.dfbs}
            | {f"tensor_{n}" for n in self.tensors}
            | {f"tensor_{n}_args" for n in self.tensors}
            | {"kernel_main"}
        )
        self.names: dict[SSAValue, str] = {}

    # ------------------------------------------------------------ output
    def line(self, text: str) -> None:
        if self.pending_comment is not None:
            comment, self.pending_comment = self.pending_comment, None
            self.line(comment)
        self.lines.append("  " * self.depth + text)

    def indent(self, delta: int) -> None:
        self.depth += delta

    def comment_for(self, op: Operation) -> None:
        loc = op.location
        if not isinstance(loc, FileLineColLoc) or loc.line.data == self.last_line:
            return
        self.last_line = n = loc.line.data
        name = loc.filename.data
        if name != self.source_name:  # a helper inlined from another file: no text of it here
            self.pending_comment = f"// {name}:{n}"
            return
        text = _statement_text(self.source_lines, n)
        self.pending_comment = f"// {name}:{n}: {text}"

    # ------------------------------------------------------------ values
    def define(self, value: SSAValue, hint: str | None = None) -> str:
        name = self.namer.fresh(hint or value.name_hint)
        self.names[value] = name
        return name

    def let(self, value: SSAValue, ctype: str, expr: str, hint: str | None = None) -> str:
        """Emits ``const T name = expr;`` for ``value``, or ``name = expr;`` when a
        profiling zone that ``value`` outlives declared it (op_SignpostBeginOp)."""
        if value in self.hoisted:
            name = self.names[value]
            self.line(f"{name} = {expr};")
            return name
        name = self.define(value, hint)
        self.line(f"const {ctype} {name} = {expr};")
        return name

    def val(self, value: SSAValue) -> str:
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            assert isinstance(attr, IntegerAttr | FloatAttr)  # scalars: no dense constants
            v = attr.value.data
            if value.type == arith.IntegerType(1):
                return "true" if v else "false"
            return f"({v})" if v < 0 else str(v)
        return self.names[value]

    def cb(self, value: SSAValue) -> str:
        """The DFB constant of a DFB or block value."""
        return f"dfb_{self._dfb_symbol(value)}"

    @staticmethod
    def _dfb_symbol(value: SSAValue) -> str:
        """The symbol of the ``ttl.dfb`` a DFB or block value belongs to."""
        op = value.owner
        if isinstance(op, d.ReserveOp | d.WaitOp):
            op = op.dfb.owner
        assert isinstance(op, d.GetDFBOp)
        return op.ref.root_reference.data

    @staticmethod
    def ctype(value: SSAValue) -> str:
        if value.type == arith.IntegerType(64):
            return "int64_t"
        return "bool" if value.type == arith.IntegerType(1) else "int32_t"

    # ------------------------------------------------------------ kernel
    def emit(self) -> KernelSource:
        k = self.kernel
        body: list[str] = []
        self.lines = body
        tensor_args = []
        # Each tensor's TensorAccessorArgs start where the previous one's end, as in
        # TT-Metal's kernels: a host may pass any tensor's own (sharded) form.
        offset = str(len(self.used_dfbs))
        for name in self.used_tensors if not k.is_compute else []:
            t = self.tensors[name]
            page = tensor_page_bytes(t.tensor_type)
            self.line(f"constexpr auto tensor_{name}_args = TensorAccessorArgs<{offset}>();")
            self.line(
                f"const auto tensor_{name} = TensorAccessor(tensor_{name}_args, "
                f"get_arg_val<uint32_t>({t.index.value.data}), {page});"
            )
            tensor_args.append((name, page))
            offset = f"tensor_{name}_args.next_compile_time_args_offset()"
        self.declare_semaphores(self.semaphores)
        self.region(k.body.block)
        head = [
            f"// Generated by ttlc from {self.source_name}; do not edit.",
            (
                f"// Logical kernel {k.logical_kernel.data} ({k.kind.data.value}, "
                f"processor slot {k.slot.data if k.slot else '?'})."
            ),
        ]
        if k.is_compute:  # the host's ComputeConfig on hardware; the manifest here
            c = self.compute
            head.append(
                f"// DST: {c.describe_dst()}, {c.dst_tiles(self.target)} tiles "
                f"(fp32_dest_acc_en={c.fp32_dest_acc_en}, dst_full_sync_en={c.dst_full_sync_en})."
            )
        head.append(PRELUDE)
        if k.is_compute:
            startup = self.hw_startup()
            if startup is not None:  # TT-Metal: once, before any other compute call
                body.insert(0, "  " + startup)
            includes = ["api/compute/common.h", *tt_metal_api.compute_headers("\n".join(body))]
        else:
            includes = [tt_metal_api.DATAFLOW_HEADER]
        if self.needs_profiler:
            includes.append(tt_metal_api.PROFILER_HEADER)
        if self.needs_print:
            includes.append(tt_metal_api.DPRINT_HEADER)
        if self.needs_assert:
            includes.append(tt_metal_api.ASSERT_HEADER)
        if self.needs_print_pages:
            includes.append(tt_metal_api.DPRINT_PAGES_HEADER)
        head.append("".join(f'#include "{h}"\n' for h in includes))
        if self.needs_checks:
            head.append(CHECKS_ON_HARDWARE)
        headers = custom_headers(k)
        if headers:
            head.append("// Headers of external calls.")
            head.extend(f'#include "{h}"' for h in headers)
            head.append("")
        if self.needs_floordiv:
            head.append(FLOORDIV_HELPER)
        if self.needs_elements:
            head.append(ELEMENT_HELPERS)
        if self.used_dfbs:
            head.append("// DFB physical indices (compile-time args).")
            for i, name in enumerate(self.used_dfbs):
                head.append(f"constexpr uint32_t dfb_{name} = get_compile_time_arg_val({i});")
            head.append("")
        if self.needs_noc_coords:
            head.append(self.noc_coordinate_helpers())
        if self.converters:
            head.append(converter_definitions(self.converters))
        text = "\n".join([*head, "void kernel_main() {", *body, "}", ""])
        return KernelSource(
            f"{k.sym_name.data}.cpp", text, tuple(self.used_dfbs), tuple(tensor_args)
        )

    def hw_startup(self) -> str | None:
        """The compute kernel's ``compute_kernel_hw_startup`` call (None: it uses no DFB).

        Its operands are the CBs of the kernel's first tile operation as TT-Metal
        kernels pass them: a matmul's two inputs (``SrcOrder::Reverse``), else the first
        two waited DFBs it reads (a reduction: its input, then its scaler), and the first
        it reserves.
        """
        reads, waits, reserves = [], [], []
        matmul = None
        for op in self.kernel.walk():
            if isinstance(op, d.WaitOp) and self.cb(op.dfb) not in waits:
                waits.append(self.cb(op.dfb))
            elif isinstance(op, d.ReadOp) and isinstance(op.block.owner, d.WaitOp):
                if self.cb(op.block) not in reads:
                    reads.append(self.cb(op.block))
            elif isinstance(op, d.ReserveOp) and self.cb(op.dfb) not in reserves:
                reserves.append(self.cb(op.dfb))
            elif isinstance(op, d.MatmulOp) and matmul is None:
                matmul = op
        waits = reads + [cb for cb in waits if cb not in reads]
        if not waits and not reserves:
            return None
        out = reserves[0] if reserves else waits[0]
        if matmul is not None:
            # (ignore: matmul operands are ttl.read results of waited blocks)
            a = self.cb(matmul.lhs.owner.block)  # type: ignore[union-attr]
            b = self.cb(matmul.rhs.owner.block)  # type: ignore[union-attr]
            return f"compute_kernel_hw_startup<SrcOrder::Reverse>({a}, {b}, {out});"
        if len(waits) >= 2:
            return f"compute_kernel_hw_startup({waits[0]}, {waits[1]}, {out});"
        return f"compute_kernel_hw_startup({(waits or reserves)[0]}, {out});"

    # ------------------------------------------------------------ NOC coordinates
    def noc_x(self, column: str) -> str:
        """The NOC x coordinate of logical column ``column`` (a C++ expression)."""
        self.needs_noc_coords = True
        return f"noc_x_of({column})"

    def noc_y(self, row: str) -> str:
        """The NOC y coordinate of logical row ``row`` (a C++ expression)."""
        self.needs_noc_coords = True
        return f"noc_y_of({row})"

    def noc_coordinate_helpers(self) -> str:
        x0 = kernel_args.noc_x_arg(self.num_tensors, 0)
        y0 = kernel_args.noc_y_arg(self.num_tensors, self.grid, 0)
        return (
            "// NOC coordinates of the grid's columns and rows: runtime args the host computes\n"
            "// from the logical grid (worker_core_from_logical_core).\n"
            "inline uint32_t noc_x_of(int32_t column) {\n"
            f"  return get_arg_val<uint32_t>({x0} + column);\n"
            "}\n"
            "inline uint32_t noc_y_of(int32_t row) {\n"
            f"  return get_arg_val<uint32_t>({y0} + row);\n"
            "}\n"
        )

    def region(self, block: Block) -> None:
        for op in block.ops:
            self.comment_for(op)
            self.op(op)

    def op(self, op: Operation) -> None:
        handler: Callable[[Operation], None] | None = getattr(self, "op_" + type(op).__name__, None)
        if handler is not None:
            handler(op)
        elif type(op) in _BINARY:
            a, b = (self.val(x) for x in op.operands)
            r = op.results[0]
            self.let(r, self.ctype(r), f"{a} {_BINARY[type(op)]} {b}")
        elif isinstance(op, _EXPR_OPS):
            pass  # block-expression nodes are emitted by their store
        else:
            raise AssertionError(f"no C++ lowering for {op.name}")

    # ------------------------------------------------------------ scalars
    def op_ConstantOp(self, op: arith.ConstantOp) -> None:
        pass  # constants are inlined

    def op_GetDFBOp(self, op: d.GetDFBOp) -> None:
        pass  # file-scope constexpr

    def op_GetTensorOp(self, op: d.GetTensorOp) -> None:
        pass  # accessor declared at kernel entry

    def op_SliceOp(self, op: d.SliceOp) -> None:
        pass  # used by its copy

    def op_FloorDivSIOp(self, op: arith.FloorDivSIOp) -> None:
        self.needs_floordiv = True
        r = op.results[0]
        divisor = self.val(op.rhs)
        if not divisor.lstrip("-").isdigit():  # a constant divisor was checked when folded
            self.needs_checks = True
            self.line(f"ttl_check_divisor({self.val(op.lhs)}, {divisor});")
        self.let(r, "int32_t", f"ttl_floordiv({self.val(op.lhs)}, {self.val(op.rhs)})")

    def op_CmpiOp(self, op: arith.CmpiOp) -> None:
        sym = _CMP[op.predicate.value.data]
        r = op.results[0]
        self.let(r, "bool", f"{self.val(op.lhs)} {sym} {self.val(op.rhs)}")

    def op_SelectOp(self, op: arith.SelectOp) -> None:
        r = op.results[0]
        c, a, b = (self.val(x) for x in op.operands)
        self.let(r, self.ctype(r), f"{c} ? {a} : {b}")

    def op_NodeOp(self, op: d.NodeOp) -> None:
        r = op.results[0]
        fn = "get_relative_logical_x" if op.dim.value.data == 0 else "get_relative_logical_y"
        self.let(r, "int32_t", f"static_cast<int32_t>({fn}())")

    def op_DeviceIndexOp(self, op: d.DeviceIndexOp) -> None:
        arg = kernel_args.device_index_arg(self.num_tensors, self.grid)
        self.let(
            op.result,
            "int32_t",
            f"static_cast<int32_t>(get_arg_val<uint32_t>({arg}))",
            op.result.name_hint or "device_index",
        )

    # ------------------------------------------------------------ control flow
    def _declare(self, values: list[SSAValue], inits: list[SSAValue] | None) -> list[str]:
        names = []
        for i, v in enumerate(values):
            if v in self.hoisted:  # declared before a profiling zone it outlives
                name = self.names[v]
                if inits is not None:
                    self.line(f"{name} = {self.val(inits[i])};")
            else:
                name = self.define(v)
                init = f" = {self.val(inits[i])}" if inits is not None else ""
                self.line(f"{self.ctype(v)} {name}{init};")
            names.append(name)
        return names

    def _yield(self, op: Operation | None, names: list[str]) -> None:
        if op is None or not names:
            return
        vals = [self.val(v) for v in op.operands]
        if any(v in names for v in vals) and vals != names:  # a swap: go through temps
            temps = [self.namer.fresh(n + "_next") for n in names]
            for t, v, _n in zip(temps, vals, names, strict=True):
                self.line(f"const auto {t} = {v};")
            vals = temps
        for n, v in zip(names, vals, strict=True):
            if n != v:
                self.line(f"{n} = {v};")

    def _body(self, block: Block, names: list[str]) -> None:
        self.indent(1)
        for op in block.ops:
            if isinstance(op, scf.YieldOp | scf.ConditionOp):
                continue
            self.comment_for(op)
            self.op(op)
        self._yield(block.last_op if isinstance(block.last_op, scf.YieldOp) else None, names)
        self.indent(-1)

    def op_ForOp(self, op: scf.ForOp) -> None:
        names = self._declare(list(op.results), list(op.iter_args))
        block = op.body.block
        for arg, name in zip(block.args[1:], names, strict=True):
            self.names[arg] = name
        iv = self.define(block.args[0], block.args[0].name_hint or "iv")
        step = self.val(op.step)
        inc = f"++{iv}" if step == "1" else f"{iv} += {step}"
        self.line(f"for (int32_t {iv} = {self.val(op.lb)}; {iv} < {self.val(op.ub)}; {inc}) {{")
        self._body(block, names)
        self.line("}")
        self.last_line = -1

    def op_IfOp(self, op: scf.IfOp) -> None:
        names = self._declare(list(op.output), None)
        self.line(f"if ({self.val(op.cond)}) {{")
        self._body(op.true_region.block, names)
        if op.false_region.blocks and (names or len(op.false_region.block.ops) > 1):
            self.line("} else {")
            self._body(op.false_region.block, names)
        self.line("}")
        self.last_line = -1

    def op_WhileOp(self, op: scf.WhileOp) -> None:
        names = self._declare(list(op.res), list(op.arguments))
        before, after = op.before_region.block, op.after_region.block
        for arg, name in zip(list(before.args) + list(after.args), names + names, strict=True):
            self.names[arg] = name
        self.line("while (true) {")
        self._body(before, [])
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        self.line(f"  if (!({self.val(cond.condition)})) break;")
        self._body(after, names)
        self.line("}")
        self.last_line = -1

    # ------------------------------------------------------------ DFB protocol
    def _pages(self, value: SSAValue) -> int:
        # (ignore: a DFB block value; xDSL types SSAValue.type as Attribute)
        return value.type.num_tiles  # type: ignore[attr-defined]

    def _acquire(self, op: d.ReserveOp | d.WaitOp, api: str, ptr: str) -> None:
        cb = self.cb(op.dfb)
        r = op.result
        self.line(f"{api}({cb}, {self._pages(r)});")
        if self.kernel.is_compute or all(isinstance(u.operation, d._ReleaseOp) for u in r.uses):
            # A name only: compute kernels have no L1 addresses, and a block only released
            # (a waited block popped unread, a published one) needs none.
            self.define(r, _addr_hint(r))
        else:
            self.let(r, "uint32_t", f"{ptr}({cb})", _addr_hint(r))

    def op_ReserveOp(self, op: d.ReserveOp) -> None:
        self._acquire(op, "cb_reserve_back", "get_write_ptr")

    def op_WaitOp(self, op: d.WaitOp) -> None:
        self._acquire(op, "cb_wait_front", "get_read_ptr")

    def op_PushOp(self, op: d.PushOp) -> None:
        self.line(f"cb_push_back({self.cb(op.block)}, {self._pages(op.block)});")

    def op_PopOp(self, op: d.PopOp) -> None:
        self.line(f"cb_pop_front({self.cb(op.block)}, {self._pages(op.block)});")

    def op_FillScalerOp(self, op: d.FillScalerOp) -> None:
        # One bf16 tile as 512 words: the value twice in the first 8 words (row 0) of
        # each 128-word face, as reduce_tile reads its scaler; zeros elsewhere.
        words, i = self.namer.fresh("scaler_words"), self.namer.fresh("w")
        pair = op.bf16_bits * 0x10001
        value = op.value.value.data
        self.line(f"// The scaler of reductions written without one: {value} in row 0 of")
        self.line("// each face, as TT-Metal's generate_reduce_scaler writes it.")
        self.line(
            f"volatile uint32_t* {words} = "
            f"reinterpret_cast<volatile uint32_t*>({self.names[op.block]});"
        )
        self.line(f"for (uint32_t {i} = 0; {i} < 512; ++{i}) {{")
        self.line(f"  {words}[{i}] = {i} % 128 < 8 ? 0x{pair:08x}u : 0u;")
        self.line("}")

    # ------------------------------------------------------------ copies
    def op_CopyOp(self, op: d.CopyOp) -> None:
        sl_val, blk = (op.src, op.dst) if op.is_read else (op.dst, op.src)
        sl = sl_val.owner
        assert isinstance(sl, d.SliceOp)
        tensor = sl.tensor.owner
        assert isinstance(tensor, d.GetTensorOp)
        tname = tensor.ref.root_reference.data
        # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
        tensor_type: d.TensorType = sl.tensor.type  # type: ignore[assignment]
        units = tensor_type.unit_dims
        sizes = sl.result.type.dims
        coords = []
        for dim, (off, size) in enumerate(zip(sl.offsets, sizes, strict=True)):
            coord = self.val(off)
            if not coord.isdigit() and dim not in sl.proven_dims:  # constants were checked
                what = f"dimension {dim} of tensor '{tname}'"
                if tensor_type.is_row_major:  # element counts may not fit the 16-bit fields
                    what = (
                        f"a slice of {size} elements in dimension {dim} of row-major tensor "
                        f"'{tname}' ({units[dim]} elements)"
                    )
                self.needs_checks = True
                self.line(f'ttl_check_slice({coord}, {size}, {units[dim]}, "{what}");')
            coords.append(coord)
        convert = self._conversion(op, tensor_type.dtype, blk)
        if tensor_type.is_row_major:
            self._row_major_copy(op, tname, tensor_type, coords, sizes, self.names[blk], convert)
            return
        tiles = units
        # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
        page = tile_bytes(blk.type.dtype)  # type: ignore[attr-defined]
        strides, acc = [], 1
        for s in reversed(tiles):
            strides.append(acc)
            acc *= s
        strides.reverse()
        bstrides, acc = [], 1
        for s in reversed(sizes):
            bstrides.append(acc)
            acc *= s
        bstrides.reverse()
        loops = []
        page_terms, local_terms = [], []
        for dim, (coord, size) in enumerate(zip(coords, sizes, strict=True)):
            if size > 1:
                iv = self.namer.fresh(f"tile{dim}")
                loops.append((iv, size))
                coord = iv if coord == "0" else f"{coord} + {iv}"
                local_terms.append(iv if bstrides[dim] == 1 else f"{iv} * {bstrides[dim]}")
            if coord != "0":
                if strides[dim] != 1:
                    coord = coord if _IDENT.match(coord) else f"({coord})"
                    coord = f"{coord} * {strides[dim]}"
                page_terms.append(coord)
        page_expr = " + ".join(page_terms) or "0"
        addr = self.names[blk]
        local = " + ".join(local_terms)
        if local and not _IDENT.match(local):
            local = f"({local})"
        l1 = addr if not local else f"{addr} + {local} * {page}"
        for iv, size in loops:
            self.line(f"for (uint32_t {iv} = 0; {iv} < {size}; ++{iv}) {{")
            self.indent(1)
        if convert is not None:
            staged = convert.staged
            rw = "read" if op.is_read else "write"
            transfer = f"noc_async_{rw}_page({page_expr}, tensor_{tname}, {staged});"
            for text in convert.around(transfer, l1, TILE_ROWS * TILE_COLS):
                self.line(text)
        elif op.is_read:
            self.line(f"noc_async_read_page({page_expr}, tensor_{tname}, {l1});")
        else:
            self.line(f"noc_async_write_page({page_expr}, tensor_{tname}, {l1});")
        for _ in loops:
            self.indent(-1)
            self.line("}")

    def _conversion(self, op: d.CopyOp, tensor_dtype: str, blk: SSAValue) -> Conversion | None:
        """How a copy between a tensor and a block of another dtype converts its pages
        (``emit/convert.py``), after reserving its staging page; None if it does not."""
        if not op.converts:
            return None
        assert op.staging is not None, "ttl-stage-converting-copies gave the copy a page"
        staging = self.cb(op.staging)
        self.line(f"cb_reserve_back({staging}, 1);  // L1 for one page on its way")
        staged = self.namer.fresh("staged")
        self.line(f"const uint32_t {staged} = get_write_ptr({staging});")
        # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
        block_dtype: str = blk.type.dtype  # type: ignore[attr-defined]
        conversion = Conversion(op.is_read, staged, tensor_dtype, block_dtype)
        self.converters.add(conversion.function)
        return conversion

    def _row_major_copy(
        self,
        op: d.CopyOp,
        tname: str,
        tensor_type: d.TensorType,
        coords: list[str],
        sizes: tuple[int, ...],
        blk: str,
        convert: Conversion | None,
    ) -> None:
        """One NOC read or write per row segment: each row of the innermost dimension is
        a DRAM page, and a slice's run of it is contiguous there and in the block."""
        for text in row_major_copy_lines(
            op.is_read, tname, tensor_type, coords, sizes, blk, self.namer.fresh, convert
        ):
            self.line(text)

    def op_PipeSendOp(self, op: d.PipeSendOp) -> None:
        for text in pipes.send_lines(op, self.names[op.block], self.cb(op.landing), self):
            self.line(text)

    def op_PipeRecvOp(self, op: d.PipeRecvOp) -> None:
        # The message is taken at wait() (emit/pipes.py). A receive ttl.wait_any may take
        # first keeps a flag, so whichever comes first takes it, once.
        if any(isinstance(use.operation, d.WaitAnyOp) for use in op.result.uses):
            name = self.define(op.result, "request_done")
            self.line(f"bool {name} = false;  // taken by its wait() or a ttl.wait_any")

    def _take(self, copy: d.PipeRecvOp) -> None:
        """The receiver's half of the protocol for ``copy``, once if it has a flag."""
        blk, landing = self.names[copy.block], self.cb(copy.landing)
        lines = pipes.receive_lines(copy, blk, landing, self.namer.fresh, self)
        done = self.names.get(copy.result)
        if done is None:
            for text in lines:
                self.line(text)
            return
        self.line(f"if (!{done}) {{")
        self.indent(1)
        for text in [*lines, f"{done} = true;"]:
            self.line(text)
        self.indent(-1)
        self.line("}")

    def op_TransferWaitOp(self, op: d.TransferWaitOp) -> None:
        copy = op.transfer.owner
        if isinstance(copy, d.PipeSendOp):
            self.line("noc_async_write_barrier();")
            return
        if isinstance(copy, d.PipeRecvOp):
            self._take(copy)
            return
        assert isinstance(copy, d.CopyOp)
        self.line("noc_async_read_barrier();" if copy.is_read else "noc_async_write_barrier();")

    def op_WaitAnyOp(self, op: d.WaitAnyOp) -> None:
        """Polls the requests' ``valid`` semaphores in cyclic order from ``start`` (as
        TT-Metal kernels poll L1), then takes the selected receive."""
        recvs = [r.owner for r in op.requests]
        assert all(isinstance(r, d.PipeRecvOp) for r in recvs)
        n = len(recvs)
        first = self.namer.fresh("first")
        ready = self.define(op.result, op.result.name_hint or "completed")
        self.line(f"const int32_t {first} = (({self.val(op.start)} % {n}) + {n}) % {n};")
        self.line(f"int32_t {ready} = -1;  // the first completed receive from {first} on")
        self.line(f"while ({ready} < 0) {{")
        self.indent(1)
        self.line("invalidate_l1_cache();")
        k = self.namer.fresh("k")
        self.line(f"for (int32_t {k} = 0; {k} < {n} && {ready} < 0; {k}++) {{")
        self.indent(1)
        i = self.namer.fresh("i")
        self.line(f"const int32_t {i} = ({first} + {k}) % {n};")
        for index, recv in enumerate(recvs):
            assert isinstance(recv, d.PipeRecvOp)
            valid = pipes.valid_word(recv)
            done = self.names[recv.result]
            self.line(f"if ({i} == {index} && ({done} || *{valid} != 0)) {ready} = {index};")
        self.indent(-1)
        self.line("}")
        self.indent(-1)
        self.line("}")
        for index, recv in enumerate(recvs):
            assert isinstance(recv, d.PipeRecvOp)
            self.line(f"if ({ready} == {index}) {{")
            self.indent(1)
            self._take(recv)
            self.indent(-1)
            self.line("}")

    def op_AssertOp(self, op: d.AssertOp) -> None:
        # `cond && "why"`: the message is part of the condition ASSERT prints (C's idiom).
        self.needs_assert = True
        why = op.message.data.replace("\\", "\\\\").replace('"', '\\"')
        self.line(f'ASSERT({self.val(op.condition)} && "{why}");')

    def op_ReadIndexOp(self, op: d.ReadIndexOp) -> None:
        self.needs_elements = True
        bits = self._element_bits(op.block, op.coords)
        index = f"static_cast<int32_t>(ttl_index_of_f32_bits({bits}))"
        self.let(op.result, self.ctype(op.result), index, op.result.name_hint or "index")

    def op_RawElementReadOp(self, op: d.RawElementReadOp) -> None:
        bits = self._element_bits(op.block, op.coords)
        self.let(op.result, "uint32_t", bits, op.result.name_hint or "element")

    def op_RawElementWriteOp(self, op: d.RawElementWriteOp) -> None:
        # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
        ty: d.BlockType = op.block.type  # type: ignore[assignment]
        element = self._element(op.block, op.coords)
        value = self.val(op.value)
        if ty.dtype == "bf16":  # the f32's upper half: truncated, as upstream's lowering
            self.line(f"{element} = static_cast<uint16_t>(static_cast<uint32_t>({value}) >> 16);")
        else:
            self.line(f"{element} = static_cast<uint32_t>({value});")

    def op_ElementCompareOp(self, op: d.ElementCompareOp) -> None:
        self.needs_elements = True
        a, b = (f"static_cast<uint32_t>({self.val(v)})" for v in (op.lhs, op.rhs))
        test = {
            "eq": f"ttl_f32_bits_equal({a}, {b})",
            "ne": f"!ttl_f32_bits_equal({a}, {b})",
            "lt": f"ttl_f32_bits_less({a}, {b})",
            "gt": f"ttl_f32_bits_less({b}, {a})",
            "le": f"ttl_f32_bits_less({a}, {b}) || ttl_f32_bits_equal({a}, {b})",
            "ge": f"ttl_f32_bits_less({b}, {a}) || ttl_f32_bits_equal({a}, {b})",
        }[op.predicate.data]
        self.let(op.result, "bool", test)

    def _element_bits(self, block: SSAValue, coords: Sequence[SSAValue]) -> str:
        """The element's value as f32 bits (a bf16 element is the upper half)."""
        # (ignore: a block value; xDSL types SSAValue.type as Attribute)
        if block.type.dtype == "bf16":  # type: ignore[attr-defined]
            return f"static_cast<uint32_t>({self._element(block, coords)}) << 16"
        return self._element(block, coords)

    def _element(self, block: SSAValue, coords: Sequence[SSAValue]) -> str:
        """The L1 element of ``block`` (a data-movement kernel's address) at scalar
        ``coords``, as a volatile lvalue: tiles in row-major order, each four 16x16
        row-major faces (docs/runtime.md, "Tiles"); a row-major block is its elements."""
        # (ignore: a block value; xDSL types SSAValue.type as Attribute)
        ty: d.BlockType = block.type  # type: ignore[assignment]
        dims = ty.dims
        terms = [self._term(c) for c in coords]
        if ty.is_row_major:
            flat = terms[0]
            for c, n in zip(terms[1:], dims[1:], strict=True):
                flat = _add(_mul(flat, n), c)
        else:
            *outer, r, c = terms
            tile: _Term = 0
            for o, n in zip(outer, dims[:-2], strict=True):
                tile = _add(_mul(tile, n), o)
            tile = _add(_mul(_add(_mul(tile, dims[-2]), _div(r, 32)), dims[-1]), _div(c, 32))
            face = _add(_mul(_div(_mod(r, 32), 16), 2), _div(_mod(c, 32), 16))
            within = _add(_add(_mul(face, 256), _mul(_mod(r, 16), 16)), _mod(c, 16))
            flat = _add(_mul(tile, 1024), within)
        ctype = "uint16_t" if ty.dtype == "bf16" else "uint32_t"
        return f"reinterpret_cast<volatile {ctype}*>({self.names[block]})[{flat}]"

    def _term(self, value: SSAValue) -> _Term:
        """An integer operand: its value if it is a constant (folded), else its name."""
        op = value.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        return self.val(value)

    # ------------------------------------------------------------ external calls
    def op_RawAddrOp(self, op: d.RawAddrOp) -> None:
        tensor = op.tensor.owner
        assert isinstance(tensor, d.GetTensorOp)
        index = self.tensors[tensor.ref.root_reference.data].index.value.data
        self.let(op.result, "uint32_t", f"get_arg_val<uint32_t>({index})", "addr")

    def op_CallExternOp(self, op: d.CallExternOp) -> None:
        targs = [self.template_arg(a) for a in op.template_args.data]
        call = op.callee.data + (f"<{', '.join(targs)}>" if targs else "")
        call += f"({', '.join(self.extern_arg(v) for v in op.func_args)})"
        if op.result is None:
            self.line(call + ";")
        else:
            self.let(op.result, self.ctype(op.result), call)

    def _physical_index(self, name: str) -> int:
        # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
        return self.dfbs[name].physical_index.value.data  # type: ignore[union-attr]

    def template_arg(self, attr: Attribute) -> str:
        """C++ template argument of one ``template_args`` attribute."""
        if isinstance(attr, d.DFBDescriptorAttr):
            f = self.dfbs[attr.dfb_name]
            return (
                f"ttlang::DFBDescriptor<{self._physical_index(attr.dfb_name)}, "
                f"{f.dfb_type.num_tiles}, {f.block_count.value.data}, {f.page_size.value.data}>"
            )
        if isinstance(attr, d.DFBIdAttr):
            return str(self._physical_index(attr.dfb_name))
        if isinstance(attr, d.FloatBitsAttr):
            return f"{attr.bits.data}u"
        assert isinstance(attr, IntegerAttr)
        if attr.type == arith.IntegerType(1):
            return "true" if attr.value.data else "false"
        return str(attr.value.data)

    def extern_arg(self, value: SSAValue) -> str:
        """C++ function argument: DFB index constant, TensorAccessor, or a scalar."""
        owner = value.owner
        if isinstance(owner, d.GetDFBOp):
            return f"dfb_{owner.ref.root_reference.data}"
        if isinstance(owner, d.GetTensorOp):
            return f"tensor_{owner.ref.root_reference.data}"
        return self.val(value)

    # ------------------------------------------------------------ debugging
    def op_PrintOp(self, op: d.PrintOp) -> None:
        self.needs_print = True
        if op.object is not None and isinstance(op.object.type, d.DFBType):
            self.needs_print_pages = True
        emit_print(op, self.line, self.indent, self.val, self.cb, self.kernel.is_compute)

    def op_SignpostBeginOp(self, op: d.SignpostBeginOp) -> None:
        # A zone is a C++ scope with TT-Metal's DeviceZoneScopedN at its top; what the
        # with body defines and later code uses is declared before it.
        for value in outliving_values(op):
            ctype = self._variable_type(value)
            if ctype is not None:
                self.hoisted.add(value)
                hint = _addr_hint(value) if isinstance(value.type, d.BlockType) else None
                self.line(f"{ctype} {self.define(value, hint)};  // set in the zone below")
        self.needs_profiler = True
        self.line("{")
        self.indent(1)
        self.line(zone_statement(op.signpost.data))

    def op_SignpostEndOp(self, op: d.SignpostEndOp) -> None:
        self.pending_comment = None  # the closing brace needs no source line
        self.indent(-1)
        self.line("}")

    def _variable_type(self, value: SSAValue) -> str | None:
        """The C++ type of ``value``'s variable; None if it has none (a DFB, a tile...)."""
        if isinstance(value.type, arith.IntegerType):
            return self.ctype(value)
        if isinstance(value.type, d.BlockType) and not self.kernel.is_compute:
            return "uint32_t"  # the block's L1 address
        return None

    # ------------------------------------------------------------ block math
    def op_StoreOp(self, op: d.StoreOp) -> None:
        plan = plan_store(op, self.target, self.compute)
        assert plan.chunk > 0, "DST capacity is checked before emission"
        read_back = read_back_blocks(op)
        for block in read_back:
            self._publish(op, block)
        self.line("{")
        self.indent(1)
        emit_store(op, plan, self.line, self.indent, self.cb, reconfig=self.mixed_formats)
        self.indent(-1)
        self.line("}")
        for block in read_back:
            self._unpublish(op, block)

    # A reserved block the store reads back (block state RW) is published for it: the
    # unpackers read only a DFB's front. Its DFB is a scratch DFB, which only this kernel
    # uses, one block at a time (ttl-prepare-read-back). With one block, popping and
    # reserving again leaves the value where it is; with two (a store into the block it
    # reads), the store packs into the next block while it reads this one.
    def _two_blocks(self, block: SSAValue) -> bool:
        dfb = self.dfbs[self._dfb_symbol(block)]
        assert dfb.scratch is not None, "ttl-prepare-read-back shadows other DFBs"
        return dfb.block_count.value.data >= 2

    def _publish(self, store: d.StoreOp, block: SSAValue) -> None:
        cb, pages = self.cb(block), self._pages(block)
        name = block.name_hint or cb
        self.line(f"// Read back {name}: at the DFB's front, where unpackers read.")
        self.line(f"cb_push_back({cb}, {pages});")
        self.line(f"cb_wait_front({cb}, {pages});")
        if self._two_blocks(block):
            self.line(f"cb_reserve_back({cb}, {pages});")
            if store.block is block and store.acc.value:  # packer L1 accumulation onto it
                self._keep_reserved(cb, pages)
        else:
            assert store.block is not block, "an in-place store has a two-block DFB"

    def _unpublish(self, store: d.StoreOp, block: SSAValue) -> None:
        cb, pages = self.cb(block), self._pages(block)
        two = self._two_blocks(block)
        if two and store.block is not block:
            self._keep_reserved(cb, pages)
        self.line(f"cb_pop_front({cb}, {pages});")
        if not two:
            self.line(f"cb_reserve_back({cb}, {pages});  // the same block, its value kept")

    def _keep_reserved(self, cb: str, pages: int) -> None:
        """Copies the front block of ``cb`` into its reserved block, tile by tile."""
        i = self.namer.fresh("k")
        self.line(f"for (uint32_t {i} = 0; {i} < {pages}; ++{i}) {{  // keep the value reserved")
        for text in (
            "tile_regs_acquire();",
            f"copy_init({cb});",
            f"copy_tile({cb}, {i}, 0);",
            "tile_regs_commit();",
            "tile_regs_wait();",
            f"pack_tile(0, {cb}, {i});",
            "tile_regs_release();",
        ):
            self.line(f"  {text}")
        self.line("}")


def _addr_hint(block: SSAValue) -> str:
    """The name of a block's L1 address variable in a data-movement kernel."""
    return (block.name_hint or "blk") + "_addr"


def custom_headers(kernel: d.KernelOp) -> list[str]:
    """Headers of the kernel's external calls, in first-use order, without duplicates."""
    out: list[str] = []
    for op in kernel.walk():
        if isinstance(op, d.CallExternOp) and op.header.data not in out:
            out.append(op.header.data)
    return out


def _statement_text(lines: list[str], n: int, max_lines: int = 12) -> str:
    """Source line ``n`` joined with its continuation lines (open brackets), one line."""
    parts: list[str] = []
    depth = 0
    for i in range(n - 1, min(len(lines), n - 1 + max_lines)):
        text = lines[i].split("#", 1)[0].strip()
        parts.append(text)
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
        if depth <= 0 and not text.endswith("\\"):
            break
    joined = " ".join(p for p in parts if p)
    return re.sub(r"([(\[{]) ", r"\1", re.sub(r",? ([)\]}])", r"\1", joined))


def emit_kernels(
    module_op: d.OperationOp, target: Target, source_lines: list[str], source_name: str
) -> list[KernelSource]:
    """C++ for every kernel of the operation, in declaration order."""
    return [
        KernelEmitter(k, module_op, target, source_lines, source_name).emit()
        for k in module_op.body.ops
        if isinstance(k, d.KernelOp)
    ]
