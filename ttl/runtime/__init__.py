"""ttl.runtime: the emulated Tensix device that runs compiled TT-Lang kernels.

Kernels are real RISC-V ELFs executed by Unicorn; tile math runs on a
modelled coprocessor in NumPy. See docs/runtime.md.
"""

from ttl.runtime.bundle import Bundle, load_bundle, run
from ttl.runtime.device import Device
from ttl.runtime.dfb import DFBConfig
from ttl.runtime.errors import (
    BundleError,
    DeadlockError,
    DeviceError,
    InterruptedRunError,
    KernelError,
    KernelFaultError,
    LaunchError,
    LivelockError,
    RunawayKernelError,
)
from ttl.runtime.profile import Profile
from ttl.runtime.program import KernelSpec, Program
from ttl.runtime.scheduler import RunReport
from ttl.runtime.sharding import ShardedTensor, ShardLayout
from ttl.runtime.tensors import Bfp8Tensor, DramTensor
from ttl.runtime.tiles import tilize, untilize

__all__ = [
    "Bfp8Tensor",
    "Bundle",
    "BundleError",
    "DFBConfig",
    "DeadlockError",
    "Device",
    "DeviceError",
    "DramTensor",
    "InterruptedRunError",
    "KernelError",
    "KernelFaultError",
    "KernelSpec",
    "LaunchError",
    "LivelockError",
    "Profile",
    "Program",
    "RunReport",
    "RunawayKernelError",
    "ShardLayout",
    "ShardedTensor",
    "load_bundle",
    "run",
    "tilize",
    "untilize",
]
