"""Shared fixtures of the `ttl` command-line tests: a JIT cache and a `ttl run` runner."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One JIT cache per test module: later tests reuse earlier ones' compiled bundles."""
    return tmp_path_factory.mktemp("ttl-cache")


@pytest.fixture
def ttl_run(cache_dir, tmp_path):
    """``run(*args, cmd=..., env=None, timeout=300)``: ``ttl run ARGS`` in ``tmp_path``
    with the module's cache; returns (exit code, stdout, stderr). ``env`` sets
    variables (a None value unsets one); ``cmd`` replaces ``python -m ttl.host.cli``."""

    def run(*args, cmd=(sys.executable, "-m", "ttl.host.cli"), env=None, timeout=300):
        environ = dict(os.environ, TTL_CACHE_DIR=str(cache_dir))
        for name, value in (env or {}).items():
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value
        proc = subprocess.run(
            [*cmd, "run", *map(str, args)],
            capture_output=True,
            text=True,
            check=False,
            env=environ,
            cwd=tmp_path,
            timeout=timeout,
        )
        return proc.returncode, proc.stdout, proc.stderr

    return run
