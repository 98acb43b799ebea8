"""Errors raised by the emulated device.

Every error a user can hit is a :class:`DeviceError` with a message that says
what went wrong, where (kernel, node, processor slot, source line) and what to
do about it. Internal Unicorn exceptions never escape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class DeviceError(Exception):
    """Base class of all ttl.runtime errors.

    ``report``: when a launch fails while its kernels run (deadlock, livelock,
    fault, runaway), the launch's ``RunReport`` up to that point, so the call
    can still be profiled and traced; None otherwise.
    """

    report: Any = None


class LaunchError(DeviceError):
    """The launch request is invalid (bad DFB table, arguments, tensors, ELF)."""


class BundleError(LaunchError):
    """A compiled bundle or its manifest is unusable."""


@dataclass(frozen=True)
class KernelContext:
    """Which kernel, on which node and slot, at which program point."""

    kernel: str
    node: tuple[int, int]
    slot: str
    pc: int
    location: str

    def __str__(self) -> str:
        x, y = self.node
        return f"kernel '{self.kernel}' on node ({x},{y}) {self.slot}, at {self.location}"


class KernelError(DeviceError):
    """An error attributed to one running kernel."""

    def __init__(self, message: str, context: KernelContext):
        super().__init__(f"{context}: {message}")
        self.context = context
        self.kernel = context.kernel
        self.pc = context.pc
        self.location = context.location


class KernelFaultError(KernelError):
    """A kernel accessed a bad address, executed an illegal instruction or misused the API."""


class RunawayKernelError(KernelError):
    """A kernel exceeded its instruction budget.

    ``sites`` holds one line per other unfinished kernel: where it runs or what it
    waits on (two kernels that loop forever exchanging data name both lines).
    """

    def __init__(self, message: str, context: KernelContext, sites: list[str] | None = None):
        self.detail = message
        self.sites = sites or []
        if self.sites:
            message += "\nThe other unfinished kernels:\n" + "\n".join(self.sites)
        super().__init__(message, context)


class LivelockError(DeviceError):
    """Kernels keep running but nothing they can observe changes (no progress).

    ``sites`` holds one line per running kernel: where it is executing.
    """

    def __init__(self, message: str, sites: list[str]):
        super().__init__(message)
        self.sites = sites


class InterruptedRunError(DeviceError):
    """The run was interrupted (Ctrl-C); ``sites`` holds one line per unfinished kernel:
    where it ran or what it waited on, as a deadlock report names them."""

    def __init__(self, message: str, sites: list[str]):
        super().__init__(message)
        self.sites = sites


class DeadlockError(DeviceError):
    """Every unfinished kernel is blocked and no state can change.

    ``waits`` holds one line per hart describing what it waits on.
    """

    def __init__(self, report: str, waits: list[str]):
        super().__init__(report)
        self.waits = waits


# N818: kept as named (tests import it); a device model's fault, which the hart
# reports as a KernelFaultError, not a user-facing error.
class DeviceFault(Exception):  # noqa: N818
    """Raised by device models (NOC, coprocessor, DRAM) inside a hart's MMIO
    handling; the hart turns it into a :class:`KernelFaultError` with its
    kernel and source location. ``ra`` overrides the call site when known."""

    def __init__(self, message: str, ra: int | None = None):
        super().__init__(message)
        self.ra = ra
