"""The verdict contract of DESIGN.md: majority per variant, seven statuses, and significance
judged across the whole run (Boschloo per case, Benjamini-Hochberg across cases).

Everything here is computed from whatever trials exist, so more trials for some cases, or
an interrupted run, only need the verdicts recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from activation._models import CaseVerdict, StageCase, Status, Tally, Trial
from activation.verdicts.stats import bh_adjust, one_sided_p, unanimous_flip_p


def can_regress(trials: int, alpha: float) -> bool:
    """Whether even a unanimous flip over `trials` trials per variant is significant."""
    return unanimous_flip_p(trials) < alpha


def rates_differ(baseline: Tally, candidate: Tally) -> bool:
    """Whether both variants have valid trials at different correct rates: the only tallies
    whose p-value needs the exact test (and so scipy)."""
    if not (baseline.valid and candidate.valid):
        return False
    return baseline.correct * candidate.valid != candidate.correct * baseline.valid


def p_value(case: StageCase, baseline: Tally, candidate: Tally) -> float | None:
    """One-sided, in the direction the correct counts moved (1 when they did not move);
    None without a valid trial on each side."""
    if not (baseline.valid and candidate.valid):
        return None
    if not rates_differ(baseline, candidate):
        return 1.0
    base_correct, cand_correct = baseline.correct, candidate.correct
    if base_correct * candidate.valid > cand_correct * baseline.valid:
        return one_sided_p(base_correct, baseline.valid, cand_correct, candidate.valid)
    return one_sided_p(cand_correct, candidate.valid, base_correct, baseline.valid)


def lower(candidate: Tally, baseline: Tally) -> bool:
    """Whether the candidate's correct rate is below the baseline's."""
    return candidate.correct * baseline.valid < baseline.correct * candidate.valid


def status(case: StageCase, baseline: Tally, candidate: Tally, significant: bool) -> Status:
    """`significant`: the case's q-value is below alpha (its p is one-sided in the direction
    the correct counts moved, so a significant case with both majorities right and the
    candidate lower is WEAKENED)."""
    base_right, cand_right = baseline.right, candidate.right
    if baseline.errors or candidate.errors:
        return Status.ERROR
    if significant:
        if base_right and not cand_right:
            return Status.REGRESSED
        if cand_right and not base_right:
            return Status.IMPROVED
        if base_right and cand_right and lower(candidate, baseline):
            return Status.WEAKENED
    if baseline.unanimous and candidate.unanimous and base_right == cand_right:
        return Status.PASS if base_right else Status.FAIL
    return Status.UNSTABLE


def tallies(trials: Iterable[Trial]) -> tuple[Tally, Tally]:
    """The baseline's and the candidate's tally of one case's trials."""
    listed = list(trials)
    return (
        Tally.of(trial for trial in listed if trial.variant == "baseline"),
        Tally.of(trial for trial in listed if trial.variant == "candidate"),
    )


@dataclass(frozen=True)
class Evidence:
    """What a case is judged on: its trials, and how they came about."""

    case: StageCase
    trials: Sequence[Trial]
    escalated: bool = False
    partial: bool = False


def q_values(p_values: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg over every case; a case without a p-value counts as p = 1."""
    if not p_values:
        return []
    adjusted = bh_adjust([1.0 if p is None else p for p in p_values])
    return [None if p is None else q for p, q in zip(p_values, adjusted, strict=True)]


def judge_all(
    evidence: Sequence[Evidence], alpha: float, unjudged: int = 0
) -> tuple[CaseVerdict, ...]:
    """Every case's verdict, significance judged across all of them and the `unjudged`
    cases of the same run (an interruption left them without evidence: they count as p = 1)."""
    return judge_groups([evidence], alpha, unjudged)[0]


def judge_groups(
    groups: Sequence[Sequence[Evidence]], alpha: float, unjudged: int = 0
) -> list[tuple[CaseVerdict, ...]]:
    """The verdicts of several groups of cases (a run's cells), significance judged across
    every case of every group and the `unjudged` ones: a run of four cells makes four
    times the looks at chance, and its false discoveries are held to alpha all the same."""
    items = [item for group in groups for item in group]
    counts = [tallies(item.trials) for item in items]
    ps = [p_value(item.case, *pair) for item, pair in zip(items, counts, strict=True)]
    qs = q_values([*ps, *[None] * unjudged])[: len(ps)]
    verdicts = [
        CaseVerdict.of(
            item.case,
            status(item.case, baseline, candidate, q is not None and q < alpha),
            p,
            q,
            baseline,
            candidate,
            tuple(sorted(item.trials, key=lambda trial: (trial.index, trial.variant))),
            item.escalated,
            item.partial,
        )
        for item, (baseline, candidate), p, q in zip(items, counts, ps, qs, strict=True)
    ]
    out = []
    for group in groups:
        out.append(tuple(verdicts[: len(group)]))
        del verdicts[: len(group)]
    return out


def judge(case: StageCase, trials: Sequence[Trial], alpha: float) -> CaseVerdict:
    """One case on its own (a run of one case: q equals p)."""
    return judge_all([Evidence(case, trials)], alpha)[0]


def evidence_in(verdicts: Sequence[CaseVerdict]) -> list[Evidence]:
    """What saved verdicts were judged on, to judge them again."""
    return [Evidence(v.case, v.trials, v.escalated, v.partial) for v in verdicts]
