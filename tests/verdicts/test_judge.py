"""The verdict contract, against values computed independently of scipy's Boschloo."""

from __future__ import annotations

from math import comb

import pytest

from activation._models import Case, CaseVerdict, Status, Tally, Trial, TrialKey, gate
from activation.verdicts.figures import figures, rate
from activation.verdicts.judge import can_regress, judge_all
from activation.verdicts.judge import judge as judge_trials
from activation.verdicts.stats import one_sided_p

POSITIVE = Case("pos", "add login", True, "needs auth", ("keyword-loss",))
NEGATIVE = Case("neg", "rotate my aws keys", False, "cloud IAM", ("negative",))


def tally(activated: int, valid: int, errors: int = 0) -> Tally:
    return Tally(activated, valid, errors)


def judge(case: Case, baseline: Tally, candidate: Tally, alpha: float) -> CaseVerdict:
    """The verdict on trials that add up to the two tallies."""
    trials = [
        Trial(TrialKey(case, variant, index), outcome)
        for variant, counts in (("baseline", baseline), ("candidate", candidate))
        for index, outcome in enumerate(
            [True] * counts.activated
            + [False] * (counts.valid - counts.activated)
            + [None] * counts.errors
        )
    ]
    verdict = judge_trials(case, trials, alpha)
    assert (verdict.baseline, verdict.candidate) == (baseline, candidate)
    return verdict


def boschloo_by_hand(x1: int, n1: int, x2: int, n2: int) -> float:
    """Boschloo's one-sided p: max over the nuisance p of P(Fisher p <= observed)."""

    def fisher_greater(a: int, b: int) -> float:
        total = a + b
        return sum(
            comb(n1, i) * comb(n2, total - i)
            for i in range(a, min(n1, total) + 1)
            if 0 <= total - i <= n2
        ) / comb(n1 + n2, total)

    observed = fisher_greater(x1, x2)
    extreme = [
        (i, j)
        for i in range(n1 + 1)
        for j in range(n2 + 1)
        if fisher_greater(i, j) <= observed + 1e-12
    ]
    best = 0.0
    for step in range(1, 2000):
        p = step / 2000
        mass = sum(
            comb(n1, i) * p**i * (1 - p) ** (n1 - i) * comb(n2, j) * p**j * (1 - p) ** (n2 - j)
            for i, j in extreme
        )
        best = max(best, mass)
    return best


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "expected"),
    [(3, 3, 0, 3, 0.015625), (3, 3, 1, 3, 0.109375), (5, 5, 1, 5, 0.0107421875)],
)
def test_one_sided_p_matches_known_values(
    x1: int, n1: int, x2: int, n2: int, expected: float
) -> None:
    assert one_sided_p(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-9)
    assert boschloo_by_hand(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-4)


def test_one_sided_p_by_hand_on_unequal_sizes() -> None:
    assert one_sided_p(4, 4, 1, 5) == pytest.approx(boschloo_by_hand(4, 4, 1, 5), abs=1e-4)


@pytest.mark.parametrize(
    ("activated", "valid", "verdict"),
    [(2, 3, True), (1, 3, False), (2, 4, None), (0, 0, None), (3, 3, True), (0, 3, False)],
)
def test_majority(activated: int, valid: int, verdict: bool | None) -> None:
    assert tally(activated, valid).verdict is verdict


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
    assert same.p_value is None


def test_any_error_makes_the_case_error_and_is_not_a_vote() -> None:
    verdict = judge(POSITIVE, tally(3, 3), tally(2, 2, errors=1), 0.05)
    assert verdict.status is Status.ERROR
    assert verdict.candidate.verdict is True


def key(case: Case, variant: str, index: int) -> TrialKey:
    return TrialKey(case, variant, index)  # type: ignore[arg-type]


def test_judge_all_groups_trials_and_counts_errors_apart() -> None:
    trials = [Trial(key(POSITIVE, "baseline", i), True) for i in range(3)] + [
        Trial(key(POSITIVE, "candidate", 0), False),
        Trial(key(POSITIVE, "candidate", 1), None, error="timed out"),
        Trial(key(POSITIVE, "candidate", 2), False),
    ]
    (verdict,) = judge_all([POSITIVE], trials, 0.05)
    assert verdict.baseline == Tally(3, 3, 0)
    assert verdict.candidate == Tally(0, 2, 1)
    assert verdict.status is Status.ERROR


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


def test_exit_code_precedence() -> None:
    regressed = judge(POSITIVE, tally(3, 3), tally(0, 3), 0.05)
    errored = judge(NEGATIVE, tally(0, 3), tally(0, 2, errors=1), 0.05)
    passed = judge(NEGATIVE, tally(0, 3), tally(0, 3), 0.05)
    assert gate(v.status for v in [passed]) == 0
    assert gate(v.status for v in [passed, errored]) == 3
    assert gate(v.status for v in [errored, regressed]) == 1
