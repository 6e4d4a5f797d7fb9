"""Suite figures: recall and false positives over the cases with a majority, and the Wilson
interval."""

from __future__ import annotations

import pytest

from activation._models import Case
from activation.verdicts.figures import figures, rate
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally


def test_figures_leave_out_error_cases_and_ties() -> None:
    other = Case("pos2", "sso please", True, "auth", ())
    tie = Case("pos3", "mfa", True, "auth", ())
    verdicts = (
        judge(POSITIVE, tally(3, 3), tally(0, 3), 0.05),
        judge(other, tally(3, 3), tally(0, 0, errors=3), 0.05),
        judge(tie, tally(1, 2), tally(2, 2), 0.05),
        judge(NEGATIVE, tally(0, 3), tally(3, 3), 0.05),
    )
    base = figures(verdicts, "baseline", with_interval=True)
    cand = figures(verdicts, "candidate", with_interval=True)
    assert (base.recall.hits, base.recall.total) == (1, 1)
    assert (cand.recall.hits, cand.recall.total) == (1, 2)
    assert (base.false_positives.hits, base.false_positives.total) == (0, 1)
    assert (cand.false_positives.hits, cand.false_positives.total) == (1, 1)


def test_wilson_interval_matches_the_formula() -> None:
    value = rate(3, 4, with_interval=True)
    z = 1.959963984540054
    n, p = 4, 0.75
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5)
    assert value.interval == pytest.approx((centre - half, centre + half), abs=1e-9)
    assert rate(3, 4, with_interval=False).interval is None
    assert rate(0, 0, with_interval=True).interval is None
