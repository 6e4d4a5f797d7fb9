"""Suite figures per variant: recall on the positives, false positives on the negatives."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from activation._models import CaseVerdict, Status, VariantName
from activation.verdicts.stats import wilson_interval


@dataclass(frozen=True)
class Rate:
    """`hits` of `total` cases, with a Wilson interval once it means something."""

    hits: int
    total: int
    interval: tuple[float, float] | None

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    @property
    def interval_text(self) -> str | None:
        """The 95 % Wilson interval in whole percent, "30%-95%"; None without one."""
        if self.interval is None:
            return None
        low, high = self.interval
        return f"{low:.0%}-{high:.0%}"


def rate(hits: int, total: int, with_interval: bool) -> Rate:
    if not total or not with_interval:
        return Rate(hits, total, None)
    return Rate(hits, total, wilson_interval(hits, total))


@dataclass(frozen=True)
class VariantFigures:
    recall: Rate
    false_positives: Rate


def figures(
    verdicts: Sequence[CaseVerdict], variant: VariantName, with_interval: bool
) -> VariantFigures:
    """Recall and false positives over the cases this variant has a majority verdict on.

    ERROR cases are left out entirely: a broken trial must not pass for a miss.
    """
    positives: list[bool] = []
    negatives: list[bool] = []
    for verdict in verdicts:
        majority = verdict.tally(variant).verdict
        if verdict.status is Status.ERROR or majority is None:
            continue
        (positives if verdict.case.should_activate else negatives).append(majority)
    return VariantFigures(
        recall=rate(sum(positives), len(positives), with_interval),
        false_positives=rate(sum(negatives), len(negatives), with_interval),
    )
