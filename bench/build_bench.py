"""Build benchmark of the ttl Bazel rules: prints figures, asserts nothing.

    .venv/bin/python bench/build_bench.py

1. clean build of //examples/... (fresh output base, uploading to an HTTP cache);
2. no-op rebuild;
3. rebuild after touching one header (consumer workspace copied to tmp, two
   operations, one of which declares the header): actions executed, wall time;
4. a second, empty output base with the remote cache: hit rate, wall time;
5. compiler (TtlCompile) action time per operation, persistent worker vs
   one-shot sandboxed process, from Bazel's JSON profile.

Every Bazel server and the nginx cache it starts are shut down at the end.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from bazel_harness import Bazel, Nginx  # noqa: E402 (sys.path must be set first)

EXAMPLES = "//examples/..."
TOOLCHAIN = "--extra_toolchains=@ttl_bazel//toolchains/device:riscv_gcc_toolchain"


def timed_build(bazel: Bazel, *args: str, log: pathlib.Path | None = None):
    start = time.monotonic()
    result, spawns = bazel.build(*args, log=log)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stderr}")
    return elapsed, spawns


def compile_durations(profile: pathlib.Path) -> list[float]:
    """Seconds of every TtlCompile action in a JSON trace profile."""
    data = json.loads(profile.read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [
        e["dur"] / 1e6
        for e in events
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("Compiling TT-Lang operation")
    ]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="ttl-build-bench-"))
    cache = Nginx(tmp / "nginx")
    (tmp / "nginx").mkdir()
    cache.start()
    servers: list[Bazel] = []
    try:
        a = Bazel(ROOT, tmp / "ob_a")
        servers.append(a)
        a("info")  # server start and repository setup outside the timed builds
        a("build", "--nobuild", EXAMPLES)
        t, spawns = timed_build(a, f"--remote_cache={cache.url}", EXAMPLES, log=tmp / "a.json")
        print(f"clean build of {EXAMPLES}: {t:.2f} s, {len(spawns)} actions executed")
        t, spawns = timed_build(a, f"--remote_cache={cache.url}", EXAMPLES, log=tmp / "noop.json")
        print(f"no-op rebuild: {t:.2f} s, {len(spawns)} actions executed")

        c = Bazel(ROOT, tmp / "ob_c")
        servers.append(c)
        c("info")
        c("build", "--nobuild", EXAMPLES)
        t, spawns = timed_build(c, f"--remote_cache={cache.url}", EXAMPLES, log=tmp / "c.json")
        hits = sum(1 for s in spawns if s["remoteCacheHit"])
        print(
            f"second output base, remote cache: {t:.2f} s, {hits}/{len(spawns)} remote cache hits"
            f" ({100.0 * hits / max(1, len(spawns)):.0f}%)"
        )

        # Header touch in a consumer workspace (the examples use no external header).
        ws = tmp / "consumer"
        ws.mkdir()
        here = ROOT / "tests" / "rules" / "consumer"
        (ws / "WORKSPACE").write_text(
            (here / "WORKSPACE.in").read_text().replace("@TTL_BAZEL@", str(ROOT))
        )
        (ws / "BUILD.bazel").write_text((here / "BUILD.bazel.in").read_text())
        (ws / "ops").mkdir()
        (ws / "include").mkdir()
        for name in ("first", "second"):
            (ws / "ops" / f"{name}.py").write_text((here / "op.py.in").read_text())
        (ws / "include" / "scale.h").write_text("#pragma once\nconstexpr int kScale = 1;\n")
        w = Bazel(ws, tmp / "ob_consumer")
        servers.append(w)
        timed_build(w, TOOLCHAIN, "//...")
        (ws / "include" / "scale.h").write_text("#pragma once\nconstexpr int kScale = 2;\n")
        t, spawns = timed_build(w, TOOLCHAIN, "//...", log=tmp / "touch.json")
        ran = sorted(
            f"{s['mnemonic']} {s['progressMessage'].rsplit('(', 1)[-1].split(')')[0]}"
            for s in spawns
        )
        print(
            f"rebuild after touching include/scale.h (used by //:with_header only): {t:.2f} s, "
            f"{len(spawns)} actions executed: {', '.join(ran)}"
        )

        # Compiler action time: worker vs one-shot, same output base, after a clean.
        for strategy in ("worker", "sandboxed"):
            a("clean")
            profile = tmp / f"profile-{strategy}.json"
            timed_build(a, f"--strategy=TtlCompile={strategy}", f"--profile={profile}", EXAMPLES)
            times = compile_durations(profile)
            print(
                f"TtlCompile ({strategy}): {len(times)} actions,"
                f" mean {statistics.mean(times):.3f} s,"
                f" median {statistics.median(times):.3f} s, min {min(times):.3f} s"
            )
    finally:
        for server in servers:
            server.shutdown()
        cache.stop()


if __name__ == "__main__":
    main()
