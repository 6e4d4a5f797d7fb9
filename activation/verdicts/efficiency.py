"""Stage C's efficiency: what each arm's trials cost (tokens, dollars, turns, tool calls,
wall time) and what the skill saves or adds.

A skill can leave the pass rate where it was and still cut a task's cost tenfold; these
figures show it beside the pass-rate lift. Per case and arm, each figure's median with its
95 % order-statistic interval (the sign test's: distribution-free, so one runaway trial
cannot drag it). The lift is a ratio, candidate over a reference arm (`none`, `baseline`):
per case, the Hodges-Lehmann estimate on the log scale (the median of every pairwise log
ratio) with the Mann-Whitney interval; over the suite, the pseudo-median of the cases'
log ratios with the Wilcoxon signed-rank interval, each case counting once however far it
escalated. Both intervals invert a scipy rank test, so they need no assumption about how
costs are spread; with the default three trials a case and arm no 3-vs-3 rank test reaches
95 %, so a case's interval is shown once it has trials enough (the suite's has cases).

A figure the agent's stream does not give (`Trajectory.measured`) is unknown, never 0; a
trial that errored, was served from the cache or has no trajectory gives none.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from activation._models import FIGURES, Arm, CaseVerdict, Trial
from activation.verdicts.figures import Interval

COMPARED: tuple[Arm, ...] = ("none", "baseline")
"""The arms the candidate's efficiency is compared with, in the order outputs list them."""
COST = "cost_usd"
"""The figure `--fail-on cost` judges."""
LEVEL = 0.95
"""The intervals' confidence."""


def figure_of(trial: Trial, figure: str) -> float | None:
    """One trial's figure, None when its agent's stream does not give it (or it errored,
    or the cache served it: it ran nowhere here)."""
    found = trial.trajectory
    if trial.is_error or trial.cached or found is None or figure not in found.measured:
        return None
    value: float | None
    if figure == "turns":
        value = found.turns
    elif figure == "tool_calls":
        value = len(found.tool_calls)
    elif figure == "seconds":
        value = trial.seconds
    else:
        value = getattr(trial.usage, figure)
    return None if value is None else float(value)


@dataclass(frozen=True)
class Median:
    """One figure of one arm's trials: the median of the `trials` that gave it, with its
    95 % order-statistic interval (None with fewer than 6 trials: no interval reaches 95 %)."""

    value: float
    trials: int
    interval: Interval | None


@dataclass(frozen=True)
class Ratio:
    """The candidate's figure over the `against` arm's (0.5: half as much), with its 95 %
    rank interval (None where too few trials or cases reach 95 %)."""

    against: Arm
    value: float
    interval: Interval | None


@dataclass(frozen=True)
class FigureEfficiency:
    """One figure of one case (or of the suite): each arm's median and the candidate's
    ratio to each compared arm."""

    figure: str
    arms: Mapping[str, Median]
    ratios: tuple[Ratio, ...]

    def ratio(self, against: Arm) -> Ratio | None:
        return next((found for found in self.ratios if found.against == against), None)


@dataclass(frozen=True)
class CaseEfficiency:
    id: str
    figures: tuple[FigureEfficiency, ...]


@dataclass(frozen=True)
class CostGate:
    """`--fail-on cost`'s test: does the candidate cost more than `margin` more than the
    baseline? One-sided Wilcoxon signed-rank over the cases' log cost ratios (H0: the
    typical ratio is at most 1 + margin); `p` None where no case has a cost in both."""

    margin: float
    cases: int
    p: float | None
    alpha: float

    @property
    def fails(self) -> bool:
        return self.p is not None and self.p < self.alpha


@dataclass(frozen=True)
class Efficiency:
    """A behavior run's efficiency: the figures its agent gives, per case and over the suite
    (each arm's median over every trial), and the cost gate."""

    figures: tuple[str, ...]
    cases: tuple[CaseEfficiency, ...]
    suite: tuple[FigureEfficiency, ...]
    cost: CostGate

    def case(self, case_id: str) -> CaseEfficiency:
        return next(found for found in self.cases if found.id == case_id)


def median_of(values: Sequence[float]) -> Median | None:
    """The median with its order-statistic interval (scipy's quantile test)."""
    if not values:
        return None
    from scipy.stats import quantile_test

    middle = float(sorted(values)[len(values) // 2])
    if len(values) % 2 == 0:
        middle = (middle + sorted(values)[len(values) // 2 - 1]) / 2
    found = quantile_test(values, q=middle, p=0.5).confidence_interval(LEVEL)
    low, high = float(found.low), float(found.high)
    reached = not (math.isnan(low) or math.isnan(high))
    return Median(middle, len(values), (low, high) if reached else None)


def _inverted(
    shifts: Sequence[float], p_at: Callable[[list[float]], list[float]]
) -> Interval | None:
    """The shifts a rank test does not reject at 95 %: between the distinct candidate
    `shifts` (the test's statistic changes only there), the p-value at each point between
    them; the interval runs from the first kept point's lower shift to the last's upper.
    None when even the points beyond every shift are kept (too few data for 95 %); a single
    shift every datum shares is the interval itself."""
    ordered = sorted(set(shifts))
    points = [ordered[0] - 1.0]
    points += [(a + b) / 2 for a, b in pairwise(ordered)]
    points.append(ordered[-1] + 1.0)
    kept = [at for at, p in enumerate(p_at(points)) if p >= 1 - LEVEL]
    if not kept:  # every shift but the one they all share is rejected
        return (ordered[0], ordered[0]) if len(ordered) == 1 else None
    if kept[0] == 0 or kept[-1] == len(points) - 1:
        return None
    return ordered[kept[0] - 1], ordered[kept[-1]]


def case_ratio(
    candidate: Sequence[float], reference: Sequence[float], against: Arm
) -> Ratio | None:
    """Hodges-Lehmann on the log scale with the Mann-Whitney interval; None without a
    positive value in both (a ratio to nothing, or of a zero, is not one)."""
    if not candidate or not reference or min(*candidate, *reference) <= 0:
        return None
    import numpy as np
    from scipy.stats import mannwhitneyu

    mine, theirs = np.log(candidate), np.log(reference)
    pairs = (mine[:, None] - theirs[None, :]).ravel()

    def p_at(points: list[float]) -> list[float]:
        shifted = mine[None, :] - np.asarray(points)[:, None]
        return list(mannwhitneyu(shifted, theirs[None, :], axis=1).pvalue)

    return _ratio(against, float(np.median(pairs)), _inverted(pairs.tolist(), p_at))


def suite_ratio(logs: Sequence[float], against: Arm) -> Ratio | None:
    """The pseudo-median of the cases' log ratios with the Wilcoxon signed-rank interval."""
    if not logs:
        return None
    import numpy as np
    from scipy.stats import wilcoxon

    values = np.asarray(logs)
    walsh = [(a + b) / 2 for at, a in enumerate(logs) for b in logs[at:]]

    def p_at(points: list[float]) -> list[float]:
        return list(wilcoxon(values[None, :] - np.asarray(points)[:, None], axis=1).pvalue)

    interval = _inverted(walsh, p_at) if len(logs) > 1 else None
    return _ratio(against, float(np.median(walsh)), interval)


def _ratio(against: Arm, log_value: float, log_interval: Interval | None) -> Ratio:
    shown = None if log_interval is None else (math.exp(log_interval[0]), math.exp(log_interval[1]))
    return Ratio(against, math.exp(log_value), shown)


def values_of(trials: Iterable[Trial], arm: Arm, figure: str) -> list[float]:
    return [value for trial in trials if trial.variant == arm
            if (value := figure_of(trial, figure)) is not None]  # fmt: skip


def case_efficiency(
    verdict: CaseVerdict, arms: Sequence[Arm], figures: Sequence[str]
) -> CaseEfficiency:
    found = []
    for figure in figures:
        values = {arm: values_of(verdict.trials, arm, figure) for arm in arms}
        medians: dict[str, Median] = {
            arm: median for arm in arms if (median := median_of(values[arm])) is not None
        }
        ratios = tuple(
            ratio
            for against in COMPARED
            if against in arms
            if (ratio := case_ratio(values["candidate"], values[against], against))
        )
        found.append(FigureEfficiency(figure, medians, ratios))
    return CaseEfficiency(verdict.id, tuple(found))


def suite_efficiency(
    verdicts: Sequence[CaseVerdict],
    cases: Sequence[CaseEfficiency],
    arms: Sequence[Arm],
    figure: str,
) -> FigureEfficiency:
    """Each arm's median over every trial of the suite, and the suite's ratios."""
    trials = [trial for verdict in verdicts for trial in verdict.trials]
    medians: dict[str, Median] = {arm: median for arm in arms
               if (median := median_of(values_of(trials, arm, figure))) is not None}  # fmt: skip
    ratios = tuple(
        ratio
        for against in COMPARED
        if against in arms
        if (ratio := suite_ratio(case_logs(cases, figure, against), against))
    )
    return FigureEfficiency(figure, medians, ratios)


def case_logs(cases: Sequence[CaseEfficiency], figure: str, against: Arm) -> list[float]:
    """Each case's log ratio of `figure` against an arm, where it has one."""
    return [math.log(ratio.value) for case in cases for found in case.figures
            if found.figure == figure and (ratio := found.ratio(against)) is not None]  # fmt: skip


def cost_gate(cases: Sequence[CaseEfficiency], margin: float, alpha: float) -> CostGate:
    """Whether the candidate costs significantly more than `margin` more than the baseline."""
    logs = case_logs(cases, COST, "baseline")
    if not logs:
        return CostGate(margin, 0, None, alpha)
    from scipy.stats import wilcoxon

    excess = [value - math.log1p(margin) for value in logs]
    p = 1.0 if not any(excess) else float(wilcoxon(excess, alternative="greater").pvalue)
    return CostGate(margin, len(logs), p, alpha)


def cost_rises(verdicts: Sequence[CaseVerdict], margin: float, alpha: float) -> bool:
    """The cost gate alone (what the exit code reads): each case's cost against the
    baseline's, then `cost_gate`."""
    cases = [case_efficiency(verdict, ("baseline", "candidate"), (COST,)) for verdict in verdicts]
    return cost_gate(cases, margin, alpha).fails


def efficiency(
    verdicts: Sequence[CaseVerdict], arms: Sequence[Arm], margin: float, alpha: float
) -> Efficiency | None:
    """The run's efficiency; None when no trial gives any figure (an agent whose stream
    was not read, or a run served from the cache)."""
    trials = [trial for verdict in verdicts for trial in verdict.trials]
    figures = tuple(figure for figure in FIGURES
                    if any(figure_of(trial, figure) is not None for trial in trials))  # fmt: skip
    if not figures:
        return None
    cases = tuple(case_efficiency(verdict, arms, figures) for verdict in verdicts)
    suite = tuple(suite_efficiency(verdicts, cases, arms, figure) for figure in figures)
    return Efficiency(figures, cases, suite, cost_gate(cases, margin, alpha))
