"""Suite figures per variant (recall on the positives, false positives on the negatives) and
the run's summary: the numbers every output shows under the case table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from activation._models import VARIANTS, CaseVerdict, Status, VariantName
from activation.verdicts.stats import wilson_interval

Interval = tuple[float, float]


class Count(NamedTuple):
    """`hits` of `total` cases (written as a pair, `[hits, total]`)."""

    hits: int
    total: int

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None


def interval(count: Count, with_interval: bool) -> Interval | None:
    """The 95 % Wilson interval, once it means something (more than one trial a case)."""
    if not count.total or not with_interval:
        return None
    return wilson_interval(count.hits, count.total)


@dataclass(frozen=True)
class VariantFigures:
    recall: Count
    recall_interval: Interval | None
    false_positives: Count
    false_positives_interval: Interval | None


def figures(
    verdicts: Sequence[CaseVerdict], variant: VariantName, with_interval: bool
) -> VariantFigures:
    """Recall and false positives over the cases with evidence for this variant.

    ERROR cases are left out entirely: a broken trial must not pass for a miss. A tie is
    evidence, and it is not a majority for activating: a positive tied is missed, a
    negative tied is no false positive.
    """
    positives: list[bool] = []
    negatives: list[bool] = []
    for verdict in verdicts:
        tally = verdict.tally(variant)
        if verdict.status is Status.ERROR or not tally.valid:
            continue
        (positives if verdict.should_activate else negatives).append(tally.verdict is True)
    recall = Count(sum(positives), len(positives))
    false_positives = Count(sum(negatives), len(negatives))
    return VariantFigures(
        recall,
        interval(recall, with_interval),
        false_positives,
        interval(false_positives, with_interval),
    )


@dataclass(frozen=True)
class Summary:
    """The run in figures: each variant's rates, the flagged case ids, what escalation cost."""

    baseline: VariantFigures
    candidate: VariantFigures
    regressed: tuple[str, ...]
    improved: tuple[str, ...]
    unstable: tuple[str, ...]
    errors: tuple[str, ...]
    unfinished: tuple[str, ...]
    escalated: int
    """Cases that ran more than the first round."""
    extra_calls: int
    """Trials beyond every case's first round: what escalation cost."""
    weakened: tuple[str, ...] = ()

    def figures(self, variant: VariantName) -> VariantFigures:
        return self.baseline if variant == "baseline" else self.candidate


def summarise(
    verdicts: Sequence[CaseVerdict], first_round: int, unfinished: Sequence[str] = ()
) -> Summary:
    def ids(status: Status) -> tuple[str, ...]:
        return tuple(verdict.id for verdict in verdicts if verdict.status is status)

    with_interval = first_round > 1
    baseline, candidate = (figures(verdicts, variant, with_interval) for variant in VARIANTS)
    extra = sum(
        max(0, verdict.baseline.run + verdict.candidate.run - 2 * first_round)
        for verdict in verdicts
    )
    return Summary(
        baseline,
        candidate,
        ids(Status.REGRESSED),
        ids(Status.IMPROVED),
        ids(Status.UNSTABLE),
        ids(Status.ERROR),
        tuple(unfinished),
        sum(verdict.escalated for verdict in verdicts),
        extra,
        ids(Status.WEAKENED),
    )
