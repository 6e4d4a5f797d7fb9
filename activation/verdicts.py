"""The verdict contract of DESIGN.md: majority per variant, six statuses, exact tests.

Everything here is computed from whatever trials exist, so a later round of extra trials
for chosen cases only needs the verdicts recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy.stats import binomtest, boschloo_exact

from activation.cases import Case
from activation.trial import Trial, VariantName


class Status(StrEnum):
    REGRESSED = "REGRESSED"
    IMPROVED = "IMPROVED"
    UNSTABLE = "UNSTABLE"
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


@dataclass(frozen=True)
class Tally:
    """One variant's trials of one case; errors are counted apart and never vote."""

    activated: int
    valid: int
    errors: int

    @classmethod
    def of(cls, trials: Iterable[Trial]) -> Tally:
        outcomes = [trial.activated for trial in trials]
        return cls(
            activated=sum(outcome is True for outcome in outcomes),
            valid=sum(outcome is not None for outcome in outcomes),
            errors=sum(outcome is None for outcome in outcomes),
        )

    @property
    def verdict(self) -> bool | None:
        """Majority: True above half, False below, None on a tie or with no valid trial."""
        if 2 * self.activated > self.valid:
            return True
        if 2 * self.activated < self.valid:
            return False
        return None

    @property
    def unanimous(self) -> bool:
        return self.valid > 0 and self.activated in (0, self.valid)

    def correct(self, should_activate: bool) -> int:
        """How many valid trials matched the ground truth."""
        return self.activated if should_activate else self.valid - self.activated


@dataclass(frozen=True)
class CaseVerdict:
    case: Case
    baseline: Tally
    candidate: Tally
    status: Status
    p_value: float | None


def one_sided_p(better_correct: int, better_n: int, worse_correct: int, worse_n: int) -> float:
    """Boschloo's exact test that the first variant's correct rate exceeds the second's."""
    table = np.array(
        [[better_correct, worse_correct], [better_n - better_correct, worse_n - worse_correct]]
    )
    return float(boschloo_exact(table, alternative="greater").pvalue)


def can_regress(trials: int, alpha: float) -> bool:
    """Whether even a unanimous flip over `trials` trials per variant is significant."""
    return one_sided_p(trials, trials, 0, trials) < alpha


def judge(case: Case, baseline: Tally, candidate: Tally, alpha: float) -> CaseVerdict:
    expected = case.should_activate
    base_right = baseline.verdict == expected
    cand_right = candidate.verdict == expected
    p_value = None
    if baseline.verdict != candidate.verdict and baseline.valid and candidate.valid:
        base_correct, cand_correct = baseline.correct(expected), candidate.correct(expected)
        if base_correct * candidate.valid >= cand_correct * baseline.valid:
            p_value = one_sided_p(base_correct, baseline.valid, cand_correct, candidate.valid)
        else:
            p_value = one_sided_p(cand_correct, candidate.valid, base_correct, baseline.valid)

    significant = p_value is not None and p_value < alpha
    if baseline.errors or candidate.errors:
        status = Status.ERROR
    elif base_right and not cand_right and significant:
        status = Status.REGRESSED
    elif cand_right and not base_right and significant:
        status = Status.IMPROVED
    elif baseline.unanimous and candidate.unanimous and base_right == cand_right:
        status = Status.PASS if base_right else Status.FAIL
    else:
        status = Status.UNSTABLE
    return CaseVerdict(case, baseline, candidate, status, p_value)


def judge_all(
    cases: Sequence[Case], trials: Iterable[Trial], alpha: float
) -> tuple[CaseVerdict, ...]:
    """Verdicts for every case from the trials that exist (in any order)."""
    grouped: dict[tuple[str, VariantName], list[Trial]] = {}
    for trial in trials:
        grouped.setdefault((trial.key.case.id, trial.key.variant), []).append(trial)
    return tuple(
        judge(
            case,
            Tally.of(grouped.get((case.id, "baseline"), ())),
            Tally.of(grouped.get((case.id, "candidate"), ())),
            alpha,
        )
        for case in cases
    )


@dataclass(frozen=True)
class Rate:
    """A suite figure: `hits` of `total` cases, with a Wilson interval once it means something."""

    hits: int
    total: int
    interval: tuple[float, float] | None

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None


def rate(hits: int, total: int, with_interval: bool, confidence: float = 0.95) -> Rate:
    if not total or not with_interval:
        return Rate(hits, total, None)
    ci = binomtest(hits, total).proportion_ci(confidence_level=confidence, method="wilson")
    return Rate(hits, total, (float(ci.low), float(ci.high)))


@dataclass(frozen=True)
class VariantFigures:
    recall: Rate
    false_positives: Rate


def figures(
    verdicts: Sequence[CaseVerdict], variant: VariantName, with_interval: bool
) -> VariantFigures:
    """Recall and false positives over the cases this variant has a verdict on.

    ERROR cases are left out entirely: a broken trial must not pass for a miss.
    """
    positives: list[bool] = []
    negatives: list[bool] = []
    for verdict in verdicts:
        tally = verdict.baseline if variant == "baseline" else verdict.candidate
        if verdict.status is Status.ERROR or tally.verdict is None:
            continue
        (positives if verdict.case.should_activate else negatives).append(tally.verdict)
    return VariantFigures(
        recall=rate(sum(positives), len(positives), with_interval),
        false_positives=rate(sum(negatives), len(negatives), with_interval),
    )


def ids_with(verdicts: Iterable[CaseVerdict], status: Status) -> list[str]:
    return [verdict.case.id for verdict in verdicts if verdict.status is status]


FLAGGED = (Status.REGRESSED, Status.IMPROVED, Status.UNSTABLE, Status.ERROR)
"""Statuses that ask for a look with the real agent."""


def exit_code(verdicts: Iterable[CaseVerdict]) -> int:
    """1 on any regression (wins), else 3 when evidence is incomplete, else 0."""
    statuses = {verdict.status for verdict in verdicts}
    if Status.REGRESSED in statuses:
        return 1
    if Status.ERROR in statuses:
        return 3
    return 0
