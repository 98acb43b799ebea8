"""Low-level launch description: which ELF runs where, with which args and DFBs."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ttl.runtime.coprocessor import DstMode
from ttl.runtime.dfb import DFBConfig
from ttl.runtime.elfinfo import ElfImage
from ttl.runtime.sharding import ShardedTensor

Coord = tuple[int, int]


@dataclass
class KernelSpec:
    """One kernel of a launch.

    ``runtime_args`` is one list for every node, or a mapping from node (x, y)
    to its list. ``nodes`` limits the kernel to some nodes (default: all).
    Compile-time args are baked into the ELF by the build. ``elf`` is a path
    or an already loaded ``ElfImage`` (bundles pass the images they verified).
    """

    name: str
    elf: str | os.PathLike | ElfImage
    slot: str
    runtime_args: Sequence[int] | Mapping[Coord, Sequence[int]] = ()
    common_args: Sequence[int] = ()
    nodes: Iterable[Coord] | None = None
    dst: DstMode = field(
        default_factory=DstMode
    )  # compute kernels: the DST mode (the manifest's compute_config)

    def args_for(self, coord: Coord) -> list[int]:
        if isinstance(self.runtime_args, Mapping):
            return [int(v) for v in self.runtime_args.get(coord, ())]
        return [int(v) for v in self.runtime_args]


@dataclass
class Program:
    """A launch: kernels, the DFB table (same on every node), semaphore initial values
    and the L1-sharded tensors."""

    kernels: list[KernelSpec]
    dfbs: list[DFBConfig] = field(default_factory=list)
    semaphores: Sequence[int] = ()
    semaphore_names: Sequence[str] = ()  # their TT-Lang names, for deadlock reports
    # L1-sharded tensors: placed into their nodes' L1 before the kernels run, read back after.
    sharded: Sequence[ShardedTensor] = ()
    # Tensor-backed DFBs: DFB index -> the sharded tensor (one of ``sharded``) whose
    # shard holds its pages on every node.
    backed: Mapping[int, ShardedTensor] = field(default_factory=dict)
