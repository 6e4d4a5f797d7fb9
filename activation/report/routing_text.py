"""A run's routing in words, for every output: each skill's figures (candidate, with the
baseline's where it differs), where its cases went instead and whose it took, the matrix's
non-empty cells, and how the cases with several acceptable skills split.

Shown when the suite routes among several skills (two or more skills are some case's one
home): a catalog run's main result, where a one-skill suite has its recall and false
positives instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from activation._models import VARIANTS, VariantName
from activation.report import activation_words, phrases
from activation.report.model import Report
from activation.report.views import view_of
from activation.verdicts.figures import Count, Interval
from activation.verdicts.routing import (
    SPLIT,
    Ambiguous,
    Routing,
    Share,
    SkillFigures,
    both_cells,
)

SKILLS_TITLE = "Routing per skill (cases, each by its majority route)"
CELLS_TITLE = "Where the prompts went (trials; non-empty cells)"
AMBIGUOUS_TITLE = "Cases with several acceptable skills (trials each skill was picked)"


@dataclass(frozen=True)
class SkillRow:
    skill: str
    recall: str
    precision: str
    lost_to: str
    took_from: str


def routes(report: Report) -> dict[VariantName, Routing]:
    return {name: report.summary.routing(name) for name in VARIANTS}


def routes_among_skills(report: Report) -> bool:
    """Whether the report draws where its prompts went (its view says)."""
    return view_of(report).routes(report)


def place_text(label: str, target: str) -> str:
    """A place in words: a skill, `no skill`, `split` (no majority), an expectation."""
    if label == SPLIT:
        return "split (no majority)"
    return activation_words.label_text(label, target)


def shares_text(shares: tuple[Share, ...], target: str) -> str:
    """ "billing:refunds 3, no skill 1"; "-" for none."""
    return ", ".join(f"{place_text(s.label, target)} {s.count}" for s in shares) or "-"


def rate_text(count: Count, interval: Interval | None) -> str:
    """ "3/4 75% (30%-95%)"; "-" with no case."""
    if not count.total:
        return "-"
    return f"{count.hits}/{count.total} {phrases.percent(count, interval)}"


Rate = tuple[Count, Interval | None]
"""A count and its interval, as a skill's figures hold them."""
NO_RATE: Rate = (Count(0, 0), None)


def recall_of(found: SkillFigures) -> Rate:
    return found.recall, found.recall_interval


def precision_of(found: SkillFigures) -> Rate:
    return found.precision, found.precision_interval


def moved_rate(old: Rate, new: Rate) -> str:
    """The candidate's rate, led by the baseline's when it differs ("4/4 -> 3/4 75% (..)")."""
    (old_count, _), (new_count, new_interval) = old, new
    shown = rate_text(new_count, new_interval)
    if old_count == new_count:
        return shown
    before = f"{old_count.hits}/{old_count.total}" if old_count.total else "-"
    return f"{before} -> {shown}"


def skill_rows(report: Report) -> list[SkillRow]:
    target = report.skill.id
    found = routes(report)
    old = {f.skill: f for f in found["baseline"].skills}
    new = {f.skill: f for f in found["candidate"].skills}
    rows = []
    for skill in sorted(old | new):
        base, cand = old.get(skill), new.get(skill)
        recall, precision = (
            moved_rate(rate(base) if base else NO_RATE, rate(cand) if cand else NO_RATE)
            for rate in (recall_of, precision_of)
        )
        rows.append(
            SkillRow(
                skill,
                recall,
                precision,
                shares_text(cand.lost_to, target) if cand else "-",
                shares_text(cand.took_from, target) if cand else "-",
            )
        )
    return rows


def cell_rows(report: Report) -> list[tuple[str, str, int, int]]:
    """(expected, went, baseline, candidate) of every cell non-empty in either variant,
    in words."""
    target = report.skill.id
    return [
        (
            activation_words.label_text(expected, target),
            activation_words.label_text(went, target),
            old,
            new,
        )
        for expected, went, old, new in both_cells(routes(report))
    ]


def ambiguous_rows(report: Report) -> list[tuple[str, str, str, str]]:
    """(case id, acceptable skills, baseline's picks, candidate's picks) of every case with
    several acceptable skills."""
    target = report.skill.id
    found = routes(report)
    old = {a.case: a for a in found["baseline"].ambiguous}
    rows = []
    for case in found["candidate"].ambiguous:
        rows.append(
            (
                case.case,
                " or ".join(case.homes),
                picked_text(old.get(case.case), target),
                picked_text(case, target),
            )
        )
    return rows


def picked_text(case: Ambiguous | None, target: str) -> str:
    """ "billing:refunds 2/3, no skill 1/3"."""
    if case is None:
        return "-"
    return ", ".join(f"{place_text(s.label, target)} {s.count}/{case.valid}" for s in case.picked)
