"""Every document the package names exists in the repository.

Compiler hints and docstrings send users to documents ("see docs/language.md");
a renamed or missing document would send them nowhere. This test reads every
string literal in ttl/**/*.py (docstrings, messages, f-string parts) and checks
each ``*.md`` name in it: a path with a directory is relative to the repository
root, a bare file name must exist somewhere in the repository. It also checks
the relative links of README.md and docs/*.md.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MD_NAME = re.compile(r"(?<![\w./-])([\w.-]+(?:/[\w.-]+)*\.md)\b")
MD_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
NOT_SOURCES = {".git", ".venv", "node_modules"}


def _repository_files() -> list[Path]:
    files = []
    for root, dirs, names in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in NOT_SOURCES and not d.startswith("bazel-")]
        files += [Path(root, n) for n in names]
    return files


def md_references(source: str) -> list[tuple[int, str]]:
    """(line, name) for every ``*.md`` name in a string literal of ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [(node.lineno, name) for name in MD_NAME.findall(node.value)]
    return found


def test_md_names_are_found_in_string_literals():
    """The scanner sees docstrings, messages and f-string parts, and ignores comments."""
    source = (
        '"""Module doc (docs/a.md)."""\n'
        "# see docs/comment.md\n"
        'hint = "see docs/language.md for the methods"\n'
        'msg = f"{x}: spec in external-functions.md"\n'
    )
    assert md_references(source) == [
        (1, "docs/a.md"),
        (3, "docs/language.md"),
        (4, "external-functions.md"),
    ]


def test_every_md_named_in_the_package_exists():
    names = {p.name for p in _repository_files() if p.suffix == ".md"}
    checked, missing = 0, []
    for path in sorted((REPO / "ttl").rglob("*.py")):
        for line, name in md_references(path.read_text(encoding="utf-8")):
            checked += 1
            exists = (REPO / name).is_file() if "/" in name else name in names
            if not exists:
                missing.append(f"{path.relative_to(REPO)}:{line}: {name}")
    assert checked >= 10, checked  # the package does name documents (the scan works)
    assert not missing, "documents named in ttl/ that are not in the repository:\n" + "\n".join(
        missing
    )


def test_compiler_hints_name_the_language_reference():
    """The kernel-subset hints point at docs/language.md, which exists."""
    text = (REPO / "ttl" / "compiler" / "frontend" / "kernel.py").read_text(encoding="utf-8")
    assert "docs/language.md" in text and "LANGUAGE.md" not in text
    assert (REPO / "docs" / "language.md").is_file()


def test_relative_links_in_the_docs_exist():
    broken = []
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in MD_LINK.findall(doc.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(REPO)}: {target}")
    assert not broken, "broken relative links:\n" + "\n".join(broken)
