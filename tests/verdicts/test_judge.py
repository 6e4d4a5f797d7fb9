"""The verdict contract: six statuses from the two variants' trials, errors never a vote."""

from __future__ import annotations

import pytest

from activation._models import Case, Status, Tally, TrialKey
from activation.verdicts.judge import Evidence, can_regress, judge_all
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally


def test_unanimous_flip_with_three_trials_is_a_regression() -> None:
    verdict = judge(POSITIVE, tally(3, 3), tally(0, 3), alpha=0.05)
    assert verdict.status is Status.REGRESSED
    assert verdict.p_value == pytest.approx(0.015625)


def test_anything_less_than_unanimous_with_three_trials_is_unstable() -> None:
    verdict = judge(POSITIVE, tally(3, 3), tally(1, 3), alpha=0.05)
    assert verdict.status is Status.UNSTABLE
    assert verdict.p_value == pytest.approx(0.109375)


def test_significant_non_unanimous_change_with_five_trials_regresses() -> None:
    verdict = judge(POSITIVE, tally(5, 5), tally(1, 5), alpha=0.05)
    assert verdict.status is Status.REGRESSED


def test_negative_that_starts_firing_regresses() -> None:
    verdict = judge(NEGATIVE, tally(0, 3), tally(3, 3), alpha=0.05)
    assert verdict.status is Status.REGRESSED
    assert verdict.p_value == pytest.approx(0.015625)


def test_mirror_image_improves() -> None:
    verdict = judge(POSITIVE, tally(0, 3), tally(3, 3), alpha=0.05)
    assert verdict.status is Status.IMPROVED
    assert verdict.p_value == pytest.approx(0.015625)


def test_alpha_is_respected() -> None:
    assert judge(POSITIVE, tally(3, 3), tally(0, 3), alpha=0.01).status is Status.UNSTABLE


def test_can_regress_needs_three_trials_at_the_default_alpha() -> None:
    assert [can_regress(trials, 0.05) for trials in (1, 2, 3, 5)] == [False, False, True, True]
    assert can_regress(3, 0.01) is False
    assert can_regress(4, 0.01) is True


def test_two_trials_flip_is_not_significant() -> None:
    verdict = judge(POSITIVE, tally(2, 2), tally(0, 2), alpha=0.05)
    assert verdict.status is Status.UNSTABLE
    assert verdict.p_value == pytest.approx(0.0625)


def test_pass_fail_and_disagreeing_trials() -> None:
    assert judge(POSITIVE, tally(3, 3), tally(3, 3), 0.05).status is Status.PASS
    assert judge(NEGATIVE, tally(0, 3), tally(0, 3), 0.05).status is Status.PASS
    assert judge(POSITIVE, tally(0, 3), tally(0, 3), 0.05).status is Status.FAIL
    same = judge(POSITIVE, tally(2, 3), tally(2, 3), 0.05)
    assert same.status is Status.UNSTABLE
    assert (same.p_value, same.q_value) == (1.0, 1.0)  # the correct counts did not move


def test_any_error_makes_the_case_error_and_is_not_a_vote() -> None:
    verdict = judge(POSITIVE, tally(3, 3), tally(2, 2, errors=1), 0.05)
    assert verdict.status is Status.ERROR
    assert verdict.candidate.verdict is True


def test_judge_all_groups_trials_and_counts_errors_apart() -> None:
    trials = [TrialKey(POSITIVE, "baseline", i).answer(True) for i in range(3)] + [
        TrialKey(POSITIVE, "candidate", 0).answer(False),
        TrialKey(POSITIVE, "candidate", 1).failed("timed out"),
        TrialKey(POSITIVE, "candidate", 2).answer(False),
    ]
    (verdict,) = judge_all([Evidence(POSITIVE, trials)], 0.05)
    assert verdict.baseline == Tally(3, 3, 0, correct=3)  # which skill fired is not known
    assert verdict.candidate == Tally(0, 2, 1, correct=0, routes={"none": 2})
    assert verdict.status is Status.ERROR


def test_significance_is_judged_across_the_run() -> None:
    """The same unanimous flip regresses when many cases flip together, not on its own among
    forty cases: Benjamini-Hochberg turns p = 0.0156 into q = 0.0156 x 40 / k."""
    cases = [Case(f"c{i}", f"prompt {i}", True, "w") for i in range(40)]

    def evidence(flipped: int) -> list[Evidence]:
        return [
            Evidence(
                case,
                [TrialKey(case, "baseline", i).answer(True) for i in range(3)]
                + [TrialKey(case, "candidate", i).answer(index >= flipped) for i in range(3)],
            )
            for index, case in enumerate(cases)
        ]

    alone = judge_all(evidence(1), 0.05)
    assert alone[0].p_value == pytest.approx(0.015625)
    assert alone[0].q_value == pytest.approx(0.625)
    assert alone[0].status is Status.UNSTABLE
    together = judge_all(evidence(13), 0.05)
    assert together[0].q_value == pytest.approx(0.015625 * 40 / 13)
    assert [v.status for v in together[:13]] == [Status.REGRESSED] * 13
    assert {v.status for v in together[13:]} == {Status.PASS}
