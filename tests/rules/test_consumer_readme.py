"""The README's consumer setup, verbatim, in a new workspace; the CI recipe of docs/rules.md.

A workspace in tmp (its directory named `my_repo`, as in the recipe) gets the
README's WORKSPACE, `add_mul.py`, BUILD and `run_add_mul.py` snippets and the
`.bazelrc` and `.bazelignore` of docs/rules.md ("CI recipe"), extracted from the
documents as written (only `/path/to/ttl-bazel` is replaced by this checkout).
Then, as a user would:

* `bazel test //...` builds the operation and passes both tests;
* the README's `ttl run run_add_mul.py` command runs the operation from Python;
* the same command with another `PATH` runs no test again (cached results);
* a second output base in the same workspace, next to the first one's
  `bazel-*` links, loads `//...` (the `.bazelignore`);
* remote caches that are down, silent (the recipe's `--remote_timeout`) or full
  of garbage entries (the recipe's recovery build) end in a correct build.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from bazel_harness import ROOT, read_execution_log

README = ROOT / "README.md"
RULES_DOC = ROOT / "docs" / "rules.md"
TESTS = ("//:add_mul_bundle_test", "//:add_mul_test")


def fenced_blocks(path, after: str) -> list[str]:
    """The fenced code blocks of `path` after the first line containing `after`."""
    text = path.read_text()
    start = text.index(after)
    return re.findall(r"^```[a-z]*\n(.*?)^```", text[start:], re.S | re.M)


def consumer_files() -> dict[str, str]:
    workspace = fenced_blocks(README, "## Using the rules from another repository")[0]
    operation = fenced_blocks(README, "An operation, `add_mul.py`")[0]
    build = fenced_blocks(README, "A minimal consumer `BUILD` file")[0]
    program = fenced_blocks(README, "`run_add_mul.py`:")[0]
    bazelrc, bazelignore = fenced_blocks(RULES_DOC, "## CI recipe")[:2]
    return {
        "WORKSPACE": workspace.replace("/path/to/ttl-bazel", str(ROOT)),
        "add_mul.py": operation,
        "BUILD.bazel": build,
        "run_add_mul.py": program,
        ".bazelrc": bazelrc,
        ".bazelignore": bazelignore,
    }


def setup_lines(snippet: str) -> int:
    return sum(1 for line in snippet.splitlines() if line.strip() and not line.startswith("#"))


def test_readme_workspace_setup_is_a_few_lines():
    workspace = fenced_blocks(README, "## Using the rules from another repository")[0]
    assert setup_lines(workspace) <= 3, workspace
    assert "ttl_bazel_dependencies()" in workspace


@pytest.fixture(scope="module")
def consumer(tmp_path_factory, bazel_factory):
    ws = tmp_path_factory.mktemp("consumer") / "my_repo"
    ws.mkdir()
    for name, text in consumer_files().items():
        (ws / name).write_text(text)
    bazel = bazel_factory(ws, name="ob_readme")
    first = bazel("test", "//...", as_user=True)
    return ws, bazel, first


def test_bazel_test_passes_in_the_readme_workspace(consumer):
    _, _, first = consumer
    assert first.returncode == 0, first.stderr
    for test in TESTS:
        assert re.search(rf"^{re.escape(test)}\s+PASSED", first.stdout, re.M), first.stdout


def readme_run_command() -> list[str]:
    """The README's `ttl run` command line, with this checkout for /path/to/ttl-bazel."""
    (command,) = fenced_blocks(README, "`run_add_mul.py`:")[1].splitlines()
    return command.replace("/path/to/ttl-bazel", str(ROOT)).split()


def test_the_readme_ttl_run_command_runs_the_operation(consumer, tmp_path):
    ws, _, _ = consumer
    env = dict(os.environ, TTL_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run(
        readme_run_command(), cwd=ws, capture_output=True, text=True, check=False, env=env
    )
    assert proc.returncode == 0, proc.stderr
    match = re.fullmatch(r"max \|y - reference\| = (\S+)\n", proc.stdout)
    assert match, proc.stdout
    assert float(match[1]) < 0.05


def test_test_results_stay_cached_when_path_changes(consumer, tmp_path):
    _, bazel, first = consumer
    assert first.returncode == 0, first.stderr
    other_path = f"{tmp_path}:{os.environ['PATH']}"
    again = bazel("test", "//...", env={"PATH": other_path}, as_user=True)
    assert again.returncode == 0, again.stderr
    for test in TESTS:
        assert re.search(rf"^{re.escape(test)}\s+\(cached\) PASSED", again.stdout, re.M), (
            again.stdout + again.stderr
        )


def test_second_output_base_loads_next_to_the_first_ones_links(consumer, bazel_factory):
    ws, _, first = consumer
    assert first.returncode == 0, first.stderr
    assert (ws / "bazel-my_repo").is_symlink(), "the first build made no convenience links"
    second = bazel_factory(ws, name="ob_readme_2")
    result = second("query", "//...")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == [
        "//:add_mul",
        "//:add_mul_bundle_test",
        "//:add_mul_test",
        "//:add_mul_test_attributes",
    ]


def _unused_port() -> int:
    with socket.socket() as s:  # bound, never listening, then released
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_http_cache_warns_and_builds_locally(consumer, tmp_path):
    """An HTTP cache that is down: Bazel's warning and a local build, never a wrong output."""
    ws, bazel, first = consumer
    assert first.returncode == 0, first.stderr
    port = _unused_port()
    source = ws / "add_mul.py"
    source.write_text(source.read_text() + "\n# edited: the compile action runs again\n")
    log = tmp_path / "exec.json"
    result = bazel(
        "build",
        "//...",
        f"--remote_cache=http://127.0.0.1:{port}",
        f"--execution_log_json_file={log}",
        as_user=True,
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" in result.stderr and f"127.0.0.1:{port}" in result.stderr
    spawns = read_execution_log(log)
    ran = {s["mnemonic"] for s in spawns if not s["remoteCacheHit"]}
    assert "TtlCompile" in ran


def test_unreachable_grpc_cache_fails_before_any_action(consumer):
    """Bazel 4.2.3 checks a gRPC cache's capabilities first: down, the build stops there."""
    _, bazel, first = consumer
    assert first.returncode == 0, first.stderr
    port = _unused_port()
    result = bazel("build", "//...", f"--remote_cache=grpc://127.0.0.1:{port}", as_user=True)
    assert result.returncode != 0
    assert "Failed to query remote execution capabilities" in result.stderr
    assert f"127.0.0.1:{port}" in result.stderr


@contextmanager
def _silent_server() -> Iterator[int]:
    """A loopback port that accepts connections and never answers (a hung cache)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_silent_http_cache_costs_the_recipes_timeout_then_builds_locally(consumer, tmp_path):
    """A cache that accepts and never answers: the recipe's `--remote_timeout=10`
    (from its `.bazelrc`) bounds every request; Bazel warns and builds locally."""
    ws, bazel, first = consumer
    assert first.returncode == 0, first.stderr
    source = ws / "add_mul.py"
    source.write_text(source.read_text() + "\n# edited again: the compile action runs again\n")
    log = tmp_path / "exec.json"
    with _silent_server() as port:
        start = time.monotonic()
        result = bazel(
            "build",
            "//...",
            f"--remote_cache=http://127.0.0.1:{port}",
            f"--execution_log_json_file={log}",
            as_user=True,
            timeout=600,
        )
        elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    assert "WARNING: Reading from Remote Cache" in result.stderr
    assert "timed out" in result.stderr
    ran = {s["mnemonic"] for s in read_execution_log(log) if not s["remoteCacheHit"]}
    assert "TtlCompile" in ran
    # Bazel's default of 60 s per request would take minutes here.
    assert elapsed < 300, f"the build took {elapsed:.0f} s"


def test_bad_action_cache_entries_end_in_a_correct_build(consumer, http_cache, tmp_path):
    """Entries of a cache that damaged its files (docs/rules.md, "Remote cache").

    Garbage (bytes that are no ActionResult) is a miss: Bazel warns, builds
    locally and uploads over it. An empty entry parses as an ActionResult with
    no outputs: each build that reads it fails, until one build with the recipe's
    `--noremote_accept_cached` overwrites it.
    """
    ws, bazel, first = consumer
    assert first.returncode == 0, first.stderr
    cache = f"--remote_cache={http_cache.url}"
    source = ws / "add_mul.py"
    original = source.read_text()

    def build_variant(number: int, *flags: str) -> subprocess.CompletedProcess[str]:
        # A new comment is a new action key; variant 2 between two builds of
        # variant 1 makes the second one look variant 1's outputs up again.
        source.write_text(f"{original}\n# variant {number}\n")
        return bazel("build", "//...", *flags, as_user=True)

    ac = http_cache.cache / "ac"
    before = set(ac.iterdir()) if ac.exists() else set()
    assert build_variant(1, cache).returncode == 0
    entries = sorted(set(ac.iterdir()) - before)
    assert entries, "the build uploaded no action results"

    for entry in entries:
        entry.write_bytes(b"\x00garbage")
    assert build_variant(2).returncode == 0
    log = tmp_path / "exec.json"
    garbage = build_variant(1, cache, f"--execution_log_json_file={log}")
    assert garbage.returncode == 0, garbage.stderr
    assert "WARNING: Reading from Remote Cache" in garbage.stderr
    ran = {s["mnemonic"] for s in read_execution_log(log) if not s["remoteCacheHit"]}
    assert "TtlCompile" in ran
    assert all(entry.read_bytes() != b"\x00garbage" for entry in entries)

    for entry in entries:
        entry.write_bytes(b"")
    assert build_variant(2).returncode == 0
    broken = build_variant(1, cache)
    assert broken.returncode != 0, "Bazel read empty entries and built: update docs/rules.md"
    assert "was not created" in broken.stderr
    recovery = build_variant(1, cache, "--noremote_accept_cached")
    assert recovery.returncode == 0, recovery.stderr
    assert all(entry.stat().st_size > 0 for entry in entries)
