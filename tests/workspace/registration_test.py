"""WORKSPACE (Bazel 4.2.3, offline) and MODULE.bazel (Bazel 7+) stay consistent.

MODULE.bazel cannot run on this machine's Bazel, so this test parses both
files (Starlark's syntax is a subset of Python's) and compares what they
register and which lock file they read.
"""

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The Python toolchain differs by design: WORKSPACE registers ours (built from
# the lock), MODULE.bazel uses rules_python's `python.toolchain`.
WORKSPACE_ONLY_TOOLCHAINS = {"@ttl_pip//:python_toolchain"}


def calls(path: pathlib.Path, function: str) -> list[ast.Call]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name == function:
                found.append(node)
    return found


def registered_toolchains(path: pathlib.Path) -> set[str]:
    return {
        ast.literal_eval(arg) for call in calls(path, "register_toolchains") for arg in call.args
    }


def lock_files(path: pathlib.Path) -> set[str]:
    return {
        ast.literal_eval(keyword.value)
        for function in ("ttl_python_repository", "parse")
        for call in calls(path, function)
        for keyword in call.keywords
        if keyword.arg == "requirements_lock"
    }


def test_same_device_toolchains_registered():
    workspace = registered_toolchains(ROOT / "WORKSPACE") - WORKSPACE_ONLY_TOOLCHAINS
    module = registered_toolchains(ROOT / "MODULE.bazel")
    assert workspace == module
    assert "//toolchains/device:riscv_gcc_toolchain" in module


def ordered_registrations(path: pathlib.Path) -> list[str]:
    return [
        ast.literal_eval(arg) for call in calls(path, "register_toolchains") for arg in call.args
    ]


def test_fallback_device_toolchain_registered_last_in_both():
    """It matches every platform, so anything registered after it would never be chosen."""
    for path in (ROOT / "WORKSPACE", ROOT / "MODULE.bazel"):
        assert ordered_registrations(path)[-1] == "//toolchains/device:no_device_toolchain", path


def test_workspace_registers_the_python_toolchain():
    assert registered_toolchains(ROOT / "WORKSPACE") >= WORKSPACE_ONLY_TOOLCHAINS


def test_same_lock_file():
    workspace = lock_files(ROOT / "WORKSPACE")
    module = lock_files(ROOT / "MODULE.bazel")
    assert workspace == module == {"//:requirements.lock"}


def test_same_pip_hub_name():
    """BUILD files say `@ttl_pip//numpy` under both systems."""
    workspace = {
        ast.literal_eval(k.value)
        for c in calls(ROOT / "WORKSPACE", "ttl_python_repository")
        for k in c.keywords
        if k.arg == "name"
    }
    module = {
        ast.literal_eval(k.value)
        for c in calls(ROOT / "MODULE.bazel", "parse")
        for k in c.keywords
        if k.arg == "hub_name"
    }
    assert workspace == module == {"ttl_pip"}


def test_module_depends_on_real_rule_sets():
    deps = {
        ast.literal_eval(k.value)
        for c in calls(ROOT / "MODULE.bazel", "bazel_dep")
        for k in c.keywords
        if k.arg == "name"
    }
    assert {"rules_python", "rules_cc", "platforms"} <= deps


def test_device_repository_created_in_both():
    assert calls(ROOT / "WORKSPACE", "ttl_device_cxx_repository")
    use_repo_args = {
        ast.literal_eval(a) for c in calls(ROOT / "MODULE.bazel", "use_repo") for a in c.args[1:]
    }
    assert "ttl_device_cxx" in use_repo_args


def test_tt_metal_repository_created_in_both():
    (call,) = calls(ROOT / "WORKSPACE", "ttl_tt_metal_repository")
    assert [ast.literal_eval(k.value) for k in call.keywords if k.arg == "name"] == ["tt_metal"]
    use_repo_args = {
        ast.literal_eval(a) for c in calls(ROOT / "MODULE.bazel", "use_repo") for a in c.args[1:]
    }
    assert "tt_metal" in use_repo_args


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
