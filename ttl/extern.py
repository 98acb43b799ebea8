"""The DSL surface of external C++ calls (spec: docs/language.md, docs/spec-coverage.md).

Everything here is compiled from the AST: ``call_extern_func``, the DFB
wrappers and ``DFBEffect`` actions are kernel intrinsics (calling them in
Python is a located error). ``ScalarType`` and ``DispatchCondition`` are plain
values created at the top level or in an operation factory.
"""

from __future__ import annotations

import enum
from typing import Any

from ttl._intrinsic import intrinsic
from ttl.errors import TTLCompileError, caller_loc


class ScalarType(enum.Enum):
    """Signless scalar integer result types of external calls."""

    I32 = "i32"
    I64 = "i64"


class DispatchCondition:
    """One runtime condition evaluated independently by several external calls.

    Create it once (in an operation factory) and pass the same object as
    ``condition_result=`` of every evaluation.
    """

    def __init__(self, scalar_type: ScalarType):
        if not isinstance(scalar_type, ScalarType):
            raise TTLCompileError(
                f"ttl.DispatchCondition takes ttl.ScalarType.I32 or ttl.ScalarType.I64, "
                f"got {scalar_type!r}",
                caller_loc(2),
                "write ttl.DispatchCondition(ttl.ScalarType.I64)",
            )
        self.scalar_type = scalar_type

    def __repr__(self) -> str:
        return f"ttl.DispatchCondition({self.scalar_type})"


@intrinsic("extern.call")
def call_extern_func(
    header: str,
    callee: str,
    *,
    template_args: Any = None,
    func_args: Any = None,
    dfb_dependencies: Any = None,
    dfb_effects: Any = None,
    dfb_accesses: Any = None,
    unknown_dfb_access: bool = False,
    include_paths: Any = None,
    kernel: Any = None,
    result_type: Any = None,
    condition_result: Any = None,
) -> Any:
    """Call C++ ``callee`` declared in ``header`` (see the external-functions spec)."""


@intrinsic("extern.dfb_descriptor")
def dfb_descriptor(dfb: Any) -> Any:
    """Template argument: ``ttlang::DFBDescriptor<index, pages, blocks, page_bytes>``."""


@intrinsic("extern.get_dfb_id")
def get_dfb_id(dfb: Any) -> Any:
    """Template argument: the DFB's physical index (declares no dependency)."""


@intrinsic("extern.raw_addr")
def raw_addr(tensor: Any) -> Any:
    """Function argument: the tensor's ``uint32_t`` buffer address (no layout metadata)."""


class DFBEffect:
    """Synchronous DFB protocol actions an external function performs (``dfb_effects``)."""

    reserve = staticmethod(intrinsic("extern.effect.reserve")(lambda dfb, *, tiles: None))
    push = staticmethod(intrinsic("extern.effect.push")(lambda dfb, *, tiles: None))
    wait = staticmethod(intrinsic("extern.effect.wait")(lambda dfb, *, tiles: None))
    pop = staticmethod(intrinsic("extern.effect.pop")(lambda dfb, *, tiles: None))
    repeat = staticmethod(intrinsic("extern.effect.repeat")(lambda count, effects: None))


class DFBAccess:
    """Typed synchronous DFB accesses of an external function without queue transactions
    (``dfb_accesses``, upstream's external-functions contract after mid-2026).

    ``inspect(dfb)``: the callee may read the DFB's descriptor or contents but does not
    publish, consume or change it; the call stays a storage access of the DFB, with no
    change to its protocol state (not an opaque access).

    ``interface_preserved(dfb)`` (an earlier v0.21 draft's access, kept for the
    programs written to it): the callee may inspect or temporarily modify the DFB's
    interface but restores its configuration, pointers, occupancy and initialization
    state before returning; to the compiler the same storage access and identity
    transition as ``inspect``.
    """

    inspect = staticmethod(intrinsic("extern.access.inspect")(lambda dfb: None))
    interface_preserved = staticmethod(
        intrinsic("extern.access.interface_preserved")(lambda dfb: None)
    )
