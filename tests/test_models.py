"""The meaning the shared records carry: a tally's majority, and how statuses gate a run."""

from __future__ import annotations

import pytest

from activation._models import gate
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally


@pytest.mark.parametrize(
    ("activated", "valid", "verdict"),
    [(2, 3, True), (1, 3, False), (2, 4, None), (0, 0, None), (3, 3, True), (0, 3, False)],
)
def test_majority(activated: int, valid: int, verdict: bool | None) -> None:
    assert tally(activated, valid).verdict is verdict


def test_exit_code_precedence() -> None:
    regressed = judge(POSITIVE, tally(3, 3), tally(0, 3), 0.05)
    errored = judge(NEGATIVE, tally(0, 3), tally(0, 2, errors=1), 0.05)
    passed = judge(NEGATIVE, tally(0, 3), tally(0, 3), 0.05)
    assert gate(v.status for v in [passed]) == 0
    assert gate(v.status for v in [passed, errored]) == 3
    assert gate(v.status for v in [errored, regressed]) == 1
