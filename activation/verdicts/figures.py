"""Suite figures per variant: recall on the positives, false positives on the negatives."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from activation._models import CaseVerdict, Status, VariantName
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
    """Recall and false positives over the cases with evidence for this variant (Stage C:
    the cases whose graders passed by majority, each tally's verdict).

    ERROR cases are left out entirely: a broken trial must not pass for a miss. A tie is
    evidence, and it is not a majority for activating: a positive tied is missed, a
    negative tied is no false positive.
    """
    positives: list[bool] = []
    negatives: list[bool] = []
    for verdict in verdicts:
        tally = verdict.tally(variant)
        if verdict.status is Status.ERROR or not tally.valid or verdict.any_skill:
            continue  # an any-skill case is neither a positive nor a negative of the target
        (positives if verdict.should_activate else negatives).append(tally.verdict is True)
    recall = Count(sum(positives), len(positives))
    false_positives = Count(sum(negatives), len(negatives))
    return VariantFigures(
        recall,
        interval(recall, with_interval),
        false_positives,
        interval(false_positives, with_interval),
    )
