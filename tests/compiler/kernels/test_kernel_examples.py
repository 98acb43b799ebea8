"""examples/kernels (conditional pair, DFB reuse): compile, check allocation, run on the emulator.

Issue 5 "Examples that must build and run": "a conditional producer/consumer pair
using one DispatchCondition; the spec's two-external-calls DFB reuse case showing a
reused physical index". Issue 5 item 10: "The manifest records the allocation;
ttlc --emit=plan shows why each reuse was allowed."
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from compiler_testlib import REPO, compile_example, filecheck, load_example

from ttl.compiler.driver import CompileResult

EXAMPLES = {
    name: REPO / "examples" / "kernels" / f"{name}.py"
    for name in ("conditional_pair", "dfb_reuse_extern")
}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)  # the examples name their include directory relative to the repo


def test_reuse_example_shares_one_physical_index():
    result = compile_example(EXAMPLES["dfb_reuse_extern"])
    m = result.manifest
    assert m["logical_dfbs"] == [
        {"name": "first", "physical_index": 0},
        {"name": "second", "physical_index": 0},
    ]
    assert [d["physical_index"] for d in m["dfbs"]] == [0]  # one configured DFB
    assert m["l1_bytes"] == m["dfbs"][0]["total_bytes"]
    plan = json.dumps(result.plan, indent=1, sort_keys=True)  # as plan.json
    filecheck(
        plan,
        """
        CHECK: "reason": "bounded, but no earlier index
        CHECK: "name": "first"
        CHECK: "reason": "reuses index 0 of 'first': all live only in kernel \
'dfb_reuse_extern.stage' over disjoint statement spans {{.*}} proven balanced
        CHECK: "name": "second",
        CHECK-NEXT: "physical_index": 0
        """,
    )
    filecheck(
        result.sources["stage.cpp"],
        """
        CHECK: stage_tiles<ttlang::DFBDescriptor<0, 1, 2, 2048>>(tensor_inp, tensor_out, 0, 2);
        CHECK: stage_tiles<ttlang::DFBDescriptor<0, 1, 2, 2048>>(tensor_inp, tensor_out, 2, 2);
        """,
    )


def test_conditional_pair_is_proven_and_keeps_one_condition_identity():
    result = compile_example(EXAMPLES["conditional_pair"])
    filecheck(
        result.ir,
        """
        CHECK: ttl.kernel @read {{.*}}logical_kernel = "conditional_pair.reader"
        CHECK: "copy_enabled"{{.*}}condition = #ttl.dispatch_condition<0, i32>
        CHECK: ttl.kernel @write {{.*}}logical_kernel = "conditional_pair.writer"
        CHECK: "copy_enabled"{{.*}}condition = #ttl.dispatch_condition<0, i32>
        """,
    )
    assert [k["processor_slot"] for k in result.manifest["kernels"]] == ["dm0", "dm1"]


def _bundle(result: CompileResult, out: Path) -> Path:
    """Builds the bundle of ``result`` with the JIT's device build (include paths from REPO)."""
    from ttl.host import toolchain

    bundle = out / "bundle"
    with contextlib.chdir(REPO):
        toolchain.build_bundle(bundle, result.sources, result.manifest, result.ir)
    return bundle


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_kernel_example_runs_and_matches_numpy(name, tmp_path):
    from ttl.host import toolchain
    from ttl.runtime import Device, load_bundle, run

    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    path = EXAMPLES[name]
    bundle = load_bundle(_bundle(compile_example(path), tmp_path))
    x = np.random.default_rng(2).uniform(-1, 1, (32, 128)).astype(ml_dtypes.bfloat16)
    out = run(bundle, x, np.zeros_like(x), device=Device(bundle.target, bundle.grid))
    want = load_example(path).reference(x.astype(np.float32))
    np.testing.assert_allclose(out[-1].astype(np.float32), want, rtol=0, atol=0)
