"""How often each judge grader disagreed with itself (`--judge-samples`): its own variance,
seen apart from the agent's.

A trial where a judge grader asked its question k > 1 times records its YES and NO samples
(`Grade.votes`). Per case and judge grader: the trials it was asked in, those whose samples
split (not unanimous), with the 95 % Wilson interval of that share, and the samples that
answered against their trial's majority. Computed from the trials a report keeps, so a
saved or merged report gives them again; a run of one sample per question has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from activation._models import Trial
from activation.verdicts.figures import Interval
from activation.verdicts.stats import wilson_interval


@dataclass(frozen=True)
class JudgeAgreement:
    """One case's judge grader over the trials it asked more than one sample in."""

    case: str
    grader: str
    asked: int
    """Trials in which it asked (with more than one sample)."""
    split: int
    """Of those, the trials whose samples did not all agree."""
    samples: int
    minority: int
    """Samples that answered against their trial's majority (a tie counts half its samples)."""
    split_interval: Interval | None
    """None when it never asked more than one sample."""


def judge_agreement(trials: Iterable[Trial]) -> tuple[JudgeAgreement, ...]:
    """Per case and judge grader (in the order first met), how often its samples split; a
    judge that asked one sample per question is listed with none asked."""
    found: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for trial in trials:
        for grade in trial.grades:
            if grade.type == "judge":
                votes = found.setdefault((trial.case_id, grade.grader), [])
                votes += [] if grade.votes is None else [grade.votes]
    return tuple(
        JudgeAgreement(
            case,
            grader,
            len(votes),
            split := sum(yes > 0 and no > 0 for yes, no in votes),
            sum(yes + no for yes, no in votes),
            sum(min(yes, no) for yes, no in votes),
            wilson_interval(split, len(votes)) if votes else None,
        )
        for (case, grader), votes in found.items()
    )
