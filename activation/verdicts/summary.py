"""The run's summary: the numbers every output shows under the case table (each variant's
suite figures and routing, the flagged cases, what escalation cost)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from activation._models import (
    VARIANTS,
    CaseVerdict,
    Coverage,
    ErrorClass,
    Status,
    Trial,
    VariantName,
)
from activation.verdicts.figures import VariantFigures, figures
from activation.verdicts.routing import Routing, routing

UNCLASSIFIED = "unclassified"
"""The class of an error trial in a report older than the classes."""
UNKNOWN = Routing((), ())
"""The routing of a report older than routes (`/4`)."""
NO_COVERAGE = Coverage(0, 0)
"""The coverage of a report older than coverage."""


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
    baseline_routing: Routing = UNKNOWN
    """Where the baseline's prompts went (verdicts/routing.py)."""
    candidate_routing: Routing = UNKNOWN
    coverage: Coverage = NO_COVERAGE
    """The trials scored out of those planned."""
    errors_by_class: Mapping[str, int] = field(default_factory=dict)
    """Error trials per class (`ErrorClass`'s values, in its order; `unclassified` in a
    report older than the classes)."""

    def figures(self, variant: VariantName) -> VariantFigures:
        return self.baseline if variant == "baseline" else self.candidate

    def routing(self, variant: VariantName) -> Routing:
        return self.baseline_routing if variant == "baseline" else self.candidate_routing


def error_counts(trials: Iterable[Trial]) -> dict[str, int]:
    """Error trials per class, in the classes' order (unclassified ones last)."""
    counts: dict[str, int] = {}
    for trial in trials:
        if trial.is_error:
            name = UNCLASSIFIED if trial.error_class is None else trial.error_class.value
            counts[name] = counts.get(name, 0) + 1
    order = [*(kind.value for kind in ErrorClass), UNCLASSIFIED]
    return {name: counts[name] for name in order if name in counts}


def summarise(
    verdicts: Sequence[CaseVerdict],
    first_round: int,
    target: str,
    unfinished: Sequence[str] = (),
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
        routing(verdicts, "baseline", target, with_interval),
        routing(verdicts, "candidate", target, with_interval),
        Coverage.of(verdicts),
        error_counts(trial for verdict in verdicts for trial in verdict.trials),
    )
