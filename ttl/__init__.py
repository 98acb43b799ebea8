"""TT-Lang: a Python DSL for Tenstorrent Tensix kernels (explicit-thread form).

Importing ``ttl`` is cheap: the compiler (and xDSL) load only when an
operation is compiled.
"""

from __future__ import annotations

from ttl import block, math
from ttl.dsl import (
    DataflowBuffer,
    Kernel,
    KernelKind,
    TensorArg,
    compute,
    copy,
    datamovement,
    grid_size,
    make_dataflow_buffer_like,
    node,
)
from ttl.errors import SourceLoc, TTLCompileError
from ttl.extern import (
    DFBEffect,
    DispatchCondition,
    ScalarType,
    call_extern_func,
    dfb_descriptor,
    get_dfb_id,
    raw_addr,
)
from ttl.operation import Operation, operation
from ttl.specs import TensorSpec

bfloat16 = "bf16"
float32 = "f32"

__all__ = [
    "DFBEffect",
    "DataflowBuffer",
    "DispatchCondition",
    "Kernel",
    "KernelKind",
    "Operation",
    "ScalarType",
    "SourceLoc",
    "TTLCompileError",
    "TensorArg",
    "TensorSpec",
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
    "math",
    "node",
    "operation",
    "raw_addr",
]
