"""The HTML report: one self-contained page to look at, rendered from a Report.

Everything is inline (styles, script, SVG charts) and a Content-Security-Policy forbids any
fetch, so the file opens offline and shows the same thing anywhere. The template is a jinja2
file shipped with the package, autoescaped: prompts and descriptions are user text.

Per case a small chart shows each variant's correct rate with its 95% Wilson interval, so a
reviewer sees at a glance which cases moved and how sure the run is.

The page's body is a partial (templates/_cell.html.j2, with the style and the script
beside it) that the page of several cells (matrix_html.py) shows once per cell: a
`Section` is what it needs of one report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

from activation._models import (
    FLAGGED,
    NONE,
    OTHER,
    VARIANTS,
    Arm,
    CaseVerdict,
    Status,
    Trial,
    VariantName,
)
from activation.report import activation_words, phrases, routing_text, run_words
from activation.report.cost_words import ceiling_line, usage_lines
from activation.report.follow_up import real_command, rerun_command
from activation.report.model import Report
from activation.report.views import CaseWords, PageFigures, view_of
from activation.verdicts.stats import wilson_interval

if TYPE_CHECKING:
    import jinja2

CHART_WIDTH = 200
CHART_LEFT = 8
CHART_RIGHT = 192
ROW_Y = {"baseline": 14, "candidate": 32}
STATUS_ORDER = {status: position for position, status in enumerate(Status)}


@dataclass(frozen=True)
class Bar:
    """One variant's correct rate in a case's chart, with its x positions in the SVG."""

    variant: VariantName
    correct: int
    valid: int
    errors: int
    rate: float | None
    low: float | None
    high: float | None
    y: int
    counted: str = "correct"
    """What its trials count, in its stage's word ("correct", "passed")."""

    @staticmethod
    def x(value: float) -> float:
        return round(CHART_LEFT + value * (CHART_RIGHT - CHART_LEFT), 1)

    @property
    def label(self) -> str:
        if self.rate is None:
            return f"{self.variant}: no valid trial"
        text = f"{self.variant}: {self.correct}/{self.valid} {self.counted} ({self.rate:.0%}"
        if self.low is not None and self.high is not None:
            text += f", 95% Wilson {self.low:.0%}-{self.high:.0%}"
        return text + (f", {self.errors} errored" if self.errors else "") + ")"


@dataclass(frozen=True)
class TrialLink:
    """A trial in the table: its reading, and where its transcript is (Stage B)."""

    variant: Arm
    index: int
    reading: str
    href: str | None
    error: str | None
    chose: tuple[str, ...] = ()
    """The skills that fired, first first."""
    outcome: str | None = None
    """Its outcome in its stage's words, where its reading does not say it all (Stage C:
    passed or failed, and whether the skill loaded)."""
    failed: tuple[str, ...] = ()
    """What failed in it."""
    files: tuple[str, ...] = ()
    workspace: str | None = None
    """A link to its kept workspace."""


@dataclass(frozen=True)
class Row:
    """One case of the page's table: its chart's bars and a link per trial."""

    entry: CaseVerdict
    bars: tuple[Bar, ...]
    trials: tuple[TrialLink, ...]
    case: CaseWords
    """How its stage says it."""

    @property
    def group(self) -> str:
        return self.entry.group

    @property
    def expected(self) -> str:
        return self.case.expected(self.entry)

    def cell(self, variant: VariantName) -> str:
        return self.case.cell(self.entry, variant)

    @property
    def delta(self) -> float | None:
        """Candidate minus baseline correct rate: how far the case moved."""
        base, cand = (bar.rate for bar in self.bars)
        return None if base is None or cand is None else cand - base

    @property
    def search_text(self) -> str:
        entry = self.entry
        return " ".join((entry.id, entry.prompt, *entry.tags, entry.status.value)).lower()


def bar(entry: CaseVerdict, variant: VariantName, counted: str) -> Bar:
    tally = entry.tally(variant)
    correct = tally.correct
    if not tally.valid:
        return Bar(variant, 0, 0, tally.errors, None, None, None, ROW_Y[variant])
    low, high = wilson_interval(correct, tally.valid)
    return Bar(
        variant, correct, tally.valid, tally.errors, correct / tally.valid, low, high,
        ROW_Y[variant], counted,
    )  # fmt: skip


def transcript_href(transcript: str, base: PurePath | None) -> str:
    """A link to a transcript: relative to the page's folder when both are absolute paths."""
    path = PurePosixPath(transcript)
    if base is not None and path.is_absolute() and base.is_absolute():
        return quote(PurePosixPath(os.path.relpath(path, base)).as_posix())
    return path.as_uri() if path.is_absolute() else quote(path.as_posix())


def _trial(trial: Trial, base: PurePath | None, case: CaseWords) -> TrialLink:
    href = transcript_href(trial.transcript, base) if trial.transcript else None
    said = case.said(trial)
    if said is None:
        return TrialLink(trial.variant, trial.index, trial.reading, href, trial.error, trial.chose)
    workspace = transcript_href(trial.workspace, base) if trial.workspace else None
    return TrialLink(trial.variant, trial.index, trial.reading, href, None, trial.chose,
                     said.head, said.failed, trial.files, workspace)  # fmt: skip


def flagged_first(entry: CaseVerdict) -> int:
    """Where a case's row goes: the flagged cases first (REGRESSED first, as every report
    lists them), then the rest in the suite's order."""
    return FLAGGED.index(entry.status) if entry.status in FLAGGED else len(FLAGGED)


def rows(report: Report, base: PurePath | None) -> list[Row]:
    """The case table's rows, the flagged cases first: a reviewer of a large suite sees
    what asks for a look without scrolling past hundreds of passes."""
    case = view_of(report).case
    return [
        Row(
            entry,
            tuple(bar(entry, variant, case.correct) for variant in VARIANTS),
            tuple(
                _trial(trial, base, case)
                for trial in sorted(entry.trials, key=lambda t: (t.variant, t.index))
            ),
            case,
        )
        for entry in sorted(report.cases, key=flagged_first)
    ]


@dataclass(frozen=True)
class HeatCell:
    """One cell of a routing heat map: its trials (or, in the difference, their change) and
    its colour, deeper for a larger share of its row's trials."""

    text: str
    style: str
    title: str


@dataclass(frozen=True)
class HeatMap:
    """Expected home (rows) x first skill fired (columns), for a variant or the difference."""

    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[HeatCell, ...], ...]


RIGHT_RGB, WRONG_RGB, COUNT_RGB = "22, 163, 74", "220, 38, 38", "37, 99, 235"


def is_home(expected: str, went: str, target: str) -> bool:
    """Whether trials of a row going to a column went where the row's cases belong."""
    if expected == OTHER:
        return went != target
    return went in expected.split("|")


def _shade(rgb: str, share: float) -> str:
    return f"background: rgba({rgb}, {0.08 + 0.72 * min(1.0, share):.2f})" if share else ""


def heat_maps(report: Report) -> list[HeatMap]:
    """Both variants' routing matrices over the same rows and columns, then the candidate's
    change: green where more trials went to their home (or fewer away from it), red where
    more went astray. A behavior run has none: which skills loaded is its loading figures."""
    if not view_of(report).recall:
        return []
    target = report.skill.id
    routes = {name: report.summary.routing(name) for name in VARIANTS}
    rows = tuple(dict.fromkeys(label for r in routes.values() for label in r.rows))
    columns = tuple(sorted({c for r in routes.values() for c in r.columns},
                           key=lambda label: (label in (NONE, OTHER), label)))  # fmt: skip
    if not rows:
        return []

    def total(name: VariantName, row: str) -> int:
        return sum(routes[name].count(row, column) for column in columns) or 1

    maps = []
    for name in VARIANTS:
        cells = tuple(
            tuple(
                HeatCell(
                    str(routes[name].count(row, column) or ""),
                    _shade(COUNT_RGB, routes[name].count(row, column) / total(name, row)),
                    f"{name}: {activation_words.label_text(row, target)} -> "
                    f"{activation_words.label_text(column, target)}: "
                    f"{routes[name].count(row, column)}",
                )
                for column in columns
            )
            for row in rows
        )
        maps.append(HeatMap(name, rows, columns, cells))
    change = []
    for row in rows:
        line = []
        for column in columns:
            moved = routes["candidate"].count(row, column) - routes["baseline"].count(row, column)
            better = (moved > 0) == is_home(row, column, target)
            rgb = RIGHT_RGB if better else WRONG_RGB
            line.append(
                HeatCell(
                    f"{moved:+d}" if moved else "",
                    _shade(rgb, abs(moved) / total("baseline", row)) if moved else "",
                    f"candidate - baseline: {activation_words.label_text(row, target)} -> "
                    f"{activation_words.label_text(column, target)}: {moved:+d}",
                )
            )
        change.append(tuple(line))
    maps.append(HeatMap("difference", rows, columns, tuple(change)))
    return maps


@cache
def environment() -> jinja2.Environment:
    import jinja2

    made = jinja2.Environment(
        loader=jinja2.PackageLoader("activation.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    made.filters.update(number=phrases.number)
    return made


def skill_figures(report: Report) -> list[tuple[str, list[str]]]:
    """Per skill: recall and precision in each variant, when the run saw several skills."""
    found = {name: {f.skill: f for f in report.summary.routing(name).skills} for name in VARIANTS}
    skills = sorted(found["baseline"].keys() | found["candidate"].keys())
    if len(skills) < 2:
        return []
    table = []
    for skill in skills:
        sides = [found[name].get(skill) for name in VARIANTS]
        cells = [phrases.percent(f.recall, f.recall_interval) if f else "n/a" for f in sides]
        cells += [phrases.percent(f.precision, f.precision_interval) if f else "n/a" for f in sides]
        candidate = sides[1]
        cells += [
            routing_text.shares_text(shares, report.skill.id)
            for shares in ((candidate.lost_to, candidate.took_from) if candidate else ((), ()))
        ]
        table.append((skill, cells))
    return table


def said(report: Report) -> dict[str, object]:
    """What the page says in words, in the words every output shares."""
    return {
        "verdict": run_words.verdict(report),
        "agent": phrases.agent_label(report),
        "stage": phrases.stage_text(report),
        "recall": {v: activation_words.recall_text(report.summary.figures(v)) for v in VARIANTS},
        "false_positives": {
            v: activation_words.false_positives_text(report.summary.figures(v)) for v in VARIANTS
        },
        "real_command": real_command(report),
        "rerun_command": rerun_command(report),
        "usage_lines": usage_lines(report),
        "ceiling_line": ceiling_line(report),
        "visibility": run_words.visibility_lines(report),
        "errors_line": run_words.errors_line(report),
        "against_line": run_words.against_line(report),
        "ambiguous": routing_text.ambiguous_rows(report),
    }


@dataclass(frozen=True)
class Section:
    """One report's part of a page (templates/_cell.html.j2): everything it shows, the
    prefix that keeps its element ids apart from another report's on the same page, and
    the level of its headings."""

    report: Report
    prefix: str
    level: int
    rows: list[Row]
    said: dict[str, object]
    diff: list[tuple[str, str]]
    entry_diffs: list[tuple[str, list[tuple[str, str]]]]
    heat_maps: list[HeatMap]
    skill_figures: list[tuple[str, list[str]]]
    figures: PageFigures | None = None
    """The stage's figures under the counts (its view's)."""
    rate_word: str = "correct"
    root: str | None = None
    """The repository's absolute path, as the report's specs give it (see `repo_root`)."""

    def label(self, text: str) -> str:
        return activation_words.label_text(text, self.report.skill.id)

    @staticmethod
    def diff_class(line: str) -> str:
        """A body diff line's colour: a file's header, a hunk's, a removal or an addition."""
        if line.startswith(("--- ", "+++ ", "Binary file ")):
            return "file"
        return {"@": "hunk", "-": "del", "+": "ins"}.get(line[:1], "")

    def local(self, text: str) -> str:
        """`text` with the repository's absolute path taken out: a page is read on other
        machines (a CI artefact), where the runner's folders mean nothing."""
        return text if self.root is None else text.replace(self.root, "")


def repo_root(report: Report) -> str | None:
    """The repository's absolute path, with its final slash: a working-tree spec is the
    SKILL.md's absolute path, which ends in the skill's path within the repository."""
    tail = "/" + report.skill.path
    for name in VARIANTS:
        spec = report.variant(name).spec
        if PurePosixPath(spec).is_absolute() and spec.endswith(tail):
            return spec[: -len(report.skill.path)]
    return None


def section(report: Report, base: PurePath | None, prefix: str = "", level: int = 2) -> Section:
    """A report's section; `base` is the page's folder, for relative transcript links."""
    view = view_of(report)
    return Section(
        report,
        prefix,
        level,
        rows(report, base),
        said(report),
        phrases.word_diff(report.baseline.description, report.candidate.description),
        run_words.entry_diffs(report),
        heat_maps(report),
        skill_figures(report),
        view.page_figures(report),
        view.rate_word(report),
        repo_root(report),
    )


def shared() -> dict[str, object]:
    """What a section's template needs whatever the report: statuses, variants, the chart."""
    return {
        "statuses": list(Status),
        "status_order": STATUS_ORDER,
        "variants": VARIANTS,
        "chart_width": CHART_WIDTH,
        "ticks": [(Bar.x(value), f"{value:.0%}") for value in (0.0, 0.5, 1.0)],
    }


def render_html(report: Report, base: PurePath | None = None) -> str:
    """The page; `base` is the folder it will be saved in, for relative transcript links."""
    template = environment().get_template("report.html.j2")
    return template.render(section=section(report, base), prefixes=[""], **shared())
