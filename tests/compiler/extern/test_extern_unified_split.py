"""Unified operations: the split plan (computed once, immutable, printed by --emit=plan)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest


def test_split_plan_in_emit_plan(extern_compile):
    """The split plan is printable with `ttlc --emit=plan`: per logical kernel, the body lines
    it compiles."""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "a", kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func(HEADER, "b", \
kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert r.plan["split"] == [
        {"logical_kernel": "op.compute", "kind": "compute", "lines": [10, 11]},
        {"logical_kernel": "op.data_movement", "kind": "data_movement", "lines": [11]},
    ]


def test_split_plan_is_immutable(write_source):
    """The split plan is an immutable value computed once from the AST."""
    from extern_testlib import INCLUDE_DIR, REPO

    from ttl.compiler.driver import load_operation
    from ttl.compiler.evaluate import evaluate_operation
    from ttl.targets import get_target

    path = write_source(
        """
        import ttl

        @ttl.operation(grid=(1, 1))
        def op(a):
            ttl.call_extern_func("extern_entries.hpp", "f", kernel=ttl.KernelKind.COMPUTE)
        """
    )
    del INCLUDE_DIR, REPO
    model = evaluate_operation(
        load_operation(str(path), "op"), {"a": "bf16[32,32]"}, get_target("wormhole_b0")
    )
    plan = model.split_plan
    assert isinstance(plan.kernels, tuple) and isinstance(plan.kernels[0].body, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.kernels = ()  # type: ignore[misc]


def test_ttlc_emit_plan_prints_the_split(write_source, tmp_path):
    """`ttlc --emit=plan` writes plan.json with the split of a unified operation."""
    from extern_testlib import INCLUDE_DIR, REPO

    path = write_source(
        """
        import ttl

        @ttl.operation(grid=(1, 1))
        def op(a):
            ttl.call_extern_func("extern_entries.hpp", "f", kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ttl.host.ttlc",
            f"--src={path}",
            "--operation=op",
            "--arg=a=bf16[32,32]",
            "--emit=plan",
            f"--include_dir={REPO / INCLUDE_DIR}",
            f"--out={tmp_path / 'o'}",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    plan = json.loads((tmp_path / "o" / "plan.json").read_text())
    assert plan["split"] == [
        {"logical_kernel": "op.data_movement", "kind": "data_movement", "lines": [5]}
    ]


def test_scalars_are_replicated_into_reading_kernels(extern_compile):
    """Scalar statements of a unified body go to every kernel that reads them."""
    r = extern_compile(
        """
        n = ttl.node(dims=1)
        k = n * 2
        ttl.call_extern_func(HEADER, "c", func_args=[k], kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func(HEADER, "d", func_args=[n], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert (
        "get_relative_logical_x" in r.sources["compute.cpp"]
        and "get_relative_logical_x" in r.sources["data_movement.cpp"]
    )
    assert " * 2" in r.sources["compute.cpp"] and " * 2" not in r.sources["data_movement.cpp"]


def test_statement_without_work_is_rejected(extern_error):
    """A unified statement whose value reaches no kernel is reported, not silently dropped."""
    err = extern_error(
        """
        x = ttl.node(dims=2)  # ERROR
        ttl.call_extern_func(HEADER, "d", kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "does no work in any logical kernel" in err.message


def test_a_with_that_names_no_block_is_an_error_not_a_crash(extern_error):
    """``with src.wait():`` binds no block: with no use it does no work (the splitter
    crashed on it before)."""
    err = extern_error(
        """
        with src.reserve() as blk:
            ttl.copy(inp[0, 0], blk).wait()
        with src.wait():  # ERROR
            pass
        """
    )
    assert "'with src.wait():' does no work in any logical kernel" in err.message
