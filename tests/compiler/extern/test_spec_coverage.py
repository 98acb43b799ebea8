"""docs/spec-coverage.md names only tests that exist, and every row names at least one."""

from __future__ import annotations

import re

from extern_testlib import REPO

DOC = REPO / "docs" / "spec-coverage.md"
DIRS = {"E": "extern", "K": "kernels"}


def _rows() -> list[str]:
    """Table body rows (a header row is the one followed by the ``| ---`` separator)."""
    lines = DOC.read_text().splitlines()
    return [
        line
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("| ") and not line.startswith("| ---") and not after.startswith("| ---")
    ]


def test_every_row_names_a_test_or_example_run():
    for row in _rows():
        tests = row.rsplit(" | ", 1)[1]
        assert re.search(r"test_\w+|run\[", tests), row


def test_every_named_test_exists():
    missing = []
    for row in _rows():
        tests = row.rsplit(" | ", 1)[1]
        current = None
        for prefix, path, names in re.findall(
            r"(?:([EK]):(test_\w+\.py))?((?:::test_\w+)+)", tests
        ):
            if prefix:
                current = REPO / "tests" / "compiler" / DIRS[prefix] / path
            assert current is not None, row
            text = current.read_text()
            for name in names.split("::")[1:]:
                if f"def {name}(" not in text:
                    missing.append(f"{current.name}::{name}")
        for prefix, path in re.findall(r"([EK]):(test_\w+\.py)", tests):
            assert (REPO / "tests" / "compiler" / DIRS[prefix] / path).exists(), path
    assert not missing
