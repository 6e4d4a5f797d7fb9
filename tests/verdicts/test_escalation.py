"""The escalation decision, case by case, against values worked out by hand."""

from __future__ import annotations

import pytest

from activation._models import Case, Tally
from activation.verdicts.escalation import Escalation, split_tie
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
        ((3, 3), (2, 3), 3),  # any drop at 3 trials (p = 0.344 < 0.35)
        ((2, 3), (1, 3), 3),  # p = 0.344
        ((3, 3), (0, 3), 3),  # a lone unanimous flip is not significant yet: more trials
        ((2, 3), (2, 3), 3),  # a tie on split votes may hide a drop
        ((1, 3), (1, 3), 3),
        ((3, 3), (1, 3), 3),
        ((2, 3), (3, 3), 0),  # better by one vote (p = 0.344): a gain must be clearer
        ((1, 3), (3, 3), 3),  # p = 0.109 < 0.11
        ((0, 3), (3, 3), 3),
    ],
)
def test_after_the_first_round(
    baseline: tuple[int, int], candidate: tuple[int, int], more: int
) -> None:
    assert DEFAULT.next_round(POSITIVE, tally(*baseline), tally(*candidate)) == more


def test_a_unanimous_first_round_of_one_is_not_fragile() -> None:
    one = Escalation(first=1, max_trials=30, alpha=0.05, cases=40)
    assert one.next_round(POSITIVE, tally(1, 1), tally(1, 1)) == 0
    assert one.next_round(POSITIVE, tally(0, 1), tally(0, 1)) == 0
    assert one.next_round(POSITIVE, tally(1, 1), tally(0, 1)) == 3  # p = 0.25


def test_after_the_first_round_of_five() -> None:
    five = Escalation(first=5, max_trials=30, alpha=0.05, cases=40)
    assert five.next_round(POSITIVE, tally(5, 5), tally(4, 5)) == 0  # p = 0.377: no signal
    assert five.next_round(POSITIVE, tally(5, 5), tally(3, 5)) == 3  # p = 0.094
    assert five.next_round(POSITIVE, tally(4, 5), tally(4, 5)) == 3  # a tie on split votes
    assert five.next_round(POSITIVE, tally(5, 5), tally(5, 5)) == 0


def test_later_rounds_stop_when_the_rates_so_far_could_not_become_significant() -> None:
    # The rates carried to 30 trials, Boschloo's p of that table times the 40 cases:
    assert DEFAULT.next_round(POSITIVE, tally(6, 6), tally(3, 6)) == 3  # 30 v 15: 3.3e-5
    assert DEFAULT.next_round(POSITIVE, tally(11, 12), tally(6, 12)) == 3  # 28 v 15: 0.0033
    assert DEFAULT.next_round(POSITIVE, tally(5, 6), tally(4, 6)) == 0  # 25 v 20: 3.1
    assert DEFAULT.next_round(POSITIVE, tally(10, 12), tally(7, 12)) == 0  # 25 v 18: 1.04
    assert DEFAULT.next_round(POSITIVE, tally(20, 24), tally(15, 24)) == 0  # 25 v 19: 1.85
    assert DEFAULT.next_round(POSITIVE, tally(2, 6), tally(5, 6)) == 3  # better, 10 v 25
    assert DEFAULT.next_round(POSITIVE, tally(5, 6), tally(6, 6)) == 0  # better, 25 v 30: 0.55
    assert DEFAULT.next_round(POSITIVE, tally(4, 6), tally(4, 6)) == 0  # a later tie


def test_a_case_significant_on_its_own_stops() -> None:
    # 9 of 9 against 0 of 9: p = 3.8e-6, times 40 cases is below 0.001.
    assert DEFAULT.next_round(POSITIVE, tally(9, 9), tally(0, 9)) == 0
    wide = Escalation(first=3, max_trials=30, alpha=0.05, cases=400)
    assert wide.next_round(POSITIVE, tally(9, 9), tally(0, 9)) == 3


def test_negatives_count_correct_answers_not_activations() -> None:
    """For a negative the correct answer is not activating: 0/3 -> 3/3 is a full drop."""
    never, always = Tally(0, 3, 0, correct=3), Tally(3, 3, 0, correct=0)
    assert DEFAULT.next_round(NEGATIVE, never, always) == 3
    assert DEFAULT.next_round(NEGATIVE, always, never) == 3  # it stopped firing: better
    assert DEFAULT.next_round(NEGATIVE, never, never) == 0


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


def test_split_ties() -> None:
    assert [split_tie(tally(k, 3), tally(k, 3)) for k in range(4)] == [False, True, True, False]
    assert not split_tie(tally(2, 3), tally(1, 3))
    assert not split_tie(tally(3, 3), tally(0, 3))  # unanimous on both sides, but no tie


def test_q_values_are_benjamini_hochberg() -> None:
    p_values: list[float | None] = [0.0156, 0.0156, 0.109, None, 0.5, 0.0001, 1.0]
    # scipy is the independent reference: the product's BH is plain Python now, and a copy
    # of it here could not fail.
    from scipy.stats import false_discovery_control

    as_numbers = [1.0 if p is None else p for p in p_values]
    expected = [float(q) for q in false_discovery_control(as_numbers, method="bh")]
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
