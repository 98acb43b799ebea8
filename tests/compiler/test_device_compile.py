"""Every emitted kernel of every example builds with the device build (ttl.device_build).

The build uses exactly the defines the manifest lists for each kernel, so
this also checks that the manifest and the sources agree; warnings are errors.
"""

from __future__ import annotations

import dataclasses

import pytest
from compiler_testlib import EXAMPLES, compile_example

from ttl.device_build.kernels import DeviceBuildError, KernelBuild, build_elf, manifest_builds
from ttl.host import toolchain


def _strict_toolchain():
    """This machine's device toolchain, with -Werror added to the standard flags."""
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    for header in ("cstdint", "cstddef", "api/dataflow/dataflow_api.h", "api/compute/common.h"):
        if not (toolchain.INCLUDE_DIR / header).exists():
            pytest.skip(f"device header {header} not provided in {toolchain.INCLUDE_DIR}")
    return dataclasses.replace(toolchain.local_toolchain(), copts=("-Werror",))


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_kernels_compile_for_device(path, target, tmp_path):
    strict = _strict_toolchain()
    result = compile_example(path, target=target)
    result.write(str(tmp_path))
    builds = manifest_builds(result.manifest, str(tmp_path))
    assert builds, "an example without kernels tests nothing"
    for _, build in builds:
        build_elf(strict, build, str(tmp_path / "elf"), source_dir=str(tmp_path))
        assert (tmp_path / "elf" / f"{build.stem}.elf").stat().st_size > 0


def test_missing_compile_time_arg_fails_to_compile(tmp_path):
    """Negative control: without the manifest's compile-time args the kernel must not compile."""
    strict = _strict_toolchain()
    result = compile_example(EXAMPLES[0])
    result.write(str(tmp_path))
    source = str(tmp_path / result.manifest["kernels"][0]["source"])
    with pytest.raises(DeviceBuildError, match="compile-time argument index out of range"):
        build_elf(strict, KernelBuild(stem="x", sources=(source,)), str(tmp_path))
