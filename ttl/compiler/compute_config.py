"""How the compute kernels of one operation use DST: the resolved compute options.

``fp32_dest_acc_en`` and ``dst_full_sync_en`` come from ``@ttl.operation``
(fp32 accumulation defaults to on when any tensor is f32, as tt-lang does);
``maximize_dst`` and ``fpu_binary_ops`` from :class:`ttl.CompilerOptions`. The
IR carries them on ``ttl.operation`` (:meth:`ComputeConfig.of`), so a module
read back by ``ttl-opt`` emits the same C++.
"""

from __future__ import annotations

from dataclasses import dataclass

from ttl.compiler import dialect as d
from ttl.options import CompilerOptions
from ttl.targets import Target


@dataclass(frozen=True)
class ComputeConfig:
    """DST mode and the code-generation choices that depend on it."""

    fp32_dest_acc_en: bool = False  # DST holds fp32 (else 16-bit: each result rounds)
    dst_full_sync_en: bool = False  # DST not split in halves: twice the tiles
    maximize_dst: bool = True  # as many tiles per acquire section as fit (else one)
    fpu_binary_ops: bool = True  # + - * of two DFB tiles as add_tiles etc.

    def dst_tiles(self, target: Target) -> int:
        """DST capacity in tiles in this mode on ``target``."""
        return target.dst_tiles(fp32=self.fp32_dest_acc_en, full_sync=self.dst_full_sync_en)

    def describe_dst(self) -> str:
        """The DST mode in words, for messages: e.g. '16-bit DST, half sync'."""
        width = "fp32" if self.fp32_dest_acc_en else "16-bit"
        sync = "full sync" if self.dst_full_sync_en else "half sync"
        return f"{width} DST, {sync}"

    @staticmethod
    def of(op: d.OperationOp) -> ComputeConfig:
        """The configuration recorded on a ``ttl.operation``."""
        options = CompilerOptions.from_string(op.options.data if op.options else None)
        return ComputeConfig(
            fp32_dest_acc_en=op.fp32_dest_acc_en is not None,
            dst_full_sync_en=op.dst_full_sync_en is not None,
            maximize_dst=options.maximize_dst,
            fpu_binary_ops=options.enable_fpu_binary_ops,
        )

    def manifest_entry(self, target: Target) -> dict[str, object]:
        """A compute kernel's config (docs/manifest.md): what the runtime needs to model DST,
        and TT-Metal's ComputeConfig. The emulator computes at full fidelity and without
        approximations, so that is what the kernels are built for: HiFi4, no approx mode."""
        return {
            "fp32_dest_acc_en": self.fp32_dest_acc_en,
            "dst_full_sync_en": self.dst_full_sync_en,
            "dst_tiles": self.dst_tiles(target),
            "math_fidelity": "HiFi4",
            "math_approx_mode": False,
        }
