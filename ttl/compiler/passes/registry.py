"""The pass registry: every pass name ``ttl-opt`` accepts, and the driver's pipeline.

Factories return the pass class (xDSL's convention), so a pass module loads
on first use.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

DEFAULT_PIPELINE = (
    "ttl-materialize-scalers,ttl-prepare-read-back,ttl-stage-tensor-prints,"
    "ttl-stage-converting-copies,"
    "ttl-check-conditions,ttl-assign-slots,"
    "ttl-check-dfb-protocol,ttl-compute-lifetimes,ttl-check-allocation-groups,"
    "ttl-allocate-dfbs,ttl-dce,"
    "ttl-prove-slice-bounds"
)
"""The driver's pipeline, in ``ttl-opt -p`` syntax."""


def _scalers() -> type[ModulePass]:
    from ttl.compiler.passes.scalers import MaterializeScalersPass

    return MaterializeScalersPass


def _read_back() -> type[ModulePass]:
    from ttl.compiler.passes.read_back import PrepareReadBackPass

    return PrepareReadBackPass


def _print_staging() -> type[ModulePass]:
    from ttl.compiler.passes.print_staging import StageTensorPrintsPass

    return StageTensorPrintsPass


def _convert_copies() -> type[ModulePass]:
    from ttl.compiler.passes.convert_copies import StageConvertingCopiesPass

    return StageConvertingCopiesPass


def _conditions() -> type[ModulePass]:
    from ttl.compiler.passes.conditions import CheckConditionsPass

    return CheckConditionsPass


def _assign() -> type[ModulePass]:
    from ttl.compiler.passes.assign import AssignSlotsPass

    return AssignSlotsPass


def _protocol() -> type[ModulePass]:
    from ttl.compiler.passes.dfb_protocol import CheckDFBProtocolPass

    return CheckDFBProtocolPass


def _lifetimes() -> type[ModulePass]:
    from ttl.compiler.passes.lifetimes import ComputeLifetimesPass

    return ComputeLifetimesPass


def _allocation_groups() -> type[ModulePass]:
    from ttl.compiler.passes.allocation_groups import CheckAllocationGroupsPass

    return CheckAllocationGroupsPass


def _allocate() -> type[ModulePass]:
    from ttl.compiler.passes.allocate import AllocateDFBsPass

    return AllocateDFBsPass


def _ttl_dce() -> type[ModulePass]:
    from ttl.compiler.passes.dce import TTLDeadCodeEliminationPass

    return TTLDeadCodeEliminationPass


def _slice_bounds() -> type[ModulePass]:
    from ttl.compiler.passes.slice_bounds import ProveSliceBoundsPass

    return ProveSliceBoundsPass


def _dce() -> type[ModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


def _cse() -> type[ModulePass]:
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    return CommonSubexpressionElimination


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its ``ModulePass`` class: the ttl passes in pipeline order,
    then xDSL's generic ``dce`` and ``cse``."""
    return {
        "ttl-materialize-scalers": _scalers,
        "ttl-prepare-read-back": _read_back,
        "ttl-stage-tensor-prints": _print_staging,
        "ttl-stage-converting-copies": _convert_copies,
        "ttl-check-conditions": _conditions,
        "ttl-assign-slots": _assign,
        "ttl-check-dfb-protocol": _protocol,
        "ttl-compute-lifetimes": _lifetimes,
        "ttl-check-allocation-groups": _allocation_groups,
        "ttl-allocate-dfbs": _allocate,
        "ttl-dce": _ttl_dce,
        "ttl-prove-slice-bounds": _slice_bounds,
        "dce": _dce,
        "cse": _cse,
    }
