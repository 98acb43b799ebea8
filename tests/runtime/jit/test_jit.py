"""Calling an @ttl.operation: compile once, cache on disk, dispatch, profile."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest
from dst_model import fma_in_dst
from jit_support import EXAMPLE_OP, GUARDED_STATIC, ROOT

from ttl.errors import TTLCompileError
from ttl.host import cache, jit, toolchain
from ttl.operation import Operation

BF16 = ml_dtypes.bfloat16


def _inputs(shape, dtype=BF16, seed=0):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.uniform(-1, 1, shape).astype(dtype) for _ in range(3))
    return a, b, c, np.zeros(shape, dtype)


def _count_compiles(monkeypatch) -> list:
    calls = []
    original = Operation.compile

    def counting(self, *args, **kwargs):
        calls.append(self.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Operation, "compile", counting)
    return calls


def test_first_call_compiles_and_second_call_reuses(add_mul, monkeypatch, fresh_jit):
    compiles = _count_compiles(monkeypatch)
    a, b, c, y = _inputs((64, 96))
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))  # bit-exact in 16-bit DST

    a2, b2, c2, y2 = _inputs((64, 96), seed=1)
    add_mul(a2, b2, c2, y2)
    np.testing.assert_array_equal(y2, fma_in_dst(a2, b2, c2))
    assert compiles == ["eltwise_add_mul"]
    assert (cache.STATS.misses, len(cache.STATS.compiled)) == (1, 1)
    assert [c.cache for c in jit.profile().calls] == ["compiled", "memory"]
    entries = list((fresh_jit / "bundles").iterdir())
    assert [e.name for e in entries] == cache.STATS.compiled  # no temp dir left behind
    files = sorted(p.relative_to(entries[0]).as_posix() for p in entries[0].rglob("*.*"))
    assert files == [
        ".ttl-entry.json",
        "elf/compute.elf",
        "elf/read.elf",
        "elf/write.elf",
        "kernels/compute.cpp",
        "kernels/read.cpp",
        "kernels/write.cpp",
        "manifest.json",
        "operation.mlir",
    ]


_FRESH_PROCESS = textwrap.dedent("""
    import importlib.util, json, sys
    import ml_dtypes, numpy as np
    from ttl.operation import Operation
    from ttl.host import cache, jit, toolchain
    if sys.argv[1] == "forbid-compile":
        def no_compile(*args, **kwargs):
            raise AssertionError("recompiled although the bundle is cached")
        Operation.compile = no_compile
    spec = importlib.util.spec_from_file_location("op", sys.argv[2])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.ones((32, 64), ml_dtypes.bfloat16)
    y = np.zeros((32, 64), ml_dtypes.bfloat16)
    mod.eltwise_add_mul(x, x, x, y)
    print(json.dumps({"hits": cache.STATS.hits, "misses": cache.STATS.misses,
                      "y": float(y.astype(np.float32).mean()),
                      "cache": jit.profile().calls[0].cache}))
""")


def test_fresh_process_reuses_the_disk_cache(add_mul, fresh_jit):
    def run(mode):
        proc = subprocess.run(
            [sys.executable, "-c", _FRESH_PROCESS, mode, str(EXAMPLE_OP)],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    assert run("allow-compile") == {"hits": 0, "misses": 1, "y": 2.0, "cache": "compiled"}
    (entry,) = (fresh_jit / "bundles").iterdir()

    def stamps():  # the bundle's files; a hit touches only the record (cache.evict's LRU)
        return {p: p.stat().st_mtime_ns for p in entry.rglob("*") if p.name != ".ttl-entry.json"}

    before, used = stamps(), (entry / ".ttl-entry.json").stat().st_mtime_ns
    assert run("forbid-compile") == {"hits": 1, "misses": 0, "y": 2.0, "cache": "disk"}
    assert stamps() == before
    assert (entry / ".ttl-entry.json").stat().st_mtime_ns >= used


def test_other_specs_compile_separately(add_mul, monkeypatch):
    compiles = _count_compiles(monkeypatch)
    for shape, dtype in (((32, 32), BF16), ((64, 32), BF16), ((32, 32), np.float32)):
        a, b, c, y = _inputs(shape, dtype)
        add_mul(a, b, c, y)
        np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert len(compiles) == 3 and len(set(cache.STATS.compiled)) == 3


def test_target_and_grid_override(add_mul):
    a, b, c, y = _inputs((64, 64))
    jit.configure(target="blackhole", grid="2x1")
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    call = jit.profile().calls[-1]
    assert (call.target, call.grid) == ("blackhole", (2, 1))
    assert sorted({k.node for k in call.kernels}) == [(0, 0), (1, 0)]


def test_damaged_cache_entry_is_rebuilt(add_mul, monkeypatch, fresh_jit):
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)
    (entry,) = (fresh_jit / "bundles").iterdir()
    (entry / "elf" / "compute.elf").write_bytes(b"not an elf")
    monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
    y[...] = 0
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert cache.STATS.misses == 2


def _replace(path, target):
    """``path`` replaced by a symlink to ``target``, or by a FIFO (``target`` None)."""
    path.unlink()
    if target is None:
        os.mkfifo(path)
    else:
        path.symlink_to(target)


def _outside_copy(entry):
    """A copy of the entry's ELF outside the cache: the same bytes, the listed hash."""
    copy = entry.parent.parent / "outside.elf"
    shutil.copyfile(entry / "elf" / "compute.elf", copy)
    return copy


def _damage_manifest(entry):
    manifest = entry / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"grid"', '"grid" ', 1))


@pytest.mark.parametrize(
    ("damage", "notice"),
    [
        (_damage_manifest, "manifest.json does not match its record"),
        (lambda e: (e / "manifest.json").write_text("[]"), "does not match its record"),
        (lambda e: (e / "manifest.json").unlink(), "unreadable"),
        (lambda e: (e / ".ttl-entry.json").write_text("{"), "unreadable"),
        (lambda e: (shutil.rmtree(e), e.write_text("x")), "not a directory"),
        (lambda e: _replace(e / "manifest.json", "/dev/zero"), "a character device"),
        (lambda e: _replace(e / "elf" / "compute.elf", "/dev/zero"), "outside the bundle"),
        (lambda e: _replace(e / "elf" / "compute.elf", _outside_copy(e)), "outside the bundle"),
        (lambda e: _replace(e / "elf" / "compute.elf", None), "a FIFO"),
    ],
    ids=[
        "edited-manifest",
        "empty-manifest",
        "no-manifest",
        "bad-record",
        "a-file",
        "manifest-dev-zero",
        "elf-dev-zero",
        "elf-linked-outside",
        "elf-fifo",
    ],
)
def test_every_damaged_entry_heals(add_mul, monkeypatch, fresh_jit, capsys, damage, notice):
    """Any damage to an entry, the manifest included, is noticed, discarded and rebuilt."""
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)
    (entry,) = (fresh_jit / "bundles").iterdir()
    damage(entry)
    for _ in range(2):  # healed once, then served from disk again
        monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
        y[...] = 0
        add_mul(a, b, c, y)
        np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert (cache.STATS.misses, cache.STATS.hits) == (2, 1)
    err = capsys.readouterr().err
    assert err.count("ttl: discarding the damaged cache entry") == 1 and notice in err


def test_an_entry_swapped_in_from_another_operation_is_not_used(
    add_mul, monkeypatch, fresh_jit, tmp_path, capsys
):
    """Two operations of one signature: the entry of one, moved under the other's key
    with its record rewritten, is noticed on the hit path and rebuilt."""
    source = EXAMPLE_OP.read_text().replace("a_blk * b_blk + c_blk", "a_blk * b_blk - c_blk")
    path = tmp_path / "sub_op.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("jit_sub_op", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)
    module.eltwise_add_mul(a, b, c, y)
    root = fresh_jit / "bundles"
    add_key, sub_key = cache.STATS.compiled
    shutil.rmtree(root / sub_key)
    shutil.copytree(root / add_key, root / sub_key)
    record = json.loads((root / sub_key / ".ttl-entry.json").read_text())
    (root / sub_key / ".ttl-entry.json").write_text(json.dumps({**record, "key": sub_key}))
    monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
    y[...] = 0
    module.eltwise_add_mul(a, b, c, y)
    a32, b32, c32 = (x.astype(np.float32) for x in (a, b, c))
    np.testing.assert_allclose(y.astype(np.float32), a32 * b32 - c32, atol=2.0**-6)  # not + c
    err = capsys.readouterr().err
    assert "discarding the damaged cache entry" in err and "is a bundle of operation" in err


def test_killed_builds_are_cleaned_and_entries_follow_the_umask(add_mul, fresh_jit):
    root = fresh_jit / "bundles"
    root.mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    stale = root / f".tmp-{socket.gethostname()}-{dead}-abc"
    live = root / f".tmp-{socket.gethostname()}-{os.getpid()}-abc"
    stale.mkdir()
    live.mkdir()
    old = os.umask(0o022)
    try:
        a, b, c, y = _inputs((32, 32))
        add_mul(a, b, c, y)
    finally:
        os.umask(old)
    assert not stale.exists() and live.exists()  # a running build is left alone
    (entry,) = [p for p in root.iterdir() if not p.name.startswith(".")]
    assert entry.stat().st_mode & 0o777 == 0o755


def test_unusable_cache_falls_back_with_a_warning(add_mul, monkeypatch, tmp_path, capsys):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("TTL_CACHE_DIR", str(blocker))
    monkeypatch.setattr(cache, "_FALLBACKS", {})
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    err = capsys.readouterr().err
    assert f"the JIT cache at {blocker}/bundles is unusable" in err
    assert "set TTL_CACHE_DIR to a writable directory" in err
    assert (cache.STATS.misses, len(cache._FALLBACKS)) == (1, 1)


def test_a_read_only_cache_is_still_read_and_its_fallback_removed_at_exit(
    add_mul, monkeypatch, fresh_jit, capsys
):
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)  # fills the shared cache
    shared = fresh_jit / "bundles"
    real_access = os.access

    def read_only(path, mode, **kwargs):  # root ignores file modes: pretend instead
        if os.fspath(path) == os.fspath(shared) and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)

    at_exit = []
    monkeypatch.setattr(cache.os, "access", read_only)
    monkeypatch.setattr(cache.atexit, "register", lambda fn, *args: at_exit.append((fn, args)))
    monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
    compiles = _count_compiles(monkeypatch)
    y[...] = 0
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert compiles == []  # served from the read-only cache
    assert "is unusable" in capsys.readouterr().err
    (fallback,) = cache._FALLBACKS.values()
    assert fallback.is_dir()
    for fn, args in at_exit:
        fn(*args)
    assert not fallback.parent.exists()


def test_the_cache_evicts_its_least_recently_used_entries_past_its_size(
    add_mul, monkeypatch, fresh_jit
):
    root = fresh_jit / "bundles"
    add_mul(*_inputs((32, 32)))
    (first,) = root.iterdir()
    size = sum(f.stat().st_size for f in first.rglob("*") if f.is_file())
    monkeypatch.setenv(cache.MAX_BYTES_ENV, str(int(1.5 * size)))  # room for one
    add_mul(*_inputs((32, 64)))
    (second,) = root.iterdir()
    assert second != first  # the older entry made room for the new one
    monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
    compiles = _count_compiles(monkeypatch)
    add_mul(*_inputs((32, 64)))  # the kept entry is still served
    add_mul(*_inputs((32, 32)))  # the evicted one is compiled again
    assert compiles == ["eltwise_add_mul"]


@pytest.mark.parametrize(
    ("name", "value"), [(cache.MAX_BYTES_ENV, "{size}"), (cache.MAX_MB_ENV, "{size_mb}")]
)
def test_the_size_limit_is_set_in_bytes_or_mib(monkeypatch, name, value):
    size = 3 << 20
    monkeypatch.delenv(cache.MAX_BYTES_ENV, raising=False)
    monkeypatch.delenv(cache.MAX_MB_ENV, raising=False)
    assert cache.max_bytes() == cache.DEFAULT_MAX_MB << 20
    monkeypatch.setenv(name, value.format(size=size, size_mb=3))
    assert cache.max_bytes() == size


@pytest.mark.parametrize("value", ["lots", "-1", "nan", "inf"])
def test_a_size_limit_that_is_no_size_is_a_notice_and_the_default(monkeypatch, capsys, value):
    monkeypatch.setenv(cache.MAX_BYTES_ENV, value)
    assert cache.max_bytes() == cache.DEFAULT_MAX_MB << 20
    err = capsys.readouterr().err
    assert f"ttl: $TTL_CACHE_MAX_BYTES={value!r} is not a size (write a number of bytes)" in err


def test_an_entry_evicted_by_another_process_while_read_is_a_quiet_rebuild(
    add_mul, monkeypatch, fresh_jit, capsys
):
    """No lock between readers and eviction: an entry removed between the lookup and
    the reading of its files (another process's `evict`) is compiled again."""
    a, b, c, y = _inputs((32, 32))
    add_mul(a, b, c, y)
    monkeypatch.setattr(jit, "_BUNDLES", {})  # as in a new process
    found = cache.lookup

    def lookup_then_evicted(key):
        path = found(key)
        shutil.rmtree(path)
        return path

    monkeypatch.setattr(cache, "lookup", lookup_then_evicted)
    capsys.readouterr()
    compiles = _count_compiles(monkeypatch)
    y[...] = 0
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert compiles == ["eltwise_add_mul"]
    assert "damaged" not in capsys.readouterr().err


def test_a_full_disk_is_a_located_error(add_mul, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(toolchain, "build_bundle", full)
    a, b, c, y = _inputs((32, 32))
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, b, c, y)  # the call
    err = info.value
    assert "is out of disk space" in err.message and "TTL_CACHE_DIR" in err.message
    assert err.loc.filename == __file__


def test_cache_directory_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TTL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "ttl"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "ttl"


def test_cache_key_covers_every_input(needs_device_cxx):
    base = ("id", ["bf16[32,32]"], "wormhole_b0", (1, 1))
    key = cache.cache_key(*base)
    assert key == cache.cache_key(*base)
    variants = [
        ("id2", *base[1:]),
        (base[0], ["f32[32,32]"], *base[2:]),
        (*base[:2], "blackhole", base[3]),
        (*base[:3], (2, 2)),
        (*base, (), {"source": "other.py"}),
        (*base, (), {"options": "--no-ttl-maximize-dst"}),
    ]
    assert len({cache.cache_key(*v) for v in variants} | {key}) == 7
    assert "-march=rv32im" in cache.device_compiler_version()  # flags are part of the key


def test_compiler_version_line_is_remembered_per_binary(tmp_path, monkeypatch):
    """The `--version` line is read once per compiler binary and cache directory;
    a changed binary (another size or modification time) is asked again."""
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    log = tmp_path / "runs.log"
    cxx = tmp_path / "fake-g++"

    def install(version: str) -> None:
        cxx.write_text(f"#!/bin/sh\necho run >> {log}\necho '{version}'\n")
        cxx.chmod(0o755)

    install("fake-g++ 1.0")
    first = cache._remembered_version_line(str(cxx))
    assert first == "fake-g++ 1.0"
    assert cache._remembered_version_line(str(cxx)) == first
    assert log.read_text().count("run") == 1  # the second answer came from the file
    install("fake-g++ 2.0.1")  # another size: another binary
    assert cache._remembered_version_line(str(cxx)) == "fake-g++ 2.0.1"
    assert log.read_text().count("run") == 2
    memo = json.loads((tmp_path / "cache" / "compiler-versions.json").read_text())
    assert sorted(memo.values()) == ["fake-g++ 1.0", "fake-g++ 2.0.1"]


@pytest.mark.parametrize(
    ("shape", "dtype", "words"),
    [
        ((32, 32), np.float64, ["tensor 'a'", "float64", "bf16, f32 or bfp8"]),
        ((30, 32), BF16, ["tensor 'a'", "(30, 32)", "multiples of 32", "pad"]),
    ],
)
def test_unusable_tensor_is_named(add_mul, shape, dtype, words):
    a = np.zeros(shape, dtype)
    _, b, c, y = _inputs((32, 32))
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, b, c, y)
    message = info.value.render()
    for word in words:
        assert word in message
    assert "test_jit.py" in message  # located at the call site


def test_an_argument_that_is_neither_a_tensor_nor_a_constant_names_the_rule(add_mul):
    # Issue 28 item 3: compile-time constants are parameters (tests/programs/
    # constant_params.py); any other value must be captured.
    a, b, c, _ = _inputs((32, 32))
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, b, c, {"scale": 2})
    assert info.value.message == "tensor 'y' of operation 'eltwise_add_mul' is a dict, not a tensor"
    assert "compile-time constants (bool, int, float, str, None, tuples and lists" in (
        info.value.hint or ""
    )
    assert "capture any other value from the enclosing scope" in (info.value.hint or "")


def test_wrong_number_of_tensors(add_mul):
    a, b, c, _ = _inputs((32, 32))
    with pytest.raises(
        TTLCompileError,
        match=r"takes 4 tensors \(a, b, c, y\) but was called "
        r"with 3",
    ):
        add_mul(a, b, c)


def test_pinned_specs_mismatch_names_both(add_mul):
    a, b, c, y = _inputs((32, 32))
    specs = dict.fromkeys("abcy", "bf16[64,64]")
    with pytest.raises(TTLCompileError) as info:
        jit.run_operation(add_mul, a, b, c, y, specs=specs)
    text = info.value.render()
    assert "tensor 'a' is bf16[32,32]" in text and "bf16[64,64]" in text
    assert "recompile" in text


def test_compile_error_is_a_located_diagnostic(needs_device_cxx, tmp_path):
    src = tmp_path / "bad_op.py"
    src.write_text(
        textwrap.dedent("""
        import ttl

        @ttl.operation(grid=(1, 1))
        def bad(a, y):
            a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

            @ttl.compute()
            def compute():
                with a_dfb.wait() as blk:
                    blk.frobnicate()
    """)
    )
    from ttl.compiler.driver import load_operation

    op = load_operation(str(src), "bad")
    x = np.zeros((32, 32), BF16)
    with pytest.raises(TTLCompileError) as info:
        op(x, x)
    assert str(src) in info.value.render()
    assert cache.STATS.misses == 0  # nothing half-built in the cache


def test_external_header_with_a_guarded_static_builds_and_runs(needs_device_cxx, monkeypatch):
    """A function-local static with a dynamic initialiser needs -fno-threadsafe-statics."""
    spec = importlib.util.spec_from_file_location("guarded_static", GUARDED_STATIC)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.chdir(ROOT)
    x = np.random.default_rng(5).uniform(-2, 2, (32, 128)).astype(ml_dtypes.bfloat16)
    y = np.zeros_like(x)
    module.guarded_static(x, y, include_dirs=("examples/extern/include",))
    np.testing.assert_array_equal(y, module.reference(x))


_HEADER_PROGRAM = """
import os
import numpy as np
import ml_dtypes
import ttl

INC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inc")

@ttl.operation(grid=(1, 1))
def pick_row(a, y):
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        row = ttl.call_extern_func(
            "row.hpp", "tile_row", result_type=ttl.ScalarType.I32, include_paths=[INC]
        )
        with dfb.reserve() as blk:
            ttl.copy(a[row, 0], blk).wait()
            ttl.copy(blk, y[0, 0]).wait()

a = np.repeat(np.arange(3, dtype=np.float32), 32 * 32).reshape(96, 32)
y = np.zeros((32, 32), ml_dtypes.bfloat16)
pick_row(a.astype(ml_dtypes.bfloat16), y)
print(float(y[0, 0]))
"""


def test_an_edited_include_paths_header_rebuilds_the_cached_bundle(needs_device_cxx, tmp_path):
    # The cache key covers the program, not the headers its external calls include
    # through include_paths= (known only once the kernels build): the entry records
    # them with their hashes, and an edited one is a miss, not a stale bundle.
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "row.hpp"
    program = tmp_path / "pick.py"
    program.write_text(_HEADER_PROGRAM)
    env = dict(os.environ, TTL_CACHE_DIR=str(tmp_path / "cache"))

    def run(row: int) -> str:
        header.write_text(f"#pragma once\ninline int tile_row() {{ return {row}; }}\n")
        proc = subprocess.run(
            [sys.executable, "-m", "ttl.host.cli", "run", str(program)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    assert run(1) == "1.0"
    assert run(2) == "2.0"  # the entry built with row 1 is not reused
    entries = list((tmp_path / "cache" / "bundles").iterdir())
    assert len(entries) == 1
    record = json.loads((entries[0] / cache.ENTRY_RECORD).read_text())
    assert list(record["headers"]) == [str(header)]


def _compiled_cpp(fresh_jit) -> list[str]:
    """The compute kernels' C++ of every cache entry, in entry-name order."""
    bundles = sorted((fresh_jit / "bundles").iterdir())
    return [(b / "kernels" / "compute.cpp").read_text() for b in bundles]


def test_compiler_options_from_env_argv_and_call(add_mul, monkeypatch, fresh_jit):
    """$TTLANG_COMPILER_OPTIONS, then --ttl-* program arguments, then options= (later wins);
    each distinct set compiles its own bundle, with the same results."""
    a, b, c, y = _inputs((64, 64))
    monkeypatch.setenv("TTLANG_COMPILER_OPTIONS", "--no-ttl-fpu-binary-ops")
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    (sfpu,) = _compiled_cpp(fresh_jit)
    assert "mul_binary_tile(" in sfpu and "mul_tiles(" not in sfpu

    monkeypatch.setattr(sys, "argv", ["prog.py", "--ttl-fpu-binary-ops"])  # argv beats env
    y[:] = 0
    add_mul(a, b, c, y)
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert sum("mul_tiles(" in cpp for cpp in _compiled_cpp(fresh_jit)) == 1

    y[:] = 0
    add_mul(a, b, c, y, options="--no-ttl-fpu-binary-ops")  # the call beats argv: cached
    np.testing.assert_array_equal(y, fma_in_dst(a, b, c))
    assert [c.cache for c in jit.profile().calls] == ["compiled", "compiled", "memory"]


def test_bad_compiler_options_are_located_at_the_call(add_mul, monkeypatch):
    a, b, c, y = _inputs((32, 32))
    monkeypatch.setenv("TTLANG_COMPILER_OPTIONS", "--ttl-maximise-dst")
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, b, c, y)  # the call
    err = info.value
    assert err.message.startswith("compiler options in $TTLANG_COMPILER_OPTIONS: unknown")
    assert "did you mean --ttl-maximize-dst" in err.message
    assert err.loc.filename == __file__ and "--ttl-help" in err.hint
    monkeypatch.delenv("TTLANG_COMPILER_OPTIONS")
    with pytest.raises(TTLCompileError, match="options= must be a flag string"):
        add_mul(a, b, c, y, options=["--no-ttl-maximize-dst"])


def test_ttl_help_prints_the_options_and_exits(add_mul, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["prog.py", "--ttl-help"])
    a, b, c, y = _inputs((32, 32))
    with pytest.raises(SystemExit) as info:
        add_mul(a, b, c, y)
    assert info.value.code == 0
    assert "--[no-]ttl-maximize-dst" in capsys.readouterr().out


def test_unknown_target_is_located_at_the_call(add_mul):
    a, b, c, y = _inputs((32, 32))
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, b, c, y, target="grayskull")  # the call
    err = info.value
    assert err.message == "unknown target 'grayskull'"
    assert err.hint == "write target= one of blackhole, wormhole_b0"
    assert err.loc.filename == __file__


@pytest.mark.parametrize("profiled", [False, True], ids=["unprofiled", "profiled"])
def test_unprofiled_calls_keep_only_the_latest_records(add_mul, profiled):
    """A program calling an operation in a loop: without profiling only the latest
    UNPROFILED_CALLS_KEPT records stay (a full grid's is about 165 KiB); with it, all."""
    jit.configure(profile=profiled)
    a, b, c, y = _inputs((32, 32))
    calls = jit.UNPROFILED_CALLS_KEPT + 3
    for _ in range(calls):
        add_mul(a, b, c, y)
    kept = calls if profiled else jit.UNPROFILED_CALLS_KEPT
    assert len(jit.profile().calls) == kept
    assert jit.profile().dropped == calls - kept
    if not profiled:
        assert "(3 earlier calls, made without profiling, not kept)" in jit.profile().table()
        assert f"call {calls}: " in jit.profile().table()


FOREVER = """
import ttl

@ttl.operation(grid=(1, 1))
def forever(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def producer():
        n = ttl.node(dims=1)
        while n >= 0:
            with a_dfb.reserve() as blk:  # producer line
                ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def consumer():
        n = ttl.node(dims=1)
        while n >= 0:
            with a_dfb.wait() as blk:
                pass

    @ttl.datamovement()
    def idle():
        pass
"""


def test_kernels_that_move_data_forever_are_reported_at_their_own_line(
    needs_device_cxx, fresh_jit, tmp_path
):
    """Data keeps moving, so no livelock: the budget ends it, at the TT-Lang line the
    kernel waits on, not inside the emulator's headers."""
    from ttl.runtime import Device
    from ttl.runtime.errors import RunawayKernelError

    path = tmp_path / "forever.py"
    path.write_text(FOREVER)
    spec = importlib.util.spec_from_file_location("jit_forever", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    line = FOREVER.splitlines().index("            with a_dfb.reserve() as blk:  # producer line")
    device = Device("wormhole_b0", (1, 1), instruction_budget=100_000)
    with pytest.raises(RunawayKernelError) as info:
        module.forever(np.ones((32, 32), BF16), np.zeros((32, 32), BF16), device=device)
    text = str(info.value)
    assert f"at forever.py:{line + 1} (kernels/" in text
    assert "kernel_api_impl.h" not in text
    # Issue 31: the other kernel of the pair is named at its own line too.
    consumer = FOREVER.splitlines().index("            with a_dfb.wait() as blk:") + 1
    (site,) = info.value.sites
    assert site.startswith("  node (0,0) compute kernel 'consumer': ")
    assert f"forever.py:{consumer}" in site and site in text


def test_ctrl_c_during_a_run_reports_where_each_kernel_was(needs_device_cxx, fresh_jit, tmp_path):
    # Issue 31: an interrupted run ends with the deadlock report's kind of lines.
    import _thread
    import threading

    from ttl.runtime import Device
    from ttl.runtime.errors import InterruptedRunError, RunawayKernelError

    path = tmp_path / "forever.py"
    path.write_text(FOREVER)
    spec = importlib.util.spec_from_file_location("jit_forever_interrupted", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = (np.ones((32, 32), BF16), np.zeros((32, 32), BF16))
    # Compiled first (a short budget ends that run), so the interrupt lands while kernels run.
    with pytest.raises(RunawayKernelError):
        module.forever(*args, device=Device("wormhole_b0", (1, 1), instruction_budget=1000))
    device = Device("wormhole_b0", (1, 1), instruction_budget=10**12, livelock_budget=None)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(InterruptedRunError) as info:
            module.forever(*args, device=device)
    finally:
        timer.cancel()
    text = str(info.value)
    assert text.startswith("interrupted (Ctrl-C): where the unfinished kernels were\n")
    assert "node (0,0) dm0 kernel 'producer': " in text
    assert "node (0,0) compute kernel 'consumer': " in text
    assert len(info.value.sites) == 2  # idle finished


def test_a_compiler_that_writes_no_elf_publishes_no_cache_entry(
    add_mul, monkeypatch, fresh_jit, tmp_path
):
    # Issue 31: a TTL_DEVICE_CXX that exits 0 without writing an ELF.
    from ttl.device_build import flags
    from ttl.runtime.errors import LaunchError

    silent = tmp_path / "silent-g++"
    silent.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "silent-g++ 1.0"\nexit 0\n')
    silent.chmod(0o755)
    monkeypatch.setenv(flags.CXX_ENV, str(silent))
    monkeypatch.setattr(cache, "device_compiler_version", lambda: f"{silent} 1.0")
    with pytest.raises(LaunchError, match=r"exited 0 but wrote no \w+\.elf"):
        add_mul(*_inputs((32, 32)))
    bundles = fresh_jit / "bundles"
    assert not bundles.exists() or not [p for p in bundles.iterdir() if p.name[:1] != "."]
