"""TT-Lang: a Python DSL for Tenstorrent Tensix kernels (explicit-thread form).

Importing ``ttl`` is cheap: the compiler (and xDSL) load only when an
operation is compiled, the emulator only when one runs.

This module is the top of the package's layers (docs/architecture.md): it
re-exports the DSL and installs the backend behind ``Operation.compile`` and
``Operation.__call__`` (the compiler and the JIT), so the DSL itself never
imports the layers above it.
"""

from __future__ import annotations

from typing import Any

from ttl import block, math
from ttl.devices import DeviceDomain, DeviceRange, DeviceRef
from ttl.dsl import (
    DFB,
    TILE_SHAPE,
    CopyTransferHandler,
    DataflowBuffer,
    DFBAllocationGroup,
    Kernel,
    KernelKind,
    ReadyReceive,
    ReceiveRequest,
    TensorArg,
    Transfer,
    compute,
    copy,
    datamovement,
    grid_size,
    make_dataflow_buffer_like,
    make_dfb,
    make_dfb_allocation_group,
    make_tensor_backed_dfb,
    node,
    raw_element_read,
    raw_element_write,
    read_index,
    signpost,
    wait_any,
)
from ttl.errors import SourceLoc, TTLCompileError
from ttl.extern import (
    DFBAccess,
    DFBEffect,
    DispatchCondition,
    ScalarType,
    call_extern_func,
    dfb_descriptor,
    get_dfb_id,
    raw_addr,
)
from ttl.operation import Operation, install_backend, operation
from ttl.options import CompilerOptions
from ttl.pipes import Pipe, PipeNet
from ttl.semaphore import (
    GroupTransfer,
    MulticastRemoteSemaphore,
    Semaphore,
    UnicastRemoteSemaphore,
)
from ttl.specs import TensorSpec, row_major


class _Toolchain:
    """The compiler and the JIT behind every operation, imported when first used."""

    def compile(self, op: Operation, specs: dict[str, Any], **options: Any) -> Any:
        from ttl.compiler.driver import compile_operation

        return compile_operation(op, specs, **options)

    def run(self, op: Operation, *tensors: Any, **kwargs: Any) -> Any:
        try:
            from ttl.host.jit import run_operation
        except ImportError:
            raise TTLCompileError(
                f"operation '{op.name}' cannot run: the ttl runtime is not installed",
                op.loc,
                "compile it with ttlc or op.compile(specs) instead",
            ) from None
        return run_operation(op, *tensors, **kwargs)


install_backend(_Toolchain())

bfloat16 = "bf16"
float32 = "f32"

__all__ = [
    "DFB",
    "TILE_SHAPE",
    "CompilerOptions",
    "CopyTransferHandler",
    "DFBAccess",
    "DFBAllocationGroup",
    "DFBEffect",
    "DataflowBuffer",
    "DeviceDomain",
    "DeviceRange",
    "DeviceRef",
    "DispatchCondition",
    "GroupTransfer",
    "Kernel",
    "KernelKind",
    "MulticastRemoteSemaphore",
    "Operation",
    "Pipe",
    "PipeNet",
    "ReadyReceive",
    "ReceiveRequest",
    "ScalarType",
    "Semaphore",
    "SourceLoc",
    "TTLCompileError",
    "TensorArg",
    "TensorSpec",
    "Transfer",
    "UnicastRemoteSemaphore",
    "bfloat16",
    "block",
    "call_extern_func",
    "compute",
    "copy",
    "datamovement",
    "dfb_descriptor",
    "float32",
    "get_dfb_id",
    "grid_size",
    "make_dataflow_buffer_like",
    "make_dfb",
    "make_dfb_allocation_group",
    "make_tensor_backed_dfb",
    "math",
    "node",
    "operation",
    "raw_addr",
    "raw_element_read",
    "raw_element_write",
    "read_index",
    "row_major",
    "signpost",
    "wait_any",
]
