"""Runs one examples/extern bundle on the emulator and checks it against NumPy.

Usage: emulator_test.py OPERATION BUNDLE_DIR (Bazel passes the ttl_operation's
bundle; the operation name selects the reference in spec_examples.REFERENCES).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from ttl.runtime import Device, load_bundle, run


def _references() -> dict:
    path = Path(__file__).with_name("spec_examples.py")
    spec = importlib.util.spec_from_file_location("_spec_examples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.REFERENCES


def main(operation: str, bundle_path: str) -> None:
    bundle = load_bundle(Path(bundle_path))
    x = np.random.default_rng(1).uniform(-1, 1, (32, 128)).astype(ml_dtypes.bfloat16)
    out = run(bundle, x, np.zeros_like(x), device=Device(bundle.target, bundle.grid))
    want = _references()[operation](x.astype(np.float32))
    np.testing.assert_allclose(out[-1].astype(np.float32), want, rtol=2**-8, atol=2**-8)
    print(f"{operation}: output matches NumPy")


if __name__ == "__main__":
    main(*sys.argv[1:3])
