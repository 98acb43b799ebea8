"""The campaign's fixtures, and its totals by outcome class at the end of the run."""

from __future__ import annotations

import collections

import pytest


@pytest.fixture(scope="module")
def campaign_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TTL_CACHE_DIR", str(tmp_path_factory.mktemp("campaign-cache")))
        yield tmp_path_factory.mktemp("campaign")


def pytest_terminal_summary(terminalreporter):
    from campaign import CLEAN, OUTCOMES

    if not OUTCOMES:
        return
    counts = collections.Counter(OUTCOMES.values())
    clean = sum(n for kind, n in counts.items() if kind in CLEAN)
    terminalreporter.write_sep("-", "bad-input campaign")
    for kind, n in sorted(counts.items(), key=lambda kv: (kv[0] not in CLEAN, kv[0])):
        terminalreporter.write_line(f"{kind:24s} {n:4d}{'' if kind in CLEAN else '  (NOT CLEAN)'}")
    terminalreporter.write_line(f"{'clean':24s} {clean:4d} of {len(OUTCOMES)}")
