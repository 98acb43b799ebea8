"""ttl.device_build: one flag list, reproducible ELFs, the bundle writer."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from ttl.device_build import bundle, flags
from ttl.device_build.kernels import (
    DeviceBuildError,
    KernelBuild,
    build_elf,
    build_manifest,
    explain_failure,
)
from ttl.host import toolchain

KERNEL = """\
#include <cstdint>
#include "ttl/kernel_api.h"
uint32_t next_id() { static uint32_t counter = get_arg_val<uint32_t>(0); return counter++; }
void kernel_main() { volatile uint32_t id = next_id(); (void)id; }
"""


@pytest.fixture
def local():
    if toolchain.find_compiler() is None:
        pytest.skip(f"{flags.default_cxx()} is not installed")
    return toolchain.local_toolchain()


def test_flags_are_freestanding_without_thread_safe_statics():
    assert "-fno-threadsafe-statics" in flags.COPTS
    assert "-Wl,--gc-sections" in flags.LINKOPTS
    assert flags.COPTS[:2] == flags.LINKOPTS[:2] == ("-march=rv32im", "-mabi=ilp32")


def _build_in(local, where: Path) -> bytes:
    (where / "kernels").mkdir(parents=True)
    (where / "kernels" / "k.cc").write_text(KERNEL)
    build = KernelBuild(stem="k", sources=(str(where / "kernels" / "k.cc"),))
    build_elf(local, build, str(where / "elf"), source_dir=str(where / "kernels"))
    return (where / "elf" / "k.elf").read_bytes()


def test_a_guarded_static_links_and_the_elf_does_not_depend_on_paths(local, tmp_path, monkeypatch):
    first = _build_in(local, tmp_path / "one")
    monkeypatch.chdir(tmp_path)  # another working directory too
    second = _build_in(local, tmp_path / "elsewhere" / "two")
    assert first == second
    assert str(tmp_path).encode() not in first
    assert b"kernels/k.cc" in first


def test_a_compile_error_is_a_device_build_error_with_the_compiler_output(local, tmp_path):
    (tmp_path / "bad.cc").write_text("void kernel_main() { undeclared(); }\n")
    with pytest.raises(DeviceBuildError, match="'undeclared' was not declared"):
        build_elf(
            local, KernelBuild(stem="bad", sources=(str(tmp_path / "bad.cc"),)), str(tmp_path)
        )


def test_a_missing_compiler_says_what_to_install(local, tmp_path):
    missing = type(local)(
        cxx="/nonexistent/g++", include_dirs=(), crt0=local.crt0, linker_script=local.linker_script
    )
    with pytest.raises(
        DeviceBuildError, match="install gcc-riscv64-unknown-elf, or set TTL_DEVICE_CXX"
    ):
        build_elf(missing, KernelBuild(stem="k", sources=()), str(tmp_path))


def test_a_compiler_that_exits_0_without_an_elf_is_an_error(local, tmp_path):
    silent = dataclasses.replace(local, cxx="true")  # succeeds, writes nothing
    (tmp_path / "k.cc").write_text(KERNEL)
    with pytest.raises(DeviceBuildError, match=r"exited 0 but wrote no k\.elf"):
        build_elf(silent, KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),)), str(tmp_path))


def test_a_hanging_compiler_is_stopped_at_its_time_limit(local, tmp_path, monkeypatch):
    hang = tmp_path / "hang-g++"
    hang.write_text("#!/bin/sh\nexec sleep 30\n")
    hang.chmod(0o755)
    monkeypatch.setenv(flags.CXX_TIMEOUT_ENV, "0.5")
    (tmp_path / "k.cc").write_text(KERNEL)
    build = KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),))
    with pytest.raises(DeviceBuildError, match=r"did not finish within 0\.5 s \(compiling crt0"):
        build_elf(dataclasses.replace(local, cxx=str(hang)), build, str(tmp_path))


def test_a_compiler_out_of_memory_is_stopped_at_its_limit(local, tmp_path, monkeypatch):
    # Issue 31: an extern header that includes /dev/zero grew g++ to 4 GB.
    monkeypatch.setenv(flags.CXX_MEMORY_ENV, "256")
    (tmp_path / "k.cc").write_text('#include "/dev/zero"\n' + KERNEL)
    build = KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),))
    with pytest.raises(DeviceBuildError) as info:
        build_elf(local, build, str(tmp_path / "out"))
    assert str(info.value).startswith(
        f"{local.cxx} ran out of its 256 MiB of memory (compiling k.cc): does a header "
        "include a device such as /dev/zero? $TTL_DEVICE_CXX_MAX_MB sets the limit"
    )


def test_confined_includes_refuse_a_header_reached_by_an_absolute_path(local, tmp_path):
    """As a Bazel action, a header outside the declared (relative) inputs fails the build."""
    (tmp_path / "outside.hpp").write_text("#pragma once\ninline int outside() { return 1; }\n")
    source = tmp_path / "k.cc"
    source.write_text(f'#include "{tmp_path}/outside.hpp"\n' + KERNEL)
    build = KernelBuild(stem="k", sources=(str(source),))
    build_elf(local, build, str(tmp_path / "free"))  # the JIT: absolute paths are fine
    confined = dataclasses.replace(local, confine_includes=True)
    with pytest.raises(DeviceBuildError, match=r"not declared inputs of the build: .*outside\.hpp"):
        build_elf(confined, build, str(tmp_path / "bazel"))


def test_a_missing_header_names_the_extern_call_and_what_to_declare():
    manifest = {
        "extern_calls": [
            {"header": "mine.hpp", "kernel": "compute", "loc": {"file": "op.py", "line": 7}}
        ]
    }
    output = "kernels/compute.cpp:3:10: fatal error: mine.hpp: No such file or directory\n"
    text = explain_failure(
        "//pkg:op", {"name": "compute", "source": "compute.cpp"}, output, manifest
    )
    assert text.startswith(
        "//pkg:op: undeclared header `mine.hpp`, included from kernels/compute.cpp:3 "
        "(ttl.call_extern_func of `mine.hpp` at op.py:7): add it to `hdrs` of //pkg:op"
    )
    assert text.endswith(output)


def test_a_function_the_pinned_release_lacks_is_named():
    # Upstream's compiler_only_add.hpp calls binary_op_init_common and add_tiles_init,
    # which TT-Metal 0.81.1's kernel API does not have.
    from ttl.device_build import tt_metal, tt_metal_index

    output = (
        "mine.hpp:15:3: error: 'binary_op_init_common' was not declared in this scope\n"
        "mine.hpp:16:3: error: 'add_init' was not declared in this scope\n"
    )
    notes = tt_metal_index.explain_undeclared(output, compute=True)
    version = tt_metal.pin().version
    assert notes[0] == (
        f"mine.hpp:15: `binary_op_init_common` is not a function of TT-Metal {version}'s "
        "kernel API (the release this toolchain pins, ttl/device_build/tt_metal.json): port "
        "the code to that release's API"
    )
    assert notes[1].startswith("mine.hpp:16: `add_init` is ")  # the release has this one


def test_bundle_writer_records_a_hash_of_every_file(tmp_path):
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "a.cpp").write_text("int a;\n")
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "a.elf").write_bytes(b"\x7fELF")
    out = tmp_path / "out"
    data = bundle.write_bundle(
        str(out), {"kernels": []}, str(tmp_path / "k"), str(tmp_path / "e"), "ir\n"
    )
    assert data["bundle"] == {
        "format": bundle.BUNDLE_FORMAT,
        "files": {
            "elf/a.elf": bundle.digest_bytes(b"\x7fELF"),
            "kernels/a.cpp": bundle.digest_bytes(b"int a;\n"),
            "operation.mlir": bundle.digest_bytes(b"ir\n"),
        },
    }
    assert json.loads((out / "manifest.json").read_text()) == data
    assert (out / "manifest.json").read_text() == bundle.dumps_manifest(data)
    assert sorted(os.listdir(out)) == ["elf", "kernels", "manifest.json", "operation.mlir"]


def _manifest_build(local, tmp_path: Path, kind: str, header: str) -> str:
    """Builds one kernel of ``kind`` that calls into an extern header; the error text."""
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "mine.hpp").write_text(header)
    api = "api/compute/common.h" if kind == "compute" else "api/dataflow/dataflow_api.h"
    (tmp_path / "k.cpp").write_text(
        f'#include "{api}"\n#include "mine.hpp"\nvoid kernel_main() {{ entry(); }}\n'
    )
    manifest = {
        "kernels": [
            {"name": "k", "source": "k.cpp", "kind": kind, "processor_slot": "dm0"},
        ]
    }
    with pytest.raises(DeviceBuildError) as info:
        build_manifest(
            local,
            manifest,
            str(tmp_path),
            str(tmp_path / "elf"),
            label="//pkg:op",
            include_dirs=[str(tmp_path / "include")],
        )
    return str(info.value)


def test_a_tt_metal_function_the_emulator_lacks_is_named_with_its_header(local, tmp_path):
    """Issue 26, bad input: an extern header calling a kernel-API function the emulator
    does not implement gets a located error naming the function and TT-Metal's header."""
    header = (
        "#pragma once\ninline void entry() {\n  noc_async_read_one_packet_set_state(0, 64);\n}\n"
    )
    message = _manifest_build(local, tmp_path, "data_movement", header)
    assert "mine.hpp:3: `noc_async_read_one_packet_set_state` is TT-Metal 0.81.1's" in message
    assert "api/dataflow/dataflow_api.h" in message and "does not implement it" in message


def test_a_compute_kernel_calling_the_data_movement_api_is_told_it_cannot(local, tmp_path):
    """Issue 26, bad input: a header in a compute kernel that uses the data-movement API."""
    header = "#pragma once\ninline void entry() {\n  noc_async_read_barrier();\n}\n"
    message = _manifest_build(local, tmp_path, "compute", header)
    assert "mine.hpp:3: `noc_async_read_barrier` is TT-Metal's data-movement API" in message
    assert "a compute kernel (TRISC) cannot call it" in message


def test_a_header_including_the_data_movement_api_into_a_compute_kernel_is_named(local, tmp_path):
    header = '#pragma once\n#include "api/dataflow/dataflow_api.h"\ninline void entry() {}\n'
    message = _manifest_build(local, tmp_path, "compute", header)
    assert "mine.hpp:2" in message  # the include chain names the header
    assert "a compute kernel (TRISC) cannot include it" in message


def test_the_tt_metal_function_index_is_current():
    """tt_metal_api_index.json is what `python -m ttl.device_build.tt_metal_index` writes."""
    from ttl.device_build import tt_metal, tt_metal_index

    committed = json.loads(tt_metal_index.INDEX_FILE.read_text())
    assert committed["version"] == tt_metal.pin().version
    assert committed["functions"] == tt_metal_index.build_index(tt_metal.headers() / "hw" / "inc")


def test_a_wrapper_script_that_hangs_is_stopped_with_its_children(local, tmp_path, monkeypatch):
    # Issue 31: a shell wrapper's `sleep` child held the output pipes open past the limit.
    import time

    hang = tmp_path / "wrapper-g++"
    hang.write_text("#!/bin/sh\nsleep 30\n")
    hang.chmod(0o755)
    monkeypatch.setenv(flags.CXX_TIMEOUT_ENV, "0.5")
    (tmp_path / "k.cc").write_text(KERNEL)
    build = KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),))
    start = time.monotonic()
    with pytest.raises(DeviceBuildError, match=r"did not finish within 0\.5 s"):
        build_elf(dataclasses.replace(local, cxx=str(hang)), build, str(tmp_path))
    assert time.monotonic() - start < 10


def test_a_compiler_that_never_answers_version_is_a_launch_error(tmp_path, monkeypatch):
    # Issue 31: the JIT's cache key runs `cxx --version`, which had no time limit.
    from ttl.host import toolchain
    from ttl.runtime.errors import LaunchError

    hang = tmp_path / "silent-g++"
    hang.write_text("#!/bin/sh\nsleep 30\n")
    hang.chmod(0o755)
    monkeypatch.setenv(flags.CXX_TIMEOUT_ENV, "0.5")
    with pytest.raises(LaunchError, match=r"did not answer --version within 0\.5 s: is it a"):
        toolchain.version_line(str(hang))
    with pytest.raises(LaunchError, match="cannot run the device compiler"):
        toolchain.version_line(str(tmp_path / "missing-g++"))


def test_confined_builds_refuse_an_absolute_include_directory(local, tmp_path):
    # Issue 31: include_paths=["/abs/outside"] under Bazel.
    (tmp_path / "k.cc").write_text(KERNEL)
    build = KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),), include_dirs=(str(tmp_path),))
    build_elf(local, build, str(tmp_path / "free"))  # the JIT: absolute paths are fine
    confined = dataclasses.replace(local, confine_includes=True)
    with pytest.raises(DeviceBuildError, match=f"include path '{tmp_path}' of an external call"):
        build_elf(confined, build, str(tmp_path / "bazel"))


def test_a_header_that_includes_dev_stdin_reads_nothing(local, tmp_path):
    # Issue 31: it hung, reading the caller's stdin; the compiler gets none.
    (tmp_path / "k.cc").write_text('#include "/dev/stdin"\n' + KERNEL)
    build = KernelBuild(stem="k", sources=(str(tmp_path / "k.cc"),))
    build_elf(local, build, str(tmp_path))
    assert (tmp_path / "k.elf").is_file()
