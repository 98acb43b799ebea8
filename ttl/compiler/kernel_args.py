"""The arguments a generated kernel takes, as the emitter and the manifest both see them.

TT-Metal passes a kernel two kinds of arguments, and a generated kernel uses
both the way TT-Metal's own kernels do:

* **Compile-time args** (``get_compile_time_arg_val``): the physical index of
  each DFB the kernel uses, in ascending index order, then, for each tensor a
  data-movement kernel accesses (in operation-parameter order), its
  ``TensorAccessorArgs``: an ArgsConfig word and the aligned page size.
* **Runtime args** (``get_arg_val``), the same on every node: the address of
  each operation tensor, in parameter order, then the NOC coordinates of the
  grid's columns and rows, which the host computes from the logical grid
  (TT-Metal's ``worker_core_from_logical_core``). Generated code never writes
  a NOC coordinate itself: the same kernel then runs on any placement.
"""

from __future__ import annotations

from typing import Any

#: hostdevcommon/tensor_accessor/arg_config.hpp: ArgConfig::IsDram.
ARG_CONFIG_IS_DRAM = 1 << 1


def tensor_accessor_args(page_size: int) -> list[int]:
    """The TensorAccessorArgs words of an interleaved DRAM tensor with ``page_size`` pages."""
    return [ARG_CONFIG_IS_DRAM, page_size]


def noc_x_arg(num_tensors: int, column: int) -> int:
    """The runtime arg holding the NOC x coordinate of logical column ``column``."""
    return num_tensors + column


def noc_y_arg(num_tensors: int, grid: tuple[int, int], row: int) -> int:
    """The runtime arg holding the NOC y coordinate of logical row ``row``."""
    return num_tensors + grid[0] + row


def device_index_arg(num_tensors: int, grid: tuple[int, int]) -> int:
    """The runtime arg holding the device's index in its domain (after the NOC rows)."""
    return num_tensors + grid[0] + grid[1]


def runtime_args(
    tensor_names: list[str], grid: tuple[int, int], device_index: bool = False
) -> list[dict[str, Any]]:
    """The manifest's ``runtime_args.per_node``: what each runtime arg means
    (``device_index``: the operation reads its device's index, the last arg)."""
    n = len(tensor_names)
    args: list[dict[str, Any]] = [
        {"index": i, "kind": "tensor_address", "tensor": name}
        for i, name in enumerate(tensor_names)
    ]
    args += [{"index": noc_x_arg(n, x), "kind": "noc_x", "column": x} for x in range(grid[0])]
    args += [{"index": noc_y_arg(n, grid, y), "kind": "noc_y", "row": y} for y in range(grid[1])]
    if device_index:
        args.append({"index": device_index_arg(n, grid), "kind": "device_index"})
    return args
