"""Verdicts made from tallies: the trials that add up to them, judged as a run judges them."""

from __future__ import annotations

from activation._models import Case, CaseVerdict, Tally, Trial, TrialKey, VariantName
from activation.verdicts.judge import judge as judge_trials

POSITIVE = Case("pos", "add login", True, "needs auth", ("keyword-loss",))
NEGATIVE = Case("neg", "rotate my aws keys", False, "cloud IAM", ("negative",))


def answered(key: TrialKey, outcome: bool | None) -> Trial:
    """The trial with this outcome (None: an error)."""
    return key.failed("scripted error") if outcome is None else key.answer(outcome)


def tally(activated: int, valid: int, errors: int = 0, should_activate: bool = True) -> Tally:
    """The counts of a case with this `should_activate` (its correct count follows)."""
    correct = activated if should_activate else valid - activated
    return Tally(activated, valid, errors, correct)


def counts(tally: Tally) -> tuple[int, int, int]:
    return tally.activated, tally.valid, tally.errors


def judge(case: Case, baseline: Tally, candidate: Tally, alpha: float) -> CaseVerdict:
    """The verdict on trials that add up to the two tallies."""
    tallies: tuple[tuple[VariantName, Tally], ...] = (
        ("baseline", baseline),
        ("candidate", candidate),
    )
    trials = [
        answered(TrialKey(case, variant, index), outcome)
        for variant, counts in tallies
        for index, outcome in enumerate(
            [True] * counts.activated
            + [False] * (counts.valid - counts.activated)
            + [None] * counts.errors
        )
    ]
    verdict = judge_trials(case, trials, alpha)
    given = counts(baseline), counts(candidate)
    assert (counts(verdict.baseline), counts(verdict.candidate)) == given
    return verdict
