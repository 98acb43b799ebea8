"""The spec's two worked examples (examples/spec) on each target against NumPy.

The tiled element-wise example takes square roots of ``a^2 - b^2 - c^2 - d^2``;
its ``inputs`` keep those positive, so ``z`` is checked on finite values (the
Bazel test, on uniform [-1, 1) inputs, checks that NaNs land where NumPy's do).
"""

from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest
from rt_bundle import ROOT, example_bundle, load_example

from ttl.host import toolchain
from ttl.runtime import Device, load_bundle, run

EXAMPLES = sorted((ROOT / "examples" / "spec").glob("*.py"))
TARGETS = ("wormhole_b0", "blackhole")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_spec_example_matches_numpy(path, target, tmp_path):
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    mod = load_example(path, "spec_example")
    _, bundle_dir = example_bundle(path, mod, target, tmp_path)
    bundle = load_bundle(bundle_dir)
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, t.shape) for t in bundle.tensors]
    if hasattr(mod, "inputs"):
        given = mod.inputs(rng)
        arrays[: len(given)] = given
    arrays = [a.astype(np.float32).astype(ml_dtypes.bfloat16) for a in arrays]
    out = run(bundle, *arrays, device=Device(bundle.target, bundle.grid))
    n_inputs = len(inspect.signature(mod.reference).parameters)
    want = mod.reference(*[a.astype(np.float32) for a in arrays[:n_inputs]])
    want = want if isinstance(want, tuple) else (want,)
    assert len(want) == len(out) - n_inputs
    for got, ref in zip(out[n_inputs:], want, strict=True):
        assert np.isfinite(ref).all()
        # bf16 output rounding and bf16 partial sums (the accumulators, reduce inputs).
        np.testing.assert_allclose(
            got.astype(np.float32), ref, rtol=2**-7, atol=2**-7 * np.abs(ref).max()
        )
