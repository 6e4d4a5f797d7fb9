"""`activation history`: saved runs as trends, per skill x cell (stage, agent, model).

A saved report has no date, branch or commit of its own: the runs are in the order given
(a folder's reports by file name, so CI names them by run number or date), a run is green
when its exit code is 0, and the base branch of `--against` is the folder its reports were
saved in. Each point is keyed by the candidate's description hash (and, for a behavior run,
the hash of the skill set's change it tested), the agent CLI's version and activation's own,
so an edit (the hash moved) is told from drift (the same text, another agent or tool).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from activation.report.matrix import Matrix
from activation.report.model import Delta, Report
from activation.report.views import Figure, share, view_of

METRICS = ("recall", "false_positives", "pass_rate", "lift", "cost_usd")
"""What each point measures, in the order every output shows them."""
TITLES = {"recall": "recall", "false_positives": "false positives", "pass_rate": "pass rate",
          "lift": "skill lift", "cost_usd": "cost (USD)"}  # fmt: skip
HASH_CHARS = 12
Change = Literal["first", "edit", "drift", "same"]
CellKey: TypeAlias = tuple[str, str]
"""A skill and a cell (stage, agent, model): what a series follows over the runs."""


@dataclass(frozen=True)
class Point:
    """One cell of one saved run: what was measured, and with what."""

    run: str
    """The report's name, as given or found in a folder."""
    exit_code: int
    description: str
    """The candidate's description (and `when_to_use`), hashed."""
    body: str | None
    """A behavior run's change of the skill set's files, hashed ("" hashed when none)."""
    agent_version: str | None
    version: str
    """The activation version that wrote the report."""
    figures: Mapping[str, Figure]
    change: Change = "first"
    """Against the series' previous point: the description or body moved (`edit`), only the
    agent's or activation's version did (`drift`), or nothing did."""

    @property
    def green(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class Series:
    """One skill in one cell over the runs, oldest first."""

    skill: str
    cell: str
    points: tuple[Point, ...]

    @property
    def key(self) -> CellKey:
        return self.skill, self.cell

    @property
    def latest(self) -> Point:
        return self.points[-1]


@dataclass(frozen=True)
class History:
    series: tuple[Series, ...]
    runs: int
    base_run: str | None = None
    """The base branch's last green run (`--against`), when one was found."""
    deltas: Mapping[CellKey, Delta] | None = None
    """Per series key, with `--against`; a series the base run lacks has none."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_CHARS]


def figures_of(report: Report) -> dict[str, Figure]:
    """What a cell's report measured, each metric it has (the stage's own by its view)."""
    candidate = report.summary.candidate
    found = {
        "recall": share(candidate.recall, candidate.recall_interval),
        "false_positives": share(candidate.false_positives, candidate.false_positives_interval),
        **view_of(report).trend(report),
    }
    cost = report.usage.cost_usd
    if cost is not None:
        found["cost_usd"] = Figure(cost, None, None, f"${cost:.4f}")
    return {name: figure for name, figure in found.items() if figure is not None}


def point_of(report: Report, run: str) -> Point:
    described = report.candidate.description + "\n" + (report.candidate.when_to_use or "")
    return Point(
        run=run,
        exit_code=report.exit_code,
        description=digest(described),
        body=None if report.body_diff is None else digest(report.body_diff),
        agent_version=report.agent.version if report.agent else None,
        version=report.version,
        figures=figures_of(report),
    )


def _change(before: Point, after: Point) -> Change:
    if (before.description, before.body) != (after.description, after.body):
        return "edit"
    if (before.agent_version, before.version) != (after.agent_version, after.version):
        return "drift"
    return "same"


def history_of(runs: Sequence[tuple[str, Matrix]]) -> History:
    """The runs, oldest first, as one series per skill and cell, each point marked by what
    moved since the series' previous one."""
    found: dict[tuple[str, str], list[Point]] = {}
    for name, run in runs:
        for cell in run.cells:
            points = found.setdefault((cell.skill.id, cell.cell), [])
            point = point_of(cell, name)
            if points:
                point = replace(point, change=_change(points[-1], point))
            points.append(point)
    series = tuple(Series(skill, cell, tuple(points))
                   for (skill, cell), points in found.items())  # fmt: skip
    return History(tuple(sorted(series, key=lambda s: s.key)), len(runs))


def last_green(runs: Sequence[tuple[str, Matrix]]) -> str | None:
    """The last run (in the order given) that passed its gate: exit code 0."""
    return next((name for name, run in reversed(runs) if run.exit_code == 0), None)


def green_points(runs: Sequence[tuple[str, Matrix]]) -> dict[CellKey, Point]:
    """Per skill and cell, its point in the last green run (in the order given) that ran
    it: a base branch's `changed` runs gate a few skills each, so one run rarely holds all."""
    found: dict[CellKey, Point] = {}
    for name, run in runs:
        if run.exit_code == 0:
            found |= {(cell.skill.id, cell.cell): point_of(cell, name) for cell in run.cells}
    return found


def delta(point: Point, base: Point) -> Delta:
    """`point` against `base`, on every figure both measured."""
    latest, before = point.figures, base.figures
    changes = {metric: latest[metric].value - before[metric].value
               for metric in METRICS if metric in latest and metric in before}  # fmt: skip
    return Delta(base.run, changes)


def against(found: History, runs: Sequence[tuple[str, Matrix]]) -> History:
    """`found` with each series' latest point measured against the base runs' last green
    run of the same cell."""
    base = green_points(runs)
    deltas = {series.key: delta(series.latest, base[series.key])
              for series in found.series if series.key in base}  # fmt: skip
    return History(found.series, found.runs, last_green(runs), deltas)


def with_against(run: Matrix, runs: Sequence[tuple[str, Matrix]]) -> Matrix:
    """`run` with each cell's delta against the base runs' last green run of that cell
    (`--against` on a run or `changed`); a cell none of them ran has none."""
    base = green_points(runs)
    cells = tuple(
        replace(cell, against=delta(point_of(cell, ""), base[key]))
        if (key := (cell.skill.id, cell.cell)) in base
        else cell
        for cell in run.cells
    )
    return replace(run, cells=cells)


def delta_text(metric: str, change: float) -> str:
    """A metric's delta as a person reads it: shares in points, cost in dollars."""
    if metric == "cost_usd":
        return f"{change:+.4f} USD"
    return f"{change * 100:+.0f} pts"


def delta_line(moved: Delta) -> str:
    """A cell's delta in one line, as every output says it."""
    shown = ", ".join(f"{TITLES[m]} {delta_text(m, v)}" for m, v in moved.changes.items())
    return f"against {moved.base_run}: {shown or 'no shared figures'}"


def badges(found: History) -> dict[str, dict[str, object]]:
    """A shields.io endpoint per skill, from the latest point of each of its cells: recall
    at its lowest and false positives at their highest across them; green when every cell
    passed, red when one regressed (exit 1), grey when one has no verdict."""
    by_skill: dict[str, list[Point]] = {}
    for series in found.series:
        by_skill.setdefault(series.skill, []).append(series.latest)
    out = {}
    for skill, latest in by_skill.items():
        words = []
        recalls = [p.figures["recall"].value for p in latest if "recall" in p.figures]
        fps = [p.figures["false_positives"].value for p in latest if "false_positives" in p.figures]
        passes = [p.figures["pass_rate"].value for p in latest if "pass_rate" in p.figures]
        if recalls:
            words.append(f"recall {min(recalls):.0%}")
        if fps:
            words.append(f"fp {max(fps):.0%}")
        if passes:
            words.append(f"pass {min(passes):.0%}")
        codes = {p.exit_code for p in latest}
        color = "brightgreen" if codes == {0} else "red" if codes <= {0, 1} else "lightgrey"
        out[skill] = {
            "schemaVersion": 1,
            "label": f"activation {skill}",
            "message": ", ".join(words) or "no figures",
            "color": color,
        }
    return out


def summary_lines(found: History) -> list[str]:
    """The terminal's account: a line per series, and its delta with `--against`."""
    lines = [f"{found.runs} run(s), {len(found.series)} series (skill x stage/agent/model)"]
    for series in found.series:
        first, last = series.points[0], series.latest
        moved = [
            f"{TITLES[metric]} {first.figures[metric].text} -> {last.figures[metric].text}"
            for metric in METRICS
            if metric in first.figures and metric in last.figures and metric != "cost_usd"
        ]
        edits = sum(point.change == "edit" for point in series.points)
        drifts = sum(point.change == "drift" for point in series.points)
        lines.append(f"{series.skill} {series.cell}: {len(series.points)} point(s); "
                     + "; ".join([*moved, f"{edits} edit(s), {drifts} drift(s)"]))  # fmt: skip
        moved_since = (found.deltas or {}).get(series.key)
        if moved_since is not None:
            lines.append(f"  {delta_line(moved_since)}")
    if found.deltas is not None and found.base_run is None:
        lines.append("no green run of the base branch found: no delta")
    return lines
