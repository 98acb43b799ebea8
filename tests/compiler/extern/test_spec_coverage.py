"""docs/spec-coverage.md names only tests that exist, and every row names at least one."""

from __future__ import annotations

import itertools
import re

from extern_testlib import REPO

DOC = REPO / "docs" / "spec-coverage.md"
# Test-file prefixes, relative to tests/: the extern and kernel suites (the external-functions
# spec), the compiler's own tests and the JIT runs (the TT-Lang v0.21 part).
DIRS = {"E": "compiler/extern", "K": "compiler/kernels", "C": "compiler", "R": "runtime/jit"}
HEADERS = (["Spec sentence", "Tests"], ["Requirement", "Tests"])


def _cells(line: str) -> list[str]:
    """The cells of a table line (``\\|`` inside a cell is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _rows() -> list[str]:
    """Table body rows (a header row is the one followed by the ``| ---`` separator)."""
    lines = DOC.read_text().splitlines()
    return [
        line
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("| ") and not line.startswith("| ---") and not after.startswith("| ---")
    ]


def test_tables_parse():
    """The checks below are not vacuous: the doc's tables parse, with the expected columns."""
    lines = DOC.read_text().splitlines()
    headers = [line for line, after in itertools.pairwise(lines) if after.startswith("| ---")]
    sections = [line for line in lines if line.startswith("## ")]
    assert len(headers) == len(sections) >= 9, (headers, sections)
    assert all(_cells(h) in HEADERS for h in headers), headers
    rows = _rows()
    assert len(rows) >= 100, len(rows)
    assert all(len(_cells(row)) == 2 and all(_cells(row)) for row in rows), [
        row for row in rows if len(_cells(row)) != 2 or not all(_cells(row))
    ]


def test_every_row_names_a_test_or_example_run():
    for row in _rows():
        tests = row.rsplit(" | ", 1)[1]
        assert re.search(r"test_\w+|run\[", tests), row


def test_every_named_test_exists():
    missing = []
    checked = 0
    for row in _rows():
        tests = row.rsplit(" | ", 1)[1]
        current = None
        for prefix, path, names in re.findall(
            r"(?:([EKCR]):(test_\w+\.py))?((?:::test_\w+)+)", tests
        ):
            if prefix:
                current = REPO / "tests" / DIRS[prefix] / path
            assert current is not None, row
            text = current.read_text()
            for name in names.split("::")[1:]:
                checked += 1
                if f"def {name}(" not in text:
                    missing.append(f"{current.name}::{name}")
        for prefix, path in re.findall(r"([EKCR]):(test_\w+\.py)", tests):
            assert (REPO / "tests" / DIRS[prefix] / path).exists(), path
    assert not missing
    assert checked >= 100, checked  # the test names were found
