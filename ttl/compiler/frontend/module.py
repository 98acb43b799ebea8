"""Builds the ``ttl.operation`` module of an evaluated operation."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from ttl.compiler import dialect as d
from ttl.compiler.frontend.accumulate import AccumulatorBuffer
from ttl.compiler.frontend.kernel import KernelCompiler
from ttl.compiler.frontend.pipes import check_pipe_uses
from ttl.compiler.frontend.symbols import ModuleSymbols
from ttl.compiler.model import OperationModel
from ttl.targets import tile_bytes


def referenced_dfbs(kernels: list[d.KernelOp]) -> set[str]:
    """The DFBs ``kernels`` name: by ``ttl.get_dfb``, or in an external call's template
    arguments."""
    names: set[str] = set()
    for kernel in kernels:
        for op in kernel.walk():
            if isinstance(op, d.GetDFBOp):
                names.add(op.ref.root_reference.data)
            elif isinstance(op, d.CallExternOp):
                names.update(
                    a.dfb_name
                    for a in op.template_args.data
                    if isinstance(a, d.DFBDescriptorAttr | d.DFBIdAttr)
                )
    return names


def build_module(model: OperationModel, include_dirs: tuple[str, ...] = ()) -> ModuleOp:
    """Tensors, DFBs, semaphores and one ``ttl.kernel`` per kernel function, in order."""
    symbols = ModuleSymbols(model, include_dirs)
    body = Block()
    # Kernels first: compiling them may add accumulator DFBs (frontend/accumulate.py).
    kernels = [KernelCompiler(model, thread, symbols).compile() for thread in model.threads]
    check_pipe_uses(symbols)
    for t in model.tensors:
        body.add_op(d.TensorOp(t.name, t.index, symbols.tensor_types[t.name], t.spec.logical))
    used = referenced_dfbs(kernels)
    groups: dict[int, int] = {}  # id of a DFB allocation group -> its ordinal
    for f in model.dfbs:
        if f.name not in used:  # declared but never touched: it takes no L1 and no index
            continue
        group = f.allocation_group
        ordinal = None if group is None else groups.setdefault(id(group), len(groups))
        body.add_op(
            d.DFBOp(
                f.name,
                f.tensor.name if f.tensor is not None else None,
                symbols.dfb_types[f.name],
                f.block_count,
                tile_bytes(f.dtype),
                scratch=isinstance(f, AccumulatorBuffer),
                allocation_group=ordinal,
                backing_offset=f.byte_offset if f.tensor_backed else None,
            )
        )
    semaphores = symbols.semaphores
    if not (symbols.pipes.sends or symbols.pipes.receives):  # pipe nets no copy uses
        semaphores = semaphores[len(symbols.pipes.semaphore_table()) :]
    for index, (name, initial) in enumerate(semaphores):
        body.add_op(d.SemaphoreOp(name, index, initial))
    for kernel in kernels:
        body.add_op(kernel)
    op = d.OperationOp(
        model.name,
        model.grid,
        model.target.name,
        model.identity,
        Region(body),
        fp32_dest_acc_en=model.compute.fp32_dest_acc_en,
        dst_full_sync_en=model.compute.dst_full_sync_en,
        options=model.options.to_string(),
    )
    return ModuleOp([op])
