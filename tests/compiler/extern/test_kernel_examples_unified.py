"""examples/kernels unified_pipeline, kernel_handles, composition: split, identity, emulator run.

Logical-kernels parts of issue 4: unified operations split into logical kernels,
operation-local handles, and composition ("Composing a unified operation preserves each
callee-owned handle, including its operation identity. Repeated sequential calls to the
same composed operation share that logical kernel instead of consuming additional target
kernel resources.")
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from compiler_testlib import REPO, compile_example, filecheck, load_example
from extern_testlib import build_bundle

from ttl.host import toolchain
from ttl.runtime import Device, load_bundle, run

NAMES = ("unified_pipeline", "kernel_handles", "composition")
EXAMPLES = {n: REPO / "examples" / "kernels" / f"{n}.py" for n in NAMES}


def _kernels(result) -> list[str]:
    return [k["logical_kernel"] for k in result.manifest["kernels"]]


def test_unified_pipeline_splits_into_canonical_kernels():
    """A unified body is split into the canonical data-movement and compute kernels; the
    loop is kept in both because both keep work in it."""
    r = compile_example(EXAMPLES["unified_pipeline"])
    assert _kernels(r) == ["unified_pipeline.data_movement", "unified_pipeline.compute"]
    assert [k["logical_kernel"] for k in r.plan["split"]] == _kernels(r)
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: for (int32_t t = 0; t < 4; ++t) {
        CHECK: cb_wait_front(dfb_src, 1);
        CHECK: abs_tile
        CHECK: cb_wait_front(dfb_mid, 1);
        CHECK: negative_tile
        """,
    )
    assert "noc_async" not in r.sources["compute.cpp"]


def test_handles_select_transactions_and_their_copies():
    """Release selectors of otherwise-unselected transactions place them (and their copies)
    in operation-local handles."""
    r = compile_example(EXAMPLES["kernel_handles"])
    assert _kernels(r) == [
        "kernel_handles.reader",
        "kernel_handles.compute",
        "kernel_handles.writer",
    ]
    assert "noc_async_read_page" in r.sources["reader.cpp"]
    assert "noc_async_write_page" in r.sources["writer.cpp"]


def test_composition_shares_the_callee_kernel():
    """ "Repeated sequential calls to the same composed operation share that logical kernel"
    and "The original handle therefore remains equal to the `KernelSpec.logical_kernel`
    value produced for the composed program.\""""
    module = load_example(EXAMPLES["composition"])
    r = compile_example(EXAMPLES["composition"])
    assert _kernels(r) == ["composition.data_movement", module.WORKER.name]
    assert module.WORKER.name == "stage.worker"
    assert r.sources["worker.cpp"].count("abs_tile(") == 2
    # each call creates the callee's DFBs again, named after the call
    assert [d["name"] for d in r.manifest["logical_dfbs"]] == [
        "stage_0_src",
        "stage_0_dst",
        "stage_1_src",
        "stage_1_dst",
    ]


def test_foreign_handle_is_rejected(extern_error):
    """Handles belong to their operation (or a composed callee); another operation's handle
    is rejected."""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", kernel=OTHER)  # ERROR
        """,
        top="""
        def _make():
            h = ttl.Kernel(ttl.KernelKind.COMPUTE)

            @ttl.operation(grid=(1, 1))
            def owner(a):
                ttl.call_extern_func(HEADER, "g", kernel=h)

            return owner, h


        OWNER, OTHER = _make()
        """,
    )
    assert "owned by operation 'owner'" in err.message


def test_composition_inside_control_flow_is_rejected(extern_error):
    """Composition is a top-level statement of the unified body."""
    err = extern_error(
        """
        for i in range(2):
            callee(inp, out)  # ERROR
        """,
        top="""
        @ttl.operation(grid=(1, 1))
        def callee(a, b):
            ttl.call_extern_func(HEADER, "g", kernel=ttl.KernelKind.COMPUTE)
        """,
    )
    assert "is composed inside control flow" in err.message


@pytest.mark.parametrize("name", NAMES)
def test_kernel_example_runs_on_the_emulator(name, tmp_path):
    """Every example builds with the device toolchain and matches its NumPy reference."""
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    module = load_example(EXAMPLES[name])
    bundle = load_bundle(build_bundle(compile_example(EXAMPLES[name]), tmp_path))
    x = np.random.default_rng(2).uniform(-1, 1, (32, 128)).astype(ml_dtypes.bfloat16)
    out = run(bundle, x, np.zeros_like(x), device=Device(bundle.target, bundle.grid))
    np.testing.assert_array_equal(
        out[-1].astype(np.float32), module.reference(x.astype(np.float32))
    )
