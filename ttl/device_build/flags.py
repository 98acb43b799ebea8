"""The device compiler flags: the only place they are written down.

A registered device toolchain may add flags of its own (``copts`` and
``linkopts`` of ``ttl_device_toolchain``); they come after these.
"""

from __future__ import annotations

import os

#: Environment variable naming another device C++ compiler (a clang, the SFPI toolchain).
CXX_ENV = "TTL_DEVICE_CXX"
#: Debian's bare-metal RISC-V GCC (package gcc-riscv64-unknown-elf).
DEFAULT_CXX = "riscv64-unknown-elf-g++"

#: The Tensix RISC-V cores: RV32IM, soft float.
TARGET_FLAGS = ("-march=rv32im", "-mabi=ilp32")

#: Every compile. Freestanding C++17 without exceptions, RTTI or thread-safe
#: statics (a guarded function-local static would otherwise need the C++
#: runtime's ``__cxa_guard_acquire``, which a kernel does not link). ``-g``
#: lets emulator errors name source lines. ``-fno-finite-loops``: C++'s
#: forward-progress rule would let -O2 delete a loop without side effects that
#: never ends; a kernel's must stay, so the emulator reports it as a runaway.
COPTS = (
    *TARGET_FLAGS,
    "-O2",
    "-g",
    "-std=c++17",
    "-ffreestanding",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-threadsafe-statics",
    "-fno-finite-loops",
    "-nostdinc++",
    "-Wall",
    # Generated kernels compile for hardware and for the emulator; the emulator's
    # run-time checks (slice bounds, divisors) are watcher assertions on hardware.
    "-DTTL_EMULATOR",
)

#: Every link: no C library or start files (crt0.S is ours), unused sections
#: dropped, no build id (it would differ between identical builds).
LINKOPTS = (
    *TARGET_FLAGS,
    "-nostdlib",
    "-nostartfiles",
    "-static",
    "-Wl,--gc-sections",
    "-Wl,--build-id=none",
    # One LOCAL region holds code and data by design (see kernel.ld).
    "-Wl,--no-warn-rwx-segments",
)

#: Libraries after the objects on every link.
LINK_LIBS = ("-lgcc",)


#: Seconds one device compiler run may take (``$TTL_DEVICE_CXX_TIMEOUT`` overrides):
#: a kernel compiles in about a second; a hanging compiler (an include of a pipe,
#: a wrapper that waits) must end the build, not stall it.
CXX_TIMEOUT_ENV = "TTL_DEVICE_CXX_TIMEOUT"
DEFAULT_CXX_TIMEOUT = 300.0


def cxx_timeout() -> float:
    """The device compiler's time limit in seconds."""
    try:
        return float(os.environ.get(CXX_TIMEOUT_ENV) or DEFAULT_CXX_TIMEOUT)
    except ValueError:
        return DEFAULT_CXX_TIMEOUT


#: ``$TTL_DEVICE_CXX_MAX_MB``: the address space each device compiler process may use, in
#: MiB (a header that includes ``/dev/zero`` would otherwise grow it without bound).
CXX_MEMORY_ENV = "TTL_DEVICE_CXX_MAX_MB"
DEFAULT_CXX_MEMORY_MB = 2048


def cxx_memory_mb() -> int:
    """The device compiler's memory limit in MiB."""
    try:
        return max(64, int(os.environ.get(CXX_MEMORY_ENV) or DEFAULT_CXX_MEMORY_MB))
    except ValueError:
        return DEFAULT_CXX_MEMORY_MB


def default_cxx() -> str:
    """The compiler the JIT uses: ``$TTL_DEVICE_CXX`` or Debian's RISC-V GCC."""
    return os.environ.get(CXX_ENV) or DEFAULT_CXX
