"""Driving the real Bazel (Debian's 4.2.3) and real remote caches from tests.

The caches: an HTTP cache (nginx with WebDAV PUT) and a gRPC (REAPI) one
(BuildGrid 0.4.4 from .venv-buildgrid, which tools/setup.sh creates).

Shared by tests/integration and tests/rules. Bazel runs get private output
bases in tmp (their own servers, shut down by the fixtures), never create
`bazel-*` symlinks in the workspace and never edit the checkout.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Quiet, relocatable builds: no convenience symlinks, no sandbox debug logs
# (Debian's /etc/bazel/bazelrc turns --sandbox_debug on).
BUILD_FLAGS = ("--symlink_prefix=/", "--nosandbox_debug")


class Bazel:
    """`bazel` on one workspace with a private output base (its own server)."""

    def __init__(self, workspace: pathlib.Path, output_base: pathlib.Path):
        self.workspace = workspace
        self.output_base = output_base

    def __call__(
        self,
        command: str,
        *args: str,
        env: dict[str, str] | None = None,
        timeout: int = 900,
        as_user: bool = False,
    ) -> subprocess.CompletedProcess:
        """Runs `bazel <command> <args>`; `as_user`: without BUILD_FLAGS (links and rc as is)."""
        quiet = command in ("build", "test", "run") and not as_user
        extra = BUILD_FLAGS if quiet else ()
        return subprocess.run(
            ["bazel", f"--output_base={self.output_base}", command, *extra, *args],
            cwd=self.workspace,
            check=False,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def build(self, *args: str, log: pathlib.Path | None = None, **kwargs):
        """Builds; returns (result, spawns) with the executed spawns of the execution log."""
        flags = list(args)
        if log is not None:
            flags.append(f"--execution_log_json_file={log}")
        result = self("build", *flags, **kwargs)
        spawns = read_execution_log(log) if log is not None and log.exists() else []
        return result, spawns

    def bin_dir(self) -> pathlib.Path:
        return self.output_base / "execroot" / "ttl_bazel" / "bazel-out" / "k8-fastbuild" / "bin"

    def shutdown(self) -> None:
        subprocess.run(
            ["bazel", f"--output_base={self.output_base}", "shutdown"],
            cwd=self.workspace,
            check=False,
            capture_output=True,
            timeout=120,
        )


def read_execution_log(path: pathlib.Path) -> list[dict]:
    """The SpawnExec records of `--execution_log_json_file` (concatenated JSON objects)."""
    text = path.read_text()
    decoder = json.JSONDecoder()
    spawns, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return spawns
        record, pos = decoder.raw_decode(text, pos)
        spawns.append(record)


def tree_digest(root: pathlib.Path) -> dict[str, bytes]:
    """Relative path -> content of every file under `root`."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def example_bundles(bazel: Bazel) -> dict[str, dict[str, bytes]]:
    """Every bundle under bazel-bin/examples (relative path -> its files' contents)."""
    root = bazel.bin_dir() / "examples"
    # every package under examples/, keyed by relative path; test runfiles
    # trees hold links to the same bundles and are skipped
    found = {
        str(p.relative_to(root)): tree_digest(p)
        for p in sorted(root.rglob("*.bundle"))
        if not any(part.endswith(".runfiles") for part in p.relative_to(root).parts)
    }
    assert found, f"no bundles under {root}"
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx serving a WebDAV (PUT) folder on loopback: a Bazel HTTP cache."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        self.cache = root / "cache"
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> str:
        temp = {name: self.root / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
        # Workers must be able to write the cache: as root they would switch to
        # `nobody`, so keep them as the test's user.
        user = "user root;\n" if os.geteuid() == 0 else ""
        return f"""{user}worker_processes 1;
daemon off;
pid {self.root}/nginx.pid;
error_log {self.root}/error.log warn;
events {{ worker_connections 128; }}
http {{
    access_log {self.root}/access.log;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    server {{
        listen 127.0.0.1:{self.port};
        root {self.cache};
        location / {{
            dav_methods PUT;
            create_full_put_path on;
            client_max_body_size 0;
        }}
    }}
}}
"""

    def start(self) -> None:
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx):
            pytest.fail("nginx is not installed: run tools/setup.sh")
        self.cache.mkdir(parents=True)
        conf = self.root / "nginx.conf"
        conf.write_text(self.config())
        self.proc = subprocess.Popen(
            [nginx, "-p", str(self.root), "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.proc.stderr.read().decode()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError("nginx did not start listening")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _wait_listening(
    proc: subprocess.Popen, port: int, what: str, log: pathlib.Path, timeout: float
):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited:\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not start listening in {timeout:.0f} s:\n{log.read_text()}")


class BuildGrid:
    """BuildGrid's `bgd server start` on loopback: a gRPC (REAPI) cache for Bazel.

    Disk CAS, an in-memory LRU action cache, no authorization; the CAS,
    ByteStream and ActionCache services of the default (empty) instance name.
    """

    BGD = ROOT / ".venv-buildgrid" / "bin" / "bgd"

    def __init__(self, root: pathlib.Path):
        self.root = root
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"grpc://127.0.0.1:{self.port}"

    def config(self) -> str:
        return f"""server:
  - !channel
    address: "127.0.0.1:{self.port}"
    insecure-mode: true
authorization:
  method: none
storages:
  - !disk-storage &cas
    path: {self.root / "cas"}
caches:
  - !lru-action-cache &action-cache
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: ""
    services:
      - !action-cache
        cache: *action-cache
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
"""

    def start(self) -> None:
        if not self.BGD.exists():
            pytest.fail(f"{self.BGD} is missing: run tools/setup.sh (it creates .venv-buildgrid)")
        conf = self.root / "bgd.yml"
        conf.write_text(self.config())
        log = self.root / "bgd.log"
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [str(self.BGD), "server", "start", str(conf)], stdout=out, stderr=subprocess.STDOUT
            )
        _wait_listening(self.proc, self.port, "bgd server", log, timeout=120)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
