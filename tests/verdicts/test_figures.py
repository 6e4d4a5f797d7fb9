"""Suite figures: recall and false positives over the cases with evidence (a tie is evidence
and counts as not activated), and the Wilson interval."""

from __future__ import annotations

import pytest

from activation._models import Case
from activation.verdicts.figures import Count, figures, interval
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally


def test_figures_leave_out_error_cases_and_count_a_tie_as_not_activated() -> None:
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
    # The baseline's tie (1 of 2) is a positive it missed; the error case is left out.
    assert base.recall == Count(1, 2)
    assert cand.recall == Count(1, 2)
    assert base.false_positives == Count(0, 1)
    assert cand.false_positives == Count(1, 1)


def test_a_tied_negative_is_evidence_and_no_false_positive() -> None:
    verdicts = (judge(NEGATIVE, tally(1, 2), tally(0, 2), 0.05),)
    assert figures(verdicts, "baseline", with_interval=False).false_positives == Count(0, 1)


def test_wilson_interval_matches_the_formula() -> None:
    value = interval(Count(3, 4), with_interval=True)
    z = 1.959963984540054
    n, p = 4, 0.75
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5)
    assert value == pytest.approx((centre - half, centre + half), abs=1e-9)
    assert interval(Count(3, 4), with_interval=False) is None
    assert interval(Count(0, 0), with_interval=True) is None
