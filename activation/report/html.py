"""The HTML report: one self-contained page to look at, rendered from a Report.

Everything is inline (styles, script, SVG charts) and a Content-Security-Policy forbids any
fetch, so the file opens offline and shows the same thing anywhere. The template is a jinja2
file shipped with the package, autoescaped: prompts and descriptions are user text.

Per case a small chart shows each variant's correct rate with its 95% Wilson interval, so a
reviewer sees at a glance which cases moved and how sure the run is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

from activation._models import VARIANTS, CaseVerdict, Status, Trial, VariantName
from activation.report import words
from activation.report.model import Report
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

    @staticmethod
    def x(value: float) -> float:
        return round(CHART_LEFT + value * (CHART_RIGHT - CHART_LEFT), 1)

    @property
    def label(self) -> str:
        if self.rate is None:
            return f"{self.variant}: no valid trial"
        text = f"{self.variant}: {self.correct}/{self.valid} correct ({self.rate:.0%}"
        if self.low is not None and self.high is not None:
            text += f", 95% Wilson {self.low:.0%}-{self.high:.0%}"
        return text + (f", {self.errors} errored" if self.errors else "") + ")"


@dataclass(frozen=True)
class TrialLink:
    """A trial in the table: its reading, and where its transcript is (Stage B)."""

    variant: VariantName
    index: int
    reading: str
    href: str | None
    error: str | None


@dataclass(frozen=True)
class Row:
    """One case of the page's table: its chart's bars and a link per trial."""

    entry: CaseVerdict
    bars: tuple[Bar, ...]
    trials: tuple[TrialLink, ...]

    @property
    def group(self) -> str:
        return self.entry.group

    @property
    def expected(self) -> str:
        return words.EXPECTED[self.entry.should_activate]

    @property
    def delta(self) -> float | None:
        """Candidate minus baseline correct rate: how far the case moved."""
        base, cand = (bar.rate for bar in self.bars)
        return None if base is None or cand is None else cand - base

    @property
    def search_text(self) -> str:
        entry = self.entry
        return " ".join((entry.id, entry.prompt, *entry.tags, entry.status.value)).lower()


def bar(entry: CaseVerdict, variant: VariantName) -> Bar:
    tally = entry.tally(variant)
    correct = tally.correct
    if not tally.valid:
        return Bar(variant, 0, 0, tally.errors, None, None, None, ROW_Y[variant])
    low, high = wilson_interval(correct, tally.valid)
    return Bar(
        variant, correct, tally.valid, tally.errors, correct / tally.valid, low, high,
        ROW_Y[variant],
    )  # fmt: skip


def transcript_href(transcript: str, base: PurePath | None) -> str:
    """A link to a transcript: relative to the page's folder when both are absolute paths."""
    path = PurePosixPath(transcript)
    if base is not None and path.is_absolute() and base.is_absolute():
        return quote(PurePosixPath(os.path.relpath(path, base)).as_posix())
    return path.as_uri() if path.is_absolute() else quote(path.as_posix())


def _trial(trial: Trial, base: PurePath | None) -> TrialLink:
    href = transcript_href(trial.transcript, base) if trial.transcript else None
    return TrialLink(trial.variant, trial.index, trial.reading, href, trial.error)


def rows(report: Report, base: PurePath | None) -> list[Row]:
    return [
        Row(
            entry,
            tuple(bar(entry, variant) for variant in VARIANTS),
            tuple(
                _trial(trial, base)
                for trial in sorted(entry.trials, key=lambda t: (t.variant, t.index))
            ),
        )
        for entry in report.cases
    ]


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
    made.filters.update(number=words.number, tally=words.tally_cell)
    return made


def said(report: Report) -> dict[str, object]:
    """What the page says in words, from the one wording module."""
    return {
        "verdict": words.verdict(report),
        "recall": {v: words.recall_text(report.summary.figures(v)) for v in VARIANTS},
        "false_positives": {
            v: words.false_positives_text(report.summary.figures(v)) for v in VARIANTS
        },
        "real_command": words.real_command(report),
        "rerun_command": words.rerun_command(report),
        "usage_lines": words.usage_lines(report),
        "ceiling_line": words.ceiling_line(report),
    }


def render_html(report: Report, base: PurePath | None = None) -> str:
    """The page; `base` is the folder it will be saved in, for relative transcript links."""
    template = environment().get_template("report.html.j2")
    return template.render(
        report=report,
        rows=rows(report, base),
        statuses=list(Status),
        status_order=STATUS_ORDER,
        variants=VARIANTS,
        said=said(report),
        diff=words.word_diff(report.baseline.description, report.candidate.description),
        chart_width=CHART_WIDTH,
        ticks=[(Bar.x(value), f"{value:.0%}") for value in (0.0, 0.5, 1.0)],
    )
