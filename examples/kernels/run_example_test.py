"""Runs one examples/kernels bundle on the emulator and checks it against the example's NumPy reference.

Usage: run_example_test.py EXAMPLE_SOURCE BUNDLE_DIR (Bazel passes both).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from ttl.runtime import Device, load_bundle, run


def main(source: str, bundle_path: str) -> None:
    spec = importlib.util.spec_from_file_location("_kernels_example", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bundle = load_bundle(Path(bundle_path))
    x = np.random.default_rng(2).uniform(-1, 1, (32, 128)).astype(ml_dtypes.bfloat16)
    out = run(bundle, x, np.zeros_like(x), device=Device(bundle.target, bundle.grid))
    want = module.reference(x.astype(np.float32))
    np.testing.assert_array_equal(out[-1].astype(np.float32), want)
    print(f"{module.OPERATION}: output matches NumPy")


if __name__ == "__main__":
    main(*sys.argv[1:3])
