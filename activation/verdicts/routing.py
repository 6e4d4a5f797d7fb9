"""Where the prompts went, per variant: a confusion matrix of each case's expected home
against the first skill that fired, and each skill's recall and precision.

The matrix counts trials: a row is an expectation in one word (`Case.expected`: a skill,
`a|b` for several, `none`, `other` for "anything but the measured skill"), a column the
first skill that fired (`none`: nothing). Recall and precision count cases, as the suite
figures do, each case by its majority route (the destination of more than half its valid
trials; a case split between places went nowhere in particular): a skill's recall is the
share of the cases that expect it whose majority went to it, its precision the share of the
cases whose majority went to it that expect it. ERROR cases are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from activation._models import NONE, OTHER, CaseVerdict, Status, Tally, VariantName
from activation.verdicts.figures import Count, Interval, interval


@dataclass(frozen=True)
class Cell:
    expected: str
    went: str
    trials: int


@dataclass(frozen=True)
class SkillFigures:
    skill: str
    recall: Count
    recall_interval: Interval | None
    precision: Count
    precision_interval: Interval | None


@dataclass(frozen=True)
class Routing:
    """One variant's routing: the matrix's non-empty cells (rows, then columns, sorted)
    and every skill's figures."""

    cells: tuple[Cell, ...]
    skills: tuple[SkillFigures, ...]

    def count(self, expected: str, went: str) -> int:
        return next((c.trials for c in self.cells if (c.expected, c.went) == (expected, went)), 0)

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(sorted({cell.expected for cell in self.cells}, key=_label_order))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(sorted({cell.went for cell in self.cells}, key=_label_order))


def _label_order(label: str) -> tuple[bool, str]:
    """Skills first, then `other` and `none`."""
    return label in (OTHER, NONE), label


def _cell_order(key: tuple[str, str]) -> tuple[tuple[bool, str], tuple[bool, str]]:
    return _label_order(key[0]), _label_order(key[1])


def majority_route(tally: Tally) -> str | None:
    """Where more than half the valid trials went; None when no place has a majority."""
    return next((route for route, n in tally.routes.items() if 2 * n > tally.valid), None)


def homes(verdict: CaseVerdict, target: str) -> tuple[str, ...]:
    """The skills a case expects to go to (a `should_activate` case: the measured one)."""
    if verdict.expect is None:
        return (target,) if verdict.should_activate else ()
    return verdict.expect


def routing(
    verdicts: Sequence[CaseVerdict], variant: VariantName, target: str, with_interval: bool
) -> Routing:
    judged = [v for v in verdicts if v.status is not Status.ERROR and v.tally(variant).valid]
    cells: dict[tuple[str, str], int] = {}
    for verdict in judged:
        row = verdict.expected(target)
        for went, trials in verdict.tally(variant).routes.items():
            cells[row, went] = cells.get((row, went), 0) + trials
    landed = {v.id: majority_route(v.tally(variant)) for v in judged}
    skills = sorted(
        {home for v in judged for home in homes(v, target)}
        | {went for went in landed.values() if went not in (None, NONE)}
    )
    figures = []
    for skill in skills:
        expecting = [v for v in judged if skill in homes(v, target)]
        arrived = [v for v in judged if landed[v.id] == skill]
        recall = Count(sum(landed[v.id] == skill for v in expecting), len(expecting))
        precision = Count(sum(skill in homes(v, target) for v in arrived), len(arrived))
        figures.append(
            SkillFigures(
                skill,
                recall,
                interval(recall, with_interval),
                precision,
                interval(precision, with_interval),
            )
        )
    ordered = sorted(
        cells.items(), key=lambda item: (_label_order(item[0][0]), _label_order(item[0][1]))
    )
    return Routing(
        tuple(Cell(expected, went, trials) for (expected, went), trials in ordered),
        tuple(figures),
    )


def changed_cells(routes: Mapping[VariantName, Routing]) -> list[tuple[str, str, int, int]]:
    """(expected, went, baseline trials, candidate trials) of every cell that differs."""
    baseline, candidate = routes["baseline"], routes["candidate"]
    keys = {(c.expected, c.went) for c in (*baseline.cells, *candidate.cells)}
    ordered = sorted(keys, key=_cell_order)
    return [
        (expected, went, baseline.count(expected, went), candidate.count(expected, went))
        for expected, went in ordered
        if baseline.count(expected, went) != candidate.count(expected, went)
    ]
