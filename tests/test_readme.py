"""The README is the front door (issue 27): short, with the two commands and the example.

The example's WORKSPACE, operation, BUILD file and `ttl run` command are run
verbatim by tests/rules/test_consumer_readme.py.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_reads_in_two_minutes() -> None:
    words = len(README.read_text(encoding="utf-8").split())
    assert words < 800, f"README.md has {words} words; move detail into docs/"


def test_the_readme_gives_the_two_commands_first() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    assert blocks[:2] == ["tools/setup.sh && tools/demo.sh\n", "tools/test.sh\n"]


def test_the_status_table_lives_in_docs() -> None:
    text = README.read_text(encoding="utf-8")
    assert "| Capability |" not in text
    assert "(docs/status.md)" in text
    status = (README.parent / "docs" / "status.md").read_text(encoding="utf-8")
    rows = [line for line in status.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) > 10
    for row in rows[1:]:
        assert len(row) < 260, f"a status row is one line: {row[:80]}..."
        assert "](" in row.rsplit("|", 2)[-2], f"a status row links its doc: {row[:80]}"
