"""Where the prompts went, per variant: a confusion matrix of each case's expected home
against the first skill that fired, each skill's recall and precision, where its cases went
instead and whose cases it took, and how the cases with several acceptable homes split.

The matrix counts trials: a row is an expectation in one word (`Case.expected`: a skill,
`a|b` for several, `none`, `other` for "anything but the measured skill"), a column the
first skill that fired (`none`: nothing). Recall and precision count cases, as the suite
figures do, each case by its majority route (the destination of more than half its valid
trials; a case split between places went nowhere in particular, `split`): a skill's recall
is the share of the cases whose one home it is that went to it, its precision the share of
the cases that went to it that may go there. A case with several acceptable homes is no
skill's own: it counts towards no recall (it would be a miss for every home it did not take)
and is listed apart with how often each skill was picked. ERROR cases are left out.

`lost_to` and `took_from` say the same numbers by name: a skill's misses, grouped by where
they went, add up to its recall's misses; the cases it took that are not its own, grouped by
their expectation, to its precision's misses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from activation._models import ANY_SKILL, NONE, OTHER, CaseVerdict, Status, Tally, VariantName
from activation.verdicts.figures import Count, Interval, interval

SPLIT = "split"
"""Where a case went when no place had a majority of its valid trials."""


@dataclass(frozen=True)
class Cell:
    expected: str
    went: str
    trials: int


@dataclass(frozen=True)
class Share:
    """A place (a skill, `none`, `split`, or an expectation) and how many cases or trials."""

    label: str
    count: int


@dataclass(frozen=True)
class SkillFigures:
    skill: str
    recall: Count
    recall_interval: Interval | None
    precision: Count
    precision_interval: Interval | None
    lost_to: tuple[Share, ...] = ()
    """Where the cases whose one home is this skill went instead (by majority), most first."""
    took_from: tuple[Share, ...] = ()
    """The expectations of the cases that went to this skill and may not, most first."""


@dataclass(frozen=True)
class Ambiguous:
    """A case with several acceptable homes, and how often each place was picked."""

    case: str
    homes: tuple[str, ...]
    picked: tuple[Share, ...]
    """Every place its valid trials went (first skill fired, `none`), in trials, most first."""
    valid: int


@dataclass(frozen=True)
class Routing:
    """One variant's routing: the matrix's non-empty cells (rows, then columns, sorted),
    every skill's figures and the cases with several acceptable homes."""

    cells: tuple[Cell, ...]
    skills: tuple[SkillFigures, ...]
    ambiguous: tuple[Ambiguous, ...] = ()

    def count(self, expected: str, went: str) -> int:
        return next((c.trials for c in self.cells if (c.expected, c.went) == (expected, went)), 0)

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(sorted({cell.expected for cell in self.cells}, key=_label_order))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(sorted({cell.went for cell in self.cells}, key=_label_order))

    @property
    def astray(self) -> tuple[Cell, ...]:
        """The cells off the diagonal: trials that went somewhere else than their row's home
        (a row of several homes keeps the trials that went to any of them; a row that
        expects any skill has none astray: its cases' `must_not` judge them)."""
        return tuple(
            cell
            for cell in self.cells
            if cell.expected != ANY_SKILL and cell.went not in _row_homes(cell.expected)
        )


def _row_homes(expected: str) -> tuple[str, ...]:
    """The places a matrix row may go to without going astray."""
    if expected == OTHER:
        return ()
    return tuple(expected.split("|"))


def _label_order(label: str) -> tuple[bool, str]:
    """Skills first, then `other` and `none`."""
    return label in (OTHER, NONE, SPLIT), label


def _cell_order(key: tuple[str, str]) -> tuple[tuple[bool, str], tuple[bool, str]]:
    return _label_order(key[0]), _label_order(key[1])


def _shares(counts: Mapping[str, int]) -> tuple[Share, ...]:
    """Most first, then by label."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], _label_order(item[0])))
    return tuple(Share(label, count) for label, count in ordered)


def majority_route(tally: Tally) -> str | None:
    """Where more than half the valid trials went; None when no place has a majority."""
    return next((route for route, n in tally.routes.items() if 2 * n > tally.valid), None)


def homes(verdict: CaseVerdict, target: str) -> tuple[str, ...]:
    """The skills a case expects to go to (a `should_activate` case: the measured one)."""
    if verdict.expect is None:
        return (target,) if verdict.should_activate else ()
    return () if verdict.any_skill else verdict.expect


def _may_land(verdict: CaseVerdict, skill: str, target: str) -> bool:
    """Whether a case may go to this skill: one of its homes, or any skill but the measured
    one for a case that only says the measured one should not fire."""
    if verdict.expect is None and not verdict.should_activate:
        return skill != target
    if verdict.any_skill:
        return skill not in verdict.must_not
    return skill in homes(verdict, target)


def routing(
    verdicts: Sequence[CaseVerdict], variant: VariantName, target: str, with_interval: bool
) -> Routing:
    judged = [v for v in verdicts if v.status is not Status.ERROR and v.tally(variant).valid]
    cells: dict[tuple[str, str], int] = {}
    for verdict in judged:
        row = verdict.expected(target)
        for went, trials in verdict.tally(variant).routes.items():
            cells[row, went] = cells.get((row, went), 0) + trials
    landed = {v.id: majority_route(v.tally(variant)) or SPLIT for v in judged}
    skills = sorted(
        {home for v in judged for home in homes(v, target)}
        | {went for went in landed.values() if went not in (NONE, SPLIT)}
    )
    figures = [_skill_figures(skill, judged, landed, target, with_interval) for skill in skills]
    ordered = sorted(cells.items(), key=lambda item: _cell_order(item[0]))
    ambiguous = tuple(
        Ambiguous(v.id, homes(v, target), _shares(v.tally(variant).routes), v.tally(variant).valid)
        for v in judged
        if len(homes(v, target)) > 1
    )
    return Routing(
        tuple(Cell(expected, went, trials) for (expected, went), trials in ordered),
        tuple(figures),
        ambiguous,
    )


def _skill_figures(
    skill: str,
    judged: Sequence[CaseVerdict],
    landed: Mapping[str, str],
    target: str,
    with_interval: bool,
) -> SkillFigures:
    own = [v for v in judged if homes(v, target) == (skill,)]
    arrived = [v for v in judged if landed[v.id] == skill]
    lost: dict[str, int] = {}
    for verdict in own:
        if landed[verdict.id] != skill:
            lost[landed[verdict.id]] = lost.get(landed[verdict.id], 0) + 1
    took: dict[str, int] = {}
    for verdict in arrived:
        if not _may_land(verdict, skill, target):
            took[verdict.expected(target)] = took.get(verdict.expected(target), 0) + 1
    recall = Count(len(own) - sum(lost.values()), len(own))
    precision = Count(len(arrived) - sum(took.values()), len(arrived))
    return SkillFigures(
        skill,
        recall,
        interval(recall, with_interval),
        precision,
        interval(precision, with_interval),
        _shares(lost),
        _shares(took),
    )


def changed_cells(routes: Mapping[VariantName, Routing]) -> list[tuple[str, str, int, int]]:
    """(expected, went, baseline trials, candidate trials) of every cell that differs."""
    return [cell for cell in both_cells(routes) if cell[2] != cell[3]]


def both_cells(routes: Mapping[VariantName, Routing]) -> list[tuple[str, str, int, int]]:
    """(expected, went, baseline trials, candidate trials) of every cell non-empty in
    either variant, rows then columns."""
    baseline, candidate = routes["baseline"], routes["candidate"]
    keys = {(c.expected, c.went) for c in (*baseline.cells, *candidate.cells)}
    return [
        (expected, went, baseline.count(expected, went), candidate.count(expected, went))
        for expected, went in sorted(keys, key=_cell_order)
    ]
