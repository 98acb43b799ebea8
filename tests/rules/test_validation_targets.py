"""The rules' analysis-time target table agrees with the compiler's (ttl/targets.py)."""

import ast

from bazel_harness import ROOT

from ttl.targets import TARGETS


def test_starlark_target_grids_are_the_slot_tables():
    source = (ROOT / "ttl/rules/private/validation.bzl").read_text()
    tree = ast.parse(source)
    grids = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "TARGET_GRIDS"
    )
    assert grids == {name: target.full_grid for name, target in TARGETS.items()}


def test_starlark_dtypes_are_the_spec_dtypes():
    from ttl.specs import _DTYPE_ALIASES

    source = (ROOT / "ttl/rules/private/validation.bzl").read_text()
    dtypes = next(
        ast.literal_eval(node.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_DTYPES"
    )
    assert sorted(dtypes) == sorted(_DTYPE_ALIASES)
