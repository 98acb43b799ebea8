"""load_bundle/run against real compiler output (ttlc), and bundle validation."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from dst_model import fma_in_dst
from rt_bundle import compile_operation, make_bundle, patch_first_load_segment

from ttl.runtime import BundleError, Device, LaunchError, load_bundle, run
from ttl.runtime.errors import RunawayKernelError

BF16 = ml_dtypes.bfloat16
SHAPE = (64, 128)


@pytest.fixture(scope="module")
def eltwise_bundle(tmp_path_factory):
    from ttl.host import toolchain

    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    tmp = tmp_path_factory.mktemp("eltwise")
    spec = f"bf16[{SHAPE[0]},{SHAPE[1]}]"
    manifest = compile_operation(
        "examples/basic/eltwise_single_tile.py",
        "eltwise_single_tile",
        dict.fromkeys("abcy", spec),
        tmp / "ttlc",
    )
    return make_bundle(tmp / "ttlc", manifest, tmp / "bundle")


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(np.float32).astype(BF16) for _ in range(3)]


def test_run_compiled_eltwise_bundle(eltwise_bundle):
    bundle = load_bundle(eltwise_bundle)
    assert [t.name for t in bundle.tensors] == ["a", "b", "c", "y"]
    a, b, c = _inputs()
    y = np.zeros(SHAPE, BF16)
    dev = Device(bundle.target, bundle.grid)
    out = run(bundle, a, b, c, y, device=dev)
    want = fma_in_dst(a, b, c)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))  # written in place
    assert out[3] is y and out[0] is a
    np.testing.assert_array_equal(a, _inputs()[0])  # inputs unchanged
    kernels = {k.kernel for k in dev.last_report.kernels}
    assert kernels == {"compute", "read", "write"}


def test_rejects_wrong_dtype_shape_and_count(eltwise_bundle):
    a, b, c = _inputs()
    y = np.zeros(SHAPE, BF16)
    with pytest.raises(
        LaunchError,
        match=r"tensor 'b' \(argument 1\) has dtype float32, but the "
        r"operation was compiled for bf16",
    ):
        run(eltwise_bundle, a, b.astype(np.float32), c, y)
    with pytest.raises(
        LaunchError,
        match=r"tensor 'y' \(argument 3\) has shape \(32, 128\), but "
        r"the operation was compiled for \(64, 128\)",
    ):
        run(eltwise_bundle, a, b, c, np.zeros((32, 128), BF16))
    with pytest.raises(LaunchError, match=r"takes 4 tensors \(a, b, c, y\), got 3"):
        run(eltwise_bundle, a, b, c)
    with pytest.raises(
        LaunchError, match="compiled for wormhole_b0, but the device is a blackhole"
    ):
        run(eltwise_bundle, a, b, c, y, device=Device("blackhole"))


def _copy(bundle, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(bundle, dst)
    return dst


def _edit_manifest(path, **changes):
    m = json.loads((path / "manifest.json").read_text())
    m.update(changes)
    (path / "manifest.json").write_text(json.dumps(m))


@pytest.mark.parametrize(
    "arg",
    [
        {"kind": "noc_x", "column": 99},  # outside the grid
        {"kind": "noc_y", "row": -1},
        {"kind": "noc_x"},
        {"kind": "tensor_address", "tensor": "nope"},
        {"kind": "scalar"},
    ],
)
def test_rejects_a_runtime_arg_this_runtime_cannot_supply(eltwise_bundle, tmp_path, arg):
    bad = _copy(eltwise_bundle, tmp_path)
    m = json.loads((bad / "manifest.json").read_text())
    per_node = m["runtime_args"]["per_node"]
    per_node.append(dict(arg, index=len(per_node)))
    _edit_manifest(bad, runtime_args=m["runtime_args"])
    with pytest.raises(BundleError, match=r"runtime arg \d+ .* is not supported by this runtime"):
        load_bundle(bad)


def test_rejects_modified_elf(eltwise_bundle, tmp_path):
    bad = _copy(eltwise_bundle, tmp_path)
    with open(bad / "elf" / "read.elf", "ab") as f:
        f.write(b"\0")
    with pytest.raises(BundleError, match=r"read\.elf \(kernel 'read'\) does not match its hash"):
        load_bundle(bad)


def test_rejects_an_elf_slot_holding_something_else(eltwise_bundle, tmp_path):
    """A file whose hash matches but is no ELF fails at load, not at launch."""
    bad = _copy(eltwise_bundle, tmp_path)
    text = b"not an ELF\n"
    (bad / "elf" / "read.elf").write_bytes(text)
    m = json.loads((bad / "manifest.json").read_text())
    m["bundle"]["files"]["elf/read.elf"] = "sha256:" + hashlib.sha256(text).hexdigest()
    _edit_manifest(bad, bundle=m["bundle"])
    with pytest.raises(BundleError, match=r"read\.elf is not an ELF file"):
        load_bundle(bad)


def test_bundle_kernels_carry_the_verified_elf_images(eltwise_bundle):
    """Runs use the images load_bundle parsed from the bytes it hashed (no second read)."""
    bundle = load_bundle(eltwise_bundle)
    for k in bundle.kernels:
        assert k.image.sha256 == hashlib.sha256(k.elf.read_bytes()).hexdigest()
    dev = Device(bundle.target, bundle.grid)
    a, b, c = _inputs(5)
    run(bundle, a, b, c, np.zeros(SHAPE, BF16), device=dev)
    images = {id(h.image) for h in dev._machines.values()}
    assert images == {id(k.image) for k in bundle.kernels}


def test_rejects_unknown_version_and_target(eltwise_bundle, tmp_path):
    bad = _copy(eltwise_bundle, tmp_path)
    _edit_manifest(bad, version=99)
    with pytest.raises(BundleError, match="manifest version 99 is not supported"):
        load_bundle(bad)
    _edit_manifest(bad, version=1, target="grayskull")
    with pytest.raises(BundleError, match="unknown target 'grayskull'"):
        load_bundle(bad)
    _edit_manifest(bad, target="wormhole_b0", bundle=None)
    with pytest.raises(BundleError, match="no 'bundle' section"):
        load_bundle(bad)


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(BundleError, match=r"has no manifest\.json"):
        load_bundle(tmp_path)


def test_run_with_torch_tensors_updates_output_in_place(eltwise_bundle):
    torch = pytest.importorskip("torch")
    a, b, c = (torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16) for x in _inputs(1))
    y = torch.zeros(SHAPE, dtype=torch.bfloat16)
    out = run(eltwise_bundle, a, b, c, y)
    assert out[3] is y
    want = torch.from_numpy(
        fma_in_dst(*(x.float().numpy().astype(BF16) for x in (a, b, c))).astype(np.float32)
    )
    assert torch.equal(y.float(), want)


def test_output_that_is_not_contiguous_is_still_updated(eltwise_bundle):
    """A Fortran-ordered output cannot receive tiles in place: it is copied into instead."""
    a, b, c = _inputs(2)
    y = np.zeros(SHAPE, BF16, order="F")
    out = run(eltwise_bundle, a, b, c, y)
    want = fma_in_dst(a, b, c)
    assert out[3] is y
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))


def test_repeated_runs_reuse_the_same_dram(eltwise_bundle):
    """A run frees its DRAM tensors, also when it fails: calling an operation in a loop
    does not grow the device's memory."""
    bundle = load_bundle(eltwise_bundle)
    dev = Device(bundle.target, bundle.grid)
    before = dev.dram.mark()
    a, b, c = _inputs(4)
    for _ in range(3):
        run(bundle, a, b, c, np.zeros(SHAPE, BF16), device=dev)
        assert dev.dram.mark() == before
    dev.instruction_budget = 10  # the launch fails after the tensors were written
    with pytest.raises(RunawayKernelError):
        run(bundle, a, b, c, np.zeros(SHAPE, BF16), device=dev)
    assert dev.dram.mark() == before


def test_unwritten_inputs_are_not_read_back(eltwise_bundle):
    """`run` reads back only tensors the manifest marks `written`; inputs come back as given."""
    bundle = load_bundle(eltwise_bundle)
    assert [s.written for s in bundle.tensors] == [False, False, False, True]
    rng = np.random.default_rng(3)
    arrays = [rng.uniform(-1, 1, SHAPE).astype(BF16) for _ in range(4)]
    frozen = [a.copy() for a in arrays[:3]]
    for a in arrays[:3]:
        a.flags.writeable = False  # a read-back would have to return a new array
    out = run(bundle, *arrays, device=Device(bundle.target, bundle.grid))
    assert all(o is a for o, a in zip(out[:3], arrays[:3], strict=True))
    assert all(np.array_equal(a, f) for a, f in zip(arrays[:3], frozen, strict=True))
    f32 = [f.astype(np.float32) for f in frozen]
    np.testing.assert_allclose(
        out[3].astype(np.float32), f32[0] * f32[1] + f32[2], rtol=2**-7, atol=2**-7
    )


@pytest.mark.parametrize("text", ["[]", '"x"', "3"])
def test_rejects_a_manifest_that_is_not_an_object(eltwise_bundle, tmp_path, text):
    bad = _copy(eltwise_bundle, tmp_path)
    (bad / "manifest.json").write_text(text)
    with pytest.raises(BundleError, match=r"malformed manifest \(a \w+, not an object\)"):
        load_bundle(bad)


def test_rejects_a_bad_compute_config(eltwise_bundle, tmp_path):
    bad = _copy(eltwise_bundle, tmp_path)
    m = json.loads((bad / "manifest.json").read_text())
    for k in m["kernels"]:
        if k["kind"] == "compute":
            k["compute_config"] = {"fp32_dest_acc_en": "yes", "dst_tiles": 8}
    _edit_manifest(bad, kernels=m["kernels"])
    with pytest.raises(BundleError, match="kernel 'compute': compute_config"):
        load_bundle(bad)


@pytest.mark.parametrize(
    ("field", "value"), [("math_fidelity", "LoFi"), ("math_approx_mode", True)]
)
def test_rejects_a_compute_config_the_emulator_does_not_model(
    eltwise_bundle, tmp_path, field, value
):
    bad = _copy(eltwise_bundle, tmp_path)
    m = json.loads((bad / "manifest.json").read_text())
    for k in m["kernels"]:
        if k["kind"] == "compute":
            assert k["compute_config"][field] in ("HiFi4", False)  # what ttlc writes
            k["compute_config"][field] = value
    _edit_manifest(bad, kernels=m["kernels"])
    with pytest.raises(BundleError, match="the emulator models only HiFi4"):
        load_bundle(bad)


def test_rejects_a_read_only_output(eltwise_bundle):
    a, b, c = _inputs()
    y = np.zeros(SHAPE, BF16)
    y.flags.writeable = False
    with pytest.raises(LaunchError, match=r"tensor 'y' \(argument 3\) is a read-only NumPy array"):
        run(eltwise_bundle, a, b, c, y)
    a.flags.writeable = False  # inputs may be read-only
    y.flags.writeable = True
    run(eltwise_bundle, a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))


# ------------------------------------------------- bundles as untrusted input
def _check_bundle_problems(path):
    import sys
    from pathlib import Path

    tools = Path(__file__).resolve().parents[2] / "ttl/rules/private/tools"
    sys.path.insert(0, str(tools))
    try:
        import check_bundle
    finally:
        sys.path.remove(str(tools))
    return check_bundle.check_bundle(str(path))


@pytest.mark.parametrize("member", ["manifest.json", "elf/compute.elf"])
def test_a_bundle_file_that_is_dev_zero_is_refused_not_read(eltwise_bundle, tmp_path, member):
    bad = _copy(eltwise_bundle, tmp_path)
    if member != "manifest.json":
        (bad / member).unlink()
    else:
        (bad / member).rename(bad / "real-manifest.json")
    (bad / member).symlink_to("/dev/zero")
    refusal = "not a regular file \\(a character device\\)|resolves to /dev/zero, outside"
    with pytest.raises(BundleError, match=refusal):
        load_bundle(bad)
    assert any(
        "character device" in p or "unreadable" in p or "outside the bundle" in p
        for p in _check_bundle_problems(bad)
    )


@pytest.mark.parametrize("member", ["elf/compute.elf", "kernels/compute.cpp"])
def test_a_bundle_file_linked_outside_the_bundle_is_refused(eltwise_bundle, tmp_path, member):
    # The outside copy has the listed hash: only confinement keeps it out.
    bad = _copy(eltwise_bundle, tmp_path)
    outside = tmp_path / "outside" / Path(member).name
    outside.parent.mkdir()
    shutil.copyfile(bad / member, outside)
    (bad / member).unlink()
    (bad / member).symlink_to(outside)
    assert any(f"{member} resolves to {outside}, outside" in p for p in _check_bundle_problems(bad))
    if member.startswith("elf/"):  # the loader reads sources only to name a line
        with pytest.raises(BundleError, match=f"{member} resolves to {outside}, outside the"):
            load_bundle(bad)


def test_a_bundle_linked_in_as_bazel_presents_it_loads_and_runs(eltwise_bundle, tmp_path):
    """Runfiles and sandboxes: a symlink to the bundle's directory, or one symlink per
    file (a directory of links, as Bazel's sandbox lays out a tree artifact)."""
    linked_dir = tmp_path / "dir_link"
    linked_dir.symlink_to(eltwise_bundle)
    per_file = tmp_path / "file_links"
    for real in sorted(Path(eltwise_bundle).rglob("*")):
        if real.is_file():
            link = per_file / real.relative_to(eltwise_bundle)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(real)
    a, b, c = _inputs()
    for bundle_path in (linked_dir, per_file):
        y = np.zeros(SHAPE, BF16)
        run(load_bundle(bundle_path), a, b, c, y)
        np.testing.assert_array_equal(y.view(np.uint16), fma_in_dst(a, b, c).view(np.uint16))
        assert _check_bundle_problems(bundle_path) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: {"offset": 0xFFFFFF00}, "file bytes past the end of the file"),
        (lambda f: {"filesz": 0xFFFFFFF0}, "more file bytes than its memory size"),
        (lambda f: {"memsz": f["filesz"] - 4}, "more file bytes than its memory size"),
    ],
    ids=["past-the-end", "huge-file-size", "file-size-over-memory-size"],
)
def test_an_elf_segment_that_misstates_its_size_is_refused(
    eltwise_bundle, tmp_path, change, message
):
    # Issue 31: a raw ValueError from engine.py, or kernel memory silently overwritten.
    bad = _copy(eltwise_bundle, tmp_path)
    patch_first_load_segment(bad, change)
    with pytest.raises(LaunchError, match=message):
        load_bundle(bad)
    assert any(message in p for p in _check_bundle_problems(bad))


def test_check_bundle_refuses_what_the_loader_refuses(eltwise_bundle, tmp_path):
    # Issue 31: check_bundle said "ok" to manifests load_bundle refuses.
    bad = _edited(eltwise_bundle, tmp_path, lambda m: m["tensors"][1].update(index=0))
    problems = _check_bundle_problems(bad)
    assert any("the runtime refuses it:" in p and "numbered 0..n-1" in p for p in problems)


@pytest.mark.parametrize("member", ["elf/compute.elf", "manifest.json"])
def test_a_fifo_in_a_bundle_does_not_block_its_readers(eltwise_bundle, tmp_path, member):
    import os

    bad = _copy(eltwise_bundle, tmp_path)
    (bad / member).unlink()
    os.mkfifo(bad / member)
    with pytest.raises(BundleError, match="a FIFO"):
        load_bundle(bad)
    assert any("a FIFO" in p for p in _check_bundle_problems(bad))


def test_a_manifest_linked_from_outside_takes_no_files_of_the_bundle(eltwise_bundle, tmp_path):
    # The bundle's files must resolve next to the manifest: a manifest linked in from
    # elsewhere cannot vouch for the files of this directory.
    bad = _copy(eltwise_bundle, tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copyfile(bad / "manifest.json", outside / "manifest.json")
    (bad / "manifest.json").unlink()
    (bad / "manifest.json").symlink_to(outside / "manifest.json")
    with pytest.raises(BundleError, match="outside the bundle"):
        load_bundle(bad)
    assert _check_bundle_problems(bad)


def _edited(eltwise_bundle, tmp_path, edit):
    bad = _copy(eltwise_bundle, tmp_path)
    m = json.loads((bad / "manifest.json").read_text())
    edit(m)
    (bad / "manifest.json").write_text(json.dumps(m))
    return bad


def _set_source(m, source):
    m["kernels"][0]["source"] = source


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: _set_source(m, "../../../outside/compute.cpp"), "is a file name in the"),
        (lambda m: _set_source(m, ".hidden.cpp"), "is a file name in the"),
        (lambda m: m["tensors"][1].update(index=0), "numbered 0..n-1, one each"),
        (lambda m: m.update(kernels=[]), "lists no kernels"),
        (lambda m: m["tensors"][0].update(shape="6412"), "a shape is a list of positive"),
        (
            lambda m: m["tensors"][0].update(shape=[1 << 22, 1 << 22]),
            "has more than 2147483648 elements",
        ),
        (lambda m: m["tensors"][0].update(logical_shape=[1, 1]), "pads to whole tiles"),
        # Issue 31: 2**31 elements pass the element limit; 4 GiB of bf16 per tensor
        # outgrows Wormhole's 12 GiB before the runner allocates 16 GiB of inputs.
        (
            lambda m: [t.update(shape=[65536, 32768]) for t in m["tensors"]],
            "tensors need 17179869184 bytes of DRAM but wormhole_b0 has 12884901888",
        ),
        (lambda m: m["bundle"]["files"].update({"../x": "sha256:0"}), "its file list names"),
        (lambda m: m["tensors"][0].update(logical_shape="1,1"), "has logical_shape '1,1'"),
    ],
    ids=[
        "source-escapes",
        "hidden-source",
        "duplicate-index",
        "no-kernels",
        "string-shape",
        "huge",
        "logical-shape-of-another-tensor",
        "more-than-dram",
        "listed-file-escapes",
        "string-logical-shape",
    ],
)
def test_a_manifest_that_breaks_the_bundle_rules_is_refused(
    eltwise_bundle, tmp_path, edit, message
):
    with pytest.raises(BundleError, match=message):
        load_bundle(_edited(eltwise_bundle, tmp_path, edit))


def test_a_deeply_nested_manifest_is_an_error_not_a_recursion_error(eltwise_bundle, tmp_path):
    bad = _copy(eltwise_bundle, tmp_path)
    (bad / "manifest.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(BundleError, match="nested too deeply"):
        load_bundle(bad)


def test_check_bundle_reports_a_tampered_manifest_without_a_traceback(eltwise_bundle, tmp_path):
    bad = _edited(eltwise_bundle, tmp_path, lambda m: m["bundle"]["files"].update({"../x": "h"}))
    assert "listed file '../x' is not a path inside the bundle" in _check_bundle_problems(bad)
    empty = _edited(eltwise_bundle, tmp_path / "e", lambda m: m.update(kernels=[]))
    assert "manifest.json lists no kernels" in _check_bundle_problems(empty)
