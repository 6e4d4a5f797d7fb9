"""Verdicts made from tallies: the trials that add up to them, judged as a run judges them."""

from __future__ import annotations

from activation._models import Case, CaseVerdict, Tally, Trial, TrialKey
from activation.verdicts.judge import judge as judge_trials

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
