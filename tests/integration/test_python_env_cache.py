"""The shared Python environment of ttl_python_repository (toolchains/python/install_env.py).

A second output base (or workspace) with the same lock and interpreter links
the cached environment instead of running pip; a half-built entry is
rebuilt; an unusable cache falls back to a local install.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import pytest
from bazel_harness import ROOT

_spec = importlib.util.spec_from_file_location(
    "install_env", ROOT / "toolchains" / "python" / "install_env.py"
)
assert _spec is not None and _spec.loader is not None
install_env = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_env)

PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def small_lock(tmp_path_factory):
    """One hash-locked package of requirements.lock (absl-py): a quick real install."""
    text = (ROOT / "requirements.lock").read_text()
    block = re.search(r"^absl-py==.*?(?=^\S)", text, re.S | re.M)
    assert block, "absl-py is not in requirements.lock"
    lock = tmp_path_factory.mktemp("lock") / "requirements.lock"
    lock.write_text(block.group(0))
    return lock


def site_packages(venv) -> list:
    return list(venv.glob("lib/python3.*/site-packages/absl"))


def test_second_output_base_links_the_cached_environment(small_lock, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first, second = tmp_path / "ob1" / "venv", tmp_path / "ob2" / "venv"
    first.parent.mkdir()
    second.parent.mkdir()
    args = ["--python", PYTHON, "--lock", str(small_lock), "--cache", str(cache)]
    assert install_env.main([*args, "--venv", str(first)]) == 0
    assert first.is_symlink() and site_packages(first)

    def no_pip(*_args, **_kwargs):
        raise AssertionError("pip ran again for a cached environment")

    monkeypatch.setattr(install_env, "install", no_pip)
    assert install_env.main([*args, "--venv", str(second)]) == 0
    assert second.resolve() == first.resolve()
    assert [p.name for p in cache.iterdir()] == [first.resolve().parent.name]  # no leftovers


def test_half_built_entry_is_rebuilt(small_lock, tmp_path):
    cache = tmp_path / "cache"
    key = install_env.cache_key(PYTHON, str(small_lock))
    (cache / key / "venv").mkdir(parents=True)  # no `complete` marker: a killed build
    venv = install_env.cached(PYTHON, str(small_lock), str(cache))
    assert (cache / key / install_env.COMPLETE).is_file()
    assert site_packages(pathlib.Path(venv))


def test_unusable_cache_falls_back_to_a_local_install(small_lock, tmp_path, capsys):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    venv = tmp_path / "venv"
    code = install_env.main(
        [
            "--python",
            PYTHON,
            "--lock",
            str(small_lock),
            "--cache",
            str(blocker / "c"),
            "--venv",
            str(venv),
        ]
    )
    assert code == 0
    assert not venv.is_symlink() and site_packages(venv)
    assert f"cannot use the cache {blocker / 'c'}" in capsys.readouterr().out


def test_key_depends_on_the_lock_and_the_interpreter(tmp_path):
    a, b = tmp_path / "a.lock", tmp_path / "b.lock"
    a.write_text("x==1\n")
    b.write_text("x==2\n")
    assert install_env.cache_key(PYTHON, str(a)) != install_env.cache_key(PYTHON, str(b))
    assert install_env.cache_key(PYTHON, str(a)) != install_env.cache_key(
        sys.executable + "x", str(a)
    )
