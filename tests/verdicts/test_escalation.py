"""The escalation decision, case by case, against values worked out by hand."""

from __future__ import annotations

import pytest

from activation._models import Case, Tally
from activation.verdicts.escalation import Escalation, fragile
from activation.verdicts.judge import q_values

POSITIVE = Case("pos", "add login", True, "needs auth")
NEGATIVE = Case("neg", "rotate my aws keys", False, "cloud IAM")
DEFAULT = Escalation(first=3, max_trials=30, alpha=0.05, cases=40)


def tally(activated: int, valid: int, errors: int = 0) -> Tally:
    return Tally(activated, valid, errors, correct=activated)


@pytest.mark.parametrize(
    ("baseline", "candidate", "more"),
    [
        ((3, 3), (3, 3), 0),  # unanimous and equal: settled
        ((0, 3), (0, 3), 0),
        ((3, 3), (2, 3), 3),  # any difference at 3 trials (p = 0.344 < 0.35)
        ((2, 3), (1, 3), 3),
        ((3, 3), (0, 3), 3),  # a lone unanimous flip is not significant yet: more trials
        ((2, 3), (2, 3), 3),  # equal counts, but each majority rests on one vote
        ((1, 3), (1, 3), 3),
        ((2, 3), (3, 3), 3),  # better looks different too: IMPROVED needs the same evidence
    ],
)
def test_after_the_first_round(
    baseline: tuple[int, int], candidate: tuple[int, int], more: int
) -> None:
    assert DEFAULT.next_round(POSITIVE, tally(*baseline), tally(*candidate)) == more


def test_after_the_first_round_of_five() -> None:
    five = Escalation(first=5, max_trials=30, alpha=0.05, cases=40)
    assert five.next_round(POSITIVE, tally(5, 5), tally(4, 5)) == 0  # p = 0.5: no signal
    assert five.next_round(POSITIVE, tally(5, 5), tally(3, 5)) == 3  # p = 0.22
    assert five.next_round(POSITIVE, tally(4, 5), tally(4, 5)) == 0  # 4 of 5 is no tie away
    assert five.next_round(POSITIVE, tally(3, 5), tally(3, 5)) == 3  # one vote from a tie


def test_later_rounds_keep_going_only_while_the_difference_holds() -> None:
    # At 6 trials the bound is 0.3; at 12 it is 0.075; at 24, 0.019.
    assert DEFAULT.next_round(POSITIVE, tally(6, 6), tally(3, 6)) == 3  # p = 0.035
    assert DEFAULT.next_round(POSITIVE, tally(5, 6), tally(4, 6)) == 0  # p = 0.387
    assert DEFAULT.next_round(POSITIVE, tally(10, 12), tally(7, 12)) == 0  # p = 0.089
    assert DEFAULT.next_round(POSITIVE, tally(11, 12), tally(6, 12)) == 3  # p = 0.026
    assert DEFAULT.next_round(POSITIVE, tally(20, 24), tally(15, 24)) == 0  # p = 0.055


def test_a_case_significant_on_its_own_stops() -> None:
    # 9 of 9 against 0 of 9: p = 3.8e-6, times 40 cases is below 0.001.
    assert DEFAULT.next_round(POSITIVE, tally(9, 9), tally(0, 9)) == 0
    wide = Escalation(first=3, max_trials=30, alpha=0.05, cases=400)
    assert wide.next_round(POSITIVE, tally(9, 9), tally(0, 9)) == 3


def test_negatives_count_correct_answers_not_activations() -> None:
    """For a negative the correct answer is not activating: 0/3 -> 3/3 is a full drop."""
    assert DEFAULT.next_round(NEGATIVE, tally(0, 3), tally(3, 3)) == 3
    assert DEFAULT.next_round(NEGATIVE, tally(0, 3), tally(0, 3)) == 0


def test_the_last_round_is_cut_to_the_maximum_and_errors_stop_at_once() -> None:
    assert DEFAULT.next_round(POSITIVE, tally(27, 28), tally(19, 28)) == 2
    assert DEFAULT.next_round(POSITIVE, tally(30, 30), tally(0, 30)) == 0
    assert DEFAULT.next_round(POSITIVE, tally(3, 3), tally(0, 2, errors=1)) == 0


def test_max_trials_equal_to_trials_turns_escalation_off() -> None:
    off = Escalation(first=3, max_trials=3, alpha=0.05, cases=40)
    assert not off.enabled
    assert off.next_round(POSITIVE, tally(3, 3), tally(0, 3)) == 0
    assert not off.could_be_decided_now(POSITIVE, tally(3, 3), tally(0, 3))


def test_only_a_first_round_below_alpha_waits_for_the_runs_picture() -> None:
    assert DEFAULT.could_be_decided_now(POSITIVE, tally(3, 3), tally(0, 3))  # p = 0.0156
    assert not DEFAULT.could_be_decided_now(POSITIVE, tally(3, 3), tally(1, 3))  # p = 0.109


def test_fragile_majorities() -> None:
    assert [fragile(tally(k, 3)) for k in range(4)] == [False, True, True, False]
    assert [fragile(tally(k, 4)) for k in range(5)] == [False, False, True, False, False]
    assert fragile(tally(0, 0))


def benjamini_hochberg_by_hand(p_values: list[float]) -> list[float]:
    """q_(i) = min over j >= i of p_(j) * m / j, capped at 1, in the original order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        index = order[rank - 1]
        running = min(running, p_values[index] * m / rank)
        q[index] = running
    return q


def test_q_values_are_benjamini_hochberg() -> None:
    p_values: list[float | None] = [0.0156, 0.0156, 0.109, None, 0.5, 0.0001, 1.0]
    as_numbers = [1.0 if p is None else p for p in p_values]
    expected = benjamini_hochberg_by_hand(as_numbers)
    found = q_values(p_values)
    assert found[3] is None
    for index, value in enumerate(found):
        if value is not None:
            assert value == pytest.approx(expected[index], rel=1e-12)
    assert found[5] == pytest.approx(0.0007)
    assert found[0] == pytest.approx(0.0156 * 7 / 3)


def test_a_lone_unanimous_flip_is_not_significant_across_forty_cases() -> None:
    found = q_values([0.015625] + [1.0] * 39)
    assert found[0] == pytest.approx(0.625)


def test_thirty_flips_out_of_ninety_five_are() -> None:
    found = q_values([0.015625] * 30 + [1.0] * 65)
    assert found[0] == pytest.approx(0.015625 * 95 / 30)
    assert found[0] is not None and found[0] < 0.05
