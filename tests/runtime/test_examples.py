"""Every operation in examples/basic on each target: ttlc -> bundle -> emulator -> NumPy check."""

from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest
from rt_bundle import ROOT, example_bundle, load_example

from ttl.host import toolchain
from ttl.runtime import Device, load_bundle, run

EXAMPLES = sorted((ROOT / "examples" / "basic").glob("*.py"))
TARGETS = ("wormhole_b0", "blackhole")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_matches_numpy_reference(path, target, tmp_path):
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    mod = load_example(path, "example")
    manifest, bundle_dir = example_bundle(path, mod, target, tmp_path)
    assert manifest["target"] == target
    bundle = load_bundle(bundle_dir)
    rng = np.random.default_rng(0)
    arrays = [
        rng.uniform(-1, 1, t.shape)
        .astype(np.float32)
        .astype(ml_dtypes.bfloat16 if t.dtype == "bf16" else np.float32)
        for t in bundle.tensors
    ]
    out = run(bundle, *arrays, device=Device(bundle.target, bundle.grid))
    n_inputs = len(inspect.signature(mod.reference).parameters)
    want = mod.reference(*[a.astype(np.float32) for a in arrays[:n_inputs]])
    got = out[-1].astype(np.float32)
    # Inputs are exact in fp32 and math runs in fp32; the output is rounded once
    # to bf16 (relative error <= 2^-9), plus fp32 summation-order differences.
    np.testing.assert_allclose(got, want, rtol=2**-8, atol=2**-8 * np.abs(want).max())
