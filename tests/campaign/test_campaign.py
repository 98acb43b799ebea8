"""The bad-input campaign: every case ends clean (issue 17).

A clean end is the reference result, or a located error of ours with no
traceback; never a silent or wrong result, an unlocated error, a foreign
exception or a hang. The cases are in ``cases.py`` (programs broken by
mutations of ``bases.py``, runtime faults, bad host calls, valid controls);
the totals by outcome class print at the end of the run.
"""

from __future__ import annotations

import pytest
from campaign import OUTCOMES, run_case
from cases import all_cases

CASES = all_cases()


def test_the_campaign_has_at_least_300_cases():
    assert len(CASES) >= 300
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_ends_clean(case, campaign_dir):
    outcome = run_case(case, campaign_dir)
    OUTCOMES[case.id] = outcome.kind
    assert outcome.clean, f"{case.id}: {outcome.kind}\n{outcome.detail}"
