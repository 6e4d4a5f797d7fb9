"""The verdict contract of DESIGN.md: majority per variant, six statuses, exact tests.

Everything here is computed from whatever trials exist, so more trials for some cases, or
an interrupted run, only need the verdicts recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from activation._models import Case, CaseVerdict, Status, Tally, Trial
from activation.verdicts.stats import one_sided_p


def can_regress(trials: int, alpha: float) -> bool:
    """Whether even a unanimous flip over `trials` trials per variant is significant."""
    return one_sided_p(trials, trials, 0, trials) < alpha


def p_value(case: Case, baseline: Tally, candidate: Tally) -> float | None:
    """One-sided, in the direction the counts moved; None when the majorities agree."""
    if baseline.verdict == candidate.verdict or not (baseline.valid and candidate.valid):
        return None
    expected = case.should_activate
    base_correct, cand_correct = baseline.correct(expected), candidate.correct(expected)
    if base_correct * candidate.valid >= cand_correct * baseline.valid:
        return one_sided_p(base_correct, baseline.valid, cand_correct, candidate.valid)
    return one_sided_p(cand_correct, candidate.valid, base_correct, baseline.valid)


def status(case: Case, baseline: Tally, candidate: Tally, significant: bool) -> Status:
    base_right = baseline.verdict == case.should_activate
    cand_right = candidate.verdict == case.should_activate
    if baseline.errors or candidate.errors:
        return Status.ERROR
    if base_right and not cand_right and significant:
        return Status.REGRESSED
    if cand_right and not base_right and significant:
        return Status.IMPROVED
    if baseline.unanimous and candidate.unanimous and base_right == cand_right:
        return Status.PASS if base_right else Status.FAIL
    return Status.UNSTABLE


def judge(case: Case, trials: Sequence[Trial], alpha: float, partial: bool = False) -> CaseVerdict:
    """One case's verdict from its trials (any order, both variants)."""
    baseline = Tally.of(trial for trial in trials if trial.key.variant == "baseline")
    candidate = Tally.of(trial for trial in trials if trial.key.variant == "candidate")
    p = p_value(case, baseline, candidate)
    significant = p is not None and p < alpha
    return CaseVerdict(
        case,
        baseline,
        candidate,
        status(case, baseline, candidate, significant),
        p,
        tuple(sorted(trials, key=lambda trial: (trial.key.index, trial.key.variant))),
        partial,
    )


def by_case(trials: Iterable[Trial]) -> dict[str, list[Trial]]:
    grouped: dict[str, list[Trial]] = {}
    for trial in trials:
        grouped.setdefault(trial.key.case.id, []).append(trial)
    return grouped


def judge_all(
    cases: Sequence[Case], trials: Iterable[Trial], alpha: float
) -> tuple[CaseVerdict, ...]:
    """Verdicts for every case from the trials that exist (in any order)."""
    grouped = by_case(trials)
    return tuple(judge(case, grouped.get(case.id, []), alpha) for case in cases)
