"""The meaning the shared records carry: a tally's majority, and how statuses gate a run."""

from __future__ import annotations

import pytest

from activation._models import Case, TrialKey, gate
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


# --- where a case's prompt should go ---------------------------------------------------

TARGET = "p:deploy"
LEGACY_POSITIVE = Case("a", "ship it", True, "w")
LEGACY_NEGATIVE = Case("b", "undo it", False, "w")
TO_SIBLING = Case("c", "undo it", False, "w", expect=("p:rollback",))
TO_EITHER = Case("d", "ship or undo", True, "w", expect=("p:deploy", "p:rollback"))
TO_NONE = Case("e", "hello", False, "w", expect=())
STRICT = Case("f", "ship it", True, "w", expect=("p:deploy",), must_not=("p:legacy",))


@pytest.mark.parametrize(
    ("case", "chose", "right"),
    [
        (LEGACY_POSITIVE, ("p:deploy",), True),
        (LEGACY_POSITIVE, ("p:rollback", "p:deploy"), True),  # anywhere, as it always was
        (LEGACY_POSITIVE, ("p:rollback",), False),
        (LEGACY_POSITIVE, (), False),
        (LEGACY_NEGATIVE, (), True),
        (LEGACY_NEGATIVE, ("p:rollback",), True),
        (LEGACY_NEGATIVE, ("p:rollback", "p:deploy"), False),
        (TO_SIBLING, ("p:rollback",), True),
        (TO_SIBLING, ("p:rollback", "p:deploy"), True),  # the first that fired decides
        (TO_SIBLING, ("p:deploy", "p:rollback"), False),
        (TO_SIBLING, (), False),
        (TO_EITHER, ("p:rollback",), True),
        (TO_EITHER, ("p:deploy",), True),
        (TO_EITHER, ("other",), False),
        (TO_NONE, (), True),
        (TO_NONE, ("p:rollback",), False),
        (STRICT, ("p:deploy",), True),
        (STRICT, ("p:deploy", "p:legacy"), False),  # must_not: anywhere
    ],
)
def test_is_right(case: Case, chose: tuple[str, ...], right: bool) -> None:
    assert case.is_right(chose, TARGET) is right


@pytest.mark.parametrize(
    ("case", "chose", "settled"),
    [
        (LEGACY_POSITIVE, ("p:rollback",), False),  # the target may still fire
        (LEGACY_POSITIVE, ("p:rollback", "p:deploy"), True),
        (LEGACY_NEGATIVE, (), False),
        (TO_SIBLING, (), False),
        (TO_SIBLING, ("p:deploy",), True),
        (TO_NONE, ("x",), True),
        (STRICT, ("p:deploy",), False),  # a must_not may still fire
        (STRICT, ("p:legacy",), True),
    ],
)
def test_settled(case: Case, chose: tuple[str, ...], settled: bool) -> None:
    assert case.settled(chose, TARGET) is settled
    if settled:  # nothing that fires later changes the answer
        assert case.is_right((*chose, "p:deploy"), TARGET) == case.is_right(chose, TARGET)
        assert case.is_right((*chose, "z"), TARGET) == case.is_right(chose, TARGET)


def test_expected_names_the_home_of_a_case() -> None:
    cases = (LEGACY_POSITIVE, LEGACY_NEGATIVE, TO_SIBLING, TO_EITHER, TO_NONE)
    expected = ["p:deploy", "other", "p:rollback", "p:deploy|p:rollback", "none"]
    assert [case.expected(TARGET) for case in cases] == expected


def test_a_trial_records_what_fired_and_whether_it_was_right() -> None:
    trial = TrialKey(TO_SIBLING, "candidate", 1).fired(["p:deploy", "p:rollback"], TARGET)
    assert (trial.chose, trial.activated, trial.correct, trial.reading) == (
        ("p:deploy", "p:rollback"), True, False, "activated",
    )  # fmt: skip
    assert TrialKey(TO_SIBLING, "baseline", 0).failed("boom").correct is None
