"""The runner behind `ttl_operation_test` passes on a right reference and fails on a wrong one."""

from __future__ import annotations

import importlib.util
import json

import pytest
from bazel_harness import ROOT

from ttl.host import toolchain


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


operation_test = _load(ROOT / "ttl/rules/private/tools/operation_test.py")
rt_bundle = _load(ROOT / "tests/runtime/rt_bundle.py")

SPECS = {"a": "bf16[64,64]", "b": "bf16[64,64]", "c": "bf16[64,64]", "y": "bf16[64,64]"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    if toolchain.find_compiler() is None:
        pytest.fail(f"{toolchain.flags.default_cxx()} is not installed: run tools/setup.sh")
    tmp = tmp_path_factory.mktemp("bundle")
    manifest = rt_bundle.compile_operation(
        "examples/basic/eltwise_single_tile.py", "eltwise_single_tile", SPECS, tmp / "ttlc"
    )
    return rt_bundle.make_bundle(tmp / "ttlc", manifest, tmp / "bundle")


def run(bundle, reference_src, *extra):
    return operation_test.main(
        [
            f"--bundle={bundle}",
            f"--reference_src={reference_src}",
            "--rtol=0.0078125",
            "--atol=0.0078125",
            *extra,
        ]
    )


def test_right_reference_passes_and_prints_profile(bundle, capsys):
    assert run(bundle, ROOT / "examples/basic/eltwise_single_tile.py") == 0
    out = capsys.readouterr().out
    assert "y: max |error|" in out and ": ok" in out
    assert "kernel" in out and "compute" in out  # the profile table


def test_wrong_reference_fails_naming_the_output(bundle, tmp_path, capsys):
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def reference(a, b, c):\n    return a * b - c\n")
    assert run(bundle, wrong) == 1
    out = capsys.readouterr().out
    assert "y: max |error|" in out and "MISMATCH" in out


def test_missing_reference_function_is_a_clear_error(bundle, tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    with pytest.raises(SystemExit, match="no function `reference`"):
        run(bundle, empty)


def test_trace_flag_writes_the_timeline_to_the_undeclared_outputs(
    bundle, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("TEST_UNDECLARED_OUTPUTS_DIR", str(tmp_path))
    assert run(bundle, ROOT / "examples/basic/eltwise_single_tile.py", "--trace") == 0
    path = tmp_path / "eltwise_single_tile.trace.json"
    assert f"trace written to {path}" in capsys.readouterr().out
    events = json.loads(path.read_text())["traceEvents"]
    kinds = {(e["ph"], e.get("cat")) for e in events}
    assert {("X", "kernel"), ("X", "dfb_wait"), ("b", "noc"), ("e", "noc"), ("C", "dfb")} <= kinds


def test_trace_env_var_and_an_explicit_file(bundle, tmp_path, monkeypatch):
    monkeypatch.setenv("TTL_TRACE", "1")
    monkeypatch.setenv("TEST_UNDECLARED_OUTPUTS_DIR", str(tmp_path / "outputs"))
    (tmp_path / "outputs").mkdir()
    assert run(bundle, ROOT / "examples/basic/eltwise_single_tile.py") == 0
    assert (tmp_path / "outputs/eltwise_single_tile.trace.json").is_file()
    monkeypatch.setenv("TTL_TRACE", "0")  # off; --trace=FILE names the file
    monkeypatch.chdir(tmp_path)
    assert run(bundle, ROOT / "examples/basic/eltwise_single_tile.py", "--trace=mine.json") == 0
    assert json.loads((tmp_path / "mine.json").read_text())["traceEvents"]


def test_trace_without_a_file_or_outputs_dir_is_a_clear_error(bundle, monkeypatch):
    monkeypatch.delenv("TEST_UNDECLARED_OUTPUTS_DIR", raising=False)
    monkeypatch.delenv("TTL_TRACE", raising=False)
    with pytest.raises(SystemExit, match=r"--trace without a file needs \$TEST_UNDECLARED"):
        run(bundle, ROOT / "examples/basic/eltwise_single_tile.py", "--trace")


def test_unwritable_trace_file_is_an_error_before_the_run(bundle, tmp_path, capsys):
    missing = tmp_path / "no/such/dir/t.json"
    with pytest.raises(SystemExit, match=f"cannot write trace file {missing}: directory"):
        run(bundle, ROOT / "examples/basic/eltwise_single_tile.py", f"--trace={missing}")
    assert "max |error|" not in capsys.readouterr().out  # nothing ran


def test_reference_with_too_few_parameters_names_it_and_the_signature(bundle, tmp_path):
    """Two parameters would compare `c` (an input) with the reference: an error, not a check."""
    short = tmp_path / "short.py"
    short.write_text("def ref_ab(a, b):\n    return a * b\n")
    with pytest.raises(SystemExit) as stop:
        run(bundle, short, "--reference=ref_ab")
    message = str(stop.value)
    assert f"{short}: reference function `ref_ab` takes 2 parameter(s) (a, b)" in message
    assert "compared with `c`, which the operation does not write" in message
    assert "eltwise_single_tile(a, b, c, y) writes y" in message
    assert "define ref_ab(a, b, c) returning y" in message


def test_reference_with_too_many_parameters_leaves_nothing_to_compare(bundle, tmp_path):
    long = tmp_path / "long.py"
    long.write_text("def reference(a, b, c, y):\n    return y\n")
    with pytest.raises(SystemExit, match=r"takes 4 parameter\(s\) \(a, b, c, y\), so it leaves no"):
        run(bundle, long)


def test_reference_returning_too_many_values_is_an_error(bundle, tmp_path):
    two = tmp_path / "two.py"
    two.write_text("def reference(a, b, c):\n    return a * b + c, a\n")
    with pytest.raises(SystemExit, match=r"returned 2 value\(s\) but is compared with 1 tensor"):
        run(bundle, two)


def test_reference_that_raises_names_its_line_and_the_shapes_it_got(bundle, tmp_path):
    ref = tmp_path / "raises.py"
    ref.write_text("import numpy as np\n\ndef reference(a, b, c):\n    return a @ b[:3] + c\n")
    with pytest.raises(SystemExit) as err:
        run(bundle, ref)
    text = str(err.value)
    assert "reference function `reference` raised ValueError at line 4:" in text, text
    assert "it was given a: (64, 64) float32, b: (64, 64) float32" in text, text


def test_reference_returning_none_is_an_error(bundle, tmp_path):
    ref = tmp_path / "none.py"
    ref.write_text("def reference(a, b, c):\n    a * b + c\n")
    with pytest.raises(SystemExit, match="returned None: return the expected tensor"):
        run(bundle, ref)


def test_bfp8_parameters_get_quantized_inputs(tmp_path, capsys):
    """A bfp8 bundle: inputs are BFP8_b values, the reference sees them as float32, and
    the bfp8 output is compared within the format's rounding."""
    if toolchain.find_compiler() is None:
        pytest.fail(f"{toolchain.flags.default_cxx()} is not installed: run tools/setup.sh")
    specs = dict.fromkeys(SPECS, "bfp8[64,64]")
    manifest = rt_bundle.compile_operation(
        "examples/basic/eltwise_single_tile.py", "eltwise_single_tile", specs, tmp_path / "ttlc"
    )
    bundle = rt_bundle.make_bundle(tmp_path / "ttlc", manifest, tmp_path / "bundle")
    reference = tmp_path / "ref.py"
    reference.write_text(
        "from ttl.runtime.tiles import BFP8, round_to_format\n"
        "def reference(a, b, c):\n"
        "    assert str(a.dtype) == 'float32' and (round_to_format(a, BFP8) == a).all()\n"
        "    return a * b + c\n"
    )
    # One step of a bfp8 value in [-2, 2) is 2^-5 at most: half of it, plus bf16 DST rounding.
    assert run(bundle, reference, "--rtol=0", "--atol=0.03") == 0
    assert "y: max |error|" in capsys.readouterr().out


def _tampered(bundle, tmp_path, how):
    import os
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(bundle, bad)
    manifest = json.loads((bad / "manifest.json").read_text())
    if how == "fifo-elf":
        (bad / "elf/compute.elf").unlink()
        os.mkfifo(bad / "elf/compute.elf")
    elif how == "dev-zero-manifest":
        (bad / "manifest.json").unlink()
        (bad / "manifest.json").symlink_to("/dev/zero")
    elif how == "missing-elf":
        (bad / "elf/compute.elf").unlink()
    elif how == "elf-segment-past-its-file":
        rt_bundle.patch_first_load_segment(bad, lambda f: {"offset": 0xFFFFFF00})
    elif how == "edited-elf":
        with open(bad / "elf/compute.elf", "ab") as f:
            f.write(b"\0")
    else:
        edits = {
            "duplicate-index": lambda m: m["tensors"][1].update(index=0),
            "no-kernels": lambda m: m.update(kernels=[]),
            "huge-shape": lambda m: [t.update(shape=[65536, 32768]) for t in m["tensors"]],
            "listed-file-escapes": lambda m: m["bundle"]["files"].update({"../x": "sha256:0"}),
            "not-json-object": lambda m: m.clear(),
        }
        edits[how](manifest)
        (bad / "manifest.json").write_text(json.dumps(manifest))
    return bad


TAMPERINGS = [
    "fifo-elf",
    "dev-zero-manifest",
    "missing-elf",
    "edited-elf",
    "elf-segment-past-its-file",
    "duplicate-index",
    "no-kernels",
    "huge-shape",
    "listed-file-escapes",
    "not-json-object",
]


@pytest.mark.parametrize("how", TAMPERINGS)
def test_a_tampered_bundle_fails_the_runner_in_one_line(bundle, tmp_path, capsys, how):
    # Issue 31: the runner printed tracebacks for 30 of 67 tampered bundles.
    bad = _tampered(bundle, tmp_path, how)
    assert run(bad, ROOT / "examples/basic/eltwise_single_tile.py") == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    assert len([line for line in out.err.splitlines() if line.strip()]) == 1, out.err


def test_a_trace_to_a_full_disk_fails_the_test_in_one_line(bundle, capsys):
    # Issue 31: a raw ENOSPC traceback from write_trace.
    result = run(bundle, ROOT / "examples/basic/eltwise_single_tile.py", "--trace=/dev/full")
    assert result == 1
    err = capsys.readouterr().err
    assert "cannot write the trace /dev/full: No space left on device" in err
    assert "Traceback" not in err
