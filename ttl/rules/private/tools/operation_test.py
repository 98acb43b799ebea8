"""The test `ttl_operation_test` runs: a compiled bundle on the emulator vs. NumPy.

Inputs are seeded random tensors (uniform in [-1, 1), rounded to the
tensor's dtype) for every tensor of the bundle's signature. The reference is
`--reference` (default `reference`) in the module `--reference_src`: it takes
the first N tensors (N = its parameter count) and returns the expected value
of the next tensor (or a tuple for the next ones); an output matches when
|got - want| <= atol * max|want| + rtol * |want| elementwise (atol scales with
the output's range: bf16 roundings of partial sums do). Prints the comparison and
the emulator's per-kernel profile (profiled: exact instructions executed and
waits per DFB); exits non-zero on a mismatch.

With ``--trace`` (or the environment variable ``TTL_TRACE=1``, e.g.
``bazel test --test_env=TTL_TRACE=1``) the run is traced and its timeline
written in Chrome Trace Event Format to
``$TEST_UNDECLARED_OUTPUTS_DIR/<operation>.trace.json`` (``bazel test`` keeps
it in ``bazel-testlogs/<package>/<test>/test.outputs/``); ``--trace=FILE``
names the file. An unwritable trace file is an error before the run.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
import traceback

import ml_dtypes
import numpy as np

from ttl.runtime import Bfp8Tensor, Device, load_bundle, run
from ttl.runtime.errors import DeviceError, LaunchError
from ttl.runtime.tensors import to_numpy
from ttl.runtime.trace import check_writable, write_trace

_DTYPES = {"bf16": ml_dtypes.bfloat16, "f32": np.float32, "fp32": np.float32}


def load_reference(path: str, name: str):
    spec = importlib.util.spec_from_file_location("ttl_operation_test_reference", path)
    # The rule passes a .py file, which the source-file loader always takes.
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reference = getattr(module, name, None)
    if not callable(reference):
        raise SystemExit(
            f"{path}: no function `{name}` (the NumPy reference of this test); "
            f"define it or set `reference` on the ttl_operation_test"
        )
    return reference


def reference_arity(reference, bundle, where: str) -> int:
    """The reference's parameter count N, checked: every tensor after the first N is written.

    The reference gets the first N tensors of the operation's signature and
    returns the expected values of the rest, so each of those must be a
    tensor the operation writes (the manifest's ``written``); else the check
    would compare an input with itself. SystemExit names the function, its
    parameters and the signature to write.
    """
    names = [sig.name for sig in bundle.tensors]
    params = inspect.signature(reference).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise SystemExit(f"{where}: takes *args or **kwargs; name one parameter per input tensor")
    n_in = len(params)
    compared = bundle.tensors[n_in:]
    if compared and all(sig.written for sig in compared):
        return n_in
    # The tensors the reference should return: the written ones at the end.
    first_output = len(names)
    while first_output > 0 and bundle.tensors[first_output - 1].written:
        first_output -= 1
    written = [sig.name for sig in bundle.tensors if sig.written] or ["none"]
    taken = ", ".join(p.name for p in params)
    problem = (
        f"would be compared with `{compared[0].name}`, which the operation does not write"
        if compared
        else "leaves no tensor to compare"
    )
    raise SystemExit(
        f"{where} takes {n_in} parameter(s) ({taken}), so it {problem}: "
        f"{bundle.operation}({', '.join(names)}) writes {', '.join(written)}; "
        f"define {reference.__name__}({', '.join(names[:first_output])}) returning "
        f"{', '.join(names[first_output:]) or 'the written tensors'}"
    )


def call_reference(reference, arrays: list[np.ndarray], bundle, where: str) -> tuple:
    """The reference's expected tensors (a tuple); SystemExit naming the reference's line
    if it raises or returns None, with the shapes it was given."""
    given = ", ".join(
        f"{sig.name}: {a.shape} float32" for sig, a in zip(bundle.tensors, arrays, strict=False)
    )
    try:
        expected = reference(*arrays)
    except Exception as error:  # the user's code: report it, not our runner's frames
        frames = traceback.extract_tb(error.__traceback__)
        source = reference.__code__.co_filename
        own = [f for f in frames if f.filename == source] or frames[-1:]
        at = f" at line {own[-1].lineno}" if own else ""
        raise SystemExit(
            f"{where} raised {type(error).__name__}{at}: {error}\n"
            f"  it was given {given} (the operation's tensor specs)"
        ) from None
    expected = expected if isinstance(expected, tuple) else (expected,)
    if any(e is None for e in expected):
        raise SystemExit(f"{where} returned None: return the expected tensor(s) ({given})")
    return expected


def random_inputs(bundle, seed: int) -> list:
    """Uniform [-1, 1) tensors in each parameter's dtype (bfp8: quantized Bfp8Tensors)."""
    rng = np.random.default_rng(seed)
    values = [rng.uniform(-1, 1, sig.shape).astype(np.float32) for sig in bundle.tensors]
    return [
        Bfp8Tensor(v) if sig.dtype == "bfp8" else v.astype(_DTYPES[sig.dtype])
        for sig, v in zip(bundle.tensors, values, strict=True)
    ]


def compare(name: str, got, want: np.ndarray, rtol: float, atol: float) -> bool:
    got = to_numpy(got).astype(np.float32)
    want = np.asarray(want, dtype=np.float32)
    if got.shape != want.shape:
        print(f"{name}: shape {got.shape}, reference {want.shape}: MISMATCH")
        return False
    # NaN where the reference is NaN (sqrt of a negative, ...), finite elsewhere.
    nan = np.isnan(want)
    bad_nan = int(np.count_nonzero(nan != np.isnan(got)))
    got, want = np.where(nan, 0.0, got), np.where(nan, 0.0, want)
    error = np.abs(got - want)
    scale = float(np.abs(want).max())
    bound = atol * scale + rtol * np.abs(want)
    bad = int(np.count_nonzero(~(error <= bound))) + bad_nan
    verdict = "ok" if bad == 0 else f"MISMATCH ({bad} of {want.size} elements)"
    print(
        f"{name}: max |error| {error.max():.3g} (tolerance {atol:g}*max|ref| + {rtol:g}*|ref|, "
        f"max|ref| = {scale:.3g}): {verdict}"
    )
    return bad == 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "bundles", nargs="*", help="bundle directories (one per device target), run in turn"
    )
    parser.add_argument("--bundle", action="append", default=[], help="a bundle directory")
    parser.add_argument("--reference_src", required=True)
    parser.add_argument("--reference", default="reference")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--atol", type=float, required=True)
    parser.add_argument(
        "--trace",
        nargs="?",
        const="",
        default=None,
        metavar="FILE",
        help="write the run's timeline (default file: <operation>.trace.json in "
        "$TEST_UNDECLARED_OUTPUTS_DIR); also on with TTL_TRACE=1",
    )
    args = parser.parse_args(argv)
    paths = [*args.bundles, *args.bundle]
    if not paths:
        parser.error("give a bundle directory")
    reference = load_reference(args.reference_src, args.reference)
    results = [run_bundle(path, reference, args, several=len(paths) > 1) for path in paths]
    return 0 if all(results) else 1


def run_bundle(path: str, reference, args: argparse.Namespace, several: bool) -> bool:
    """Runs one bundle against the reference; prints the check and the profile."""
    try:
        bundle = load_bundle(path)
    except LaunchError as error:  # a damaged or hand-edited bundle: say what, no traceback
        print(f"{path}: {error}", file=sys.stderr)
        return False
    trace_name = f"{bundle.operation}.{bundle.target}" if several else bundle.operation
    trace_path = trace_file(args.trace, trace_name, several)
    inputs = random_inputs(bundle, args.seed)
    where = f"{args.reference_src}: reference function `{args.reference}`"
    n_in = reference_arity(reference, bundle, where)
    expected = call_reference(
        reference, [to_numpy(x).astype(np.float32) for x in inputs[:n_in]], bundle, where
    )
    outputs_named = ", ".join(sig.name for sig in bundle.tensors[n_in:])
    if len(expected) != len(bundle.tensors) - n_in:
        raise SystemExit(
            f"{where} returned {len(expected)} value(s) but is compared with "
            f"{len(bundle.tensors) - n_in} tensor(s) ({outputs_named}): return one value "
            f"per tensor after its parameters, a tuple for more than one"
        )
    device = Device(bundle.target, bundle.grid, profile=True, trace=trace_path is not None)
    try:
        outputs = run(bundle, *inputs, device=device)
    except DeviceError as error:
        print(f"{bundle.operation} on {bundle.target}: {error}", file=sys.stderr)
        return False
    print(f"{bundle.operation} on the emulated {bundle.target} grid {bundle.grid}:")
    ok = all(
        compare(sig.name, out, want, args.rtol, args.atol)
        for sig, out, want in zip(bundle.tensors[n_in:], outputs[n_in:], expected, strict=True)
    )
    report = device.last_report
    assert report is not None  # run() records it
    print(report.table())
    if trace_path is not None:
        try:
            write_trace(trace_path, [(bundle.operation, report.kernels, report.dfb_counts)])
        except OSError as e:  # checked writable before the run; the disk may fill since
            print(f"cannot write the trace {trace_path}: {e.strerror or e}", file=sys.stderr)
            return False
        print(f"trace written to {trace_path}")
    return ok


def trace_file(flag: str | None, operation: str, several: bool = False) -> str | None:
    """Where to write the trace (None: no trace), checked writable; SystemExit if not.

    ``flag`` is ``--trace``'s value: None (absent), "" (no file named) or a path.
    ``operation`` names the default file; with ``several`` bundles a named file
    would be overwritten, so it is an error.
    """
    if flag is None and os.environ.get("TTL_TRACE", "") not in ("", "0"):
        flag = ""
    if flag is None:
        return None
    path = flag
    if path and several:
        raise SystemExit(
            "--trace=FILE with several bundles (a ttl_operation with `targets`): use --trace, "
            "which writes <operation>.<target>.trace.json per bundle"
        )
    if not path:
        outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
        if not outputs:
            raise SystemExit(
                "--trace without a file needs $TEST_UNDECLARED_OUTPUTS_DIR (set by bazel "
                "test); name the file with --trace=FILE"
            )
        path = os.path.join(outputs, f"{operation}.trace.json")
    try:
        check_writable(path)
    except OSError as e:
        raise SystemExit(str(e)) from None
    return path


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
