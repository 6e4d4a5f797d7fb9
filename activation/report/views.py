"""Each stage's view of its report: what its cells are and how every output draws them.

A renderer never asks which stage a report is: it asks the report's view (`view_of`), found
by the stage the report records through one registry lookup, and draws what the view gives.
Stage A and B share the activation view (report/activation_view.py), Stage C has its own
(report/behavior_view.py); a new stage is a new view module and one line in `VIEW_MODULES`.
The modules are imported only when a report of theirs is drawn.
"""

from __future__ import annotations

import importlib
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

    from activation._models import CaseVerdict, Inputs, RunSettings, Tally, Trial, VariantName
    from activation.report.model import Report
    from activation.verdicts.judge_agreement import JudgeAgreement


@dataclass(frozen=True)
class ExtraTest:
    """A test of the stage's own beside the cases (Stage C: the skill's lift), for JUnit."""

    classname: str
    name: str
    text: str
    failure: tuple[str, str] | None = None
    """(type, message) when it fails the gate."""


@dataclass(frozen=True)
class PageFigures:
    """The stage's figures on the HTML page: a partial of templates/ and what it draws."""

    template: str
    view: object = None


@dataclass(frozen=True)
class TrialWords:
    """A trial as its stage says it: under a flagged case, and beside its reading on the
    page."""

    head: str
    """Its outcome: "candidate #0 failed, skill loaded"."""
    failed: tuple[str, ...] = ()
    """What failed in it: "L2 no invented client.refunds.force() failed: why"."""
    details: tuple[str, ...] = ()
    """What it left: "files a.ts, b.json", "transcript PATH", "workspace PATH"."""

    @property
    def line(self) -> str:
        """Its outcome, then what it left, in a line."""
        return "; ".join([self.head, *self.details])


@dataclass(frozen=True)
class Figure:
    """One measured value of a run, its interval where the run computed one, and how it
    reads: a point of `activation history`'s trends."""

    value: float
    low: float | None
    high: float | None
    text: str


def share(count: tuple[int, int], interval: tuple[float, float] | None) -> Figure | None:
    """A rate as a figure ("2/3"); None when it counted nothing."""
    hits, total = count
    if not total:
        return None
    low, high = interval if interval else (None, None)
    return Figure(hits / total, low, high, f"{hits}/{total}")


Grid = tuple[tuple[str, ...], list[list[str]]]
"""A matrix's grid: its columns and a row per cell."""


class CaseWords(Protocol):
    """How a stage says one of its cases, in every output: what it expects, what its counts
    count, where a moved case's trials went, and which of its trials a flagged case shows."""

    routes: str
    """What a case's routes are ("went to", "loaded")."""
    correct: str
    """What a trial that counts is called on the page's chart ("correct", "passed")."""

    def expected(self, entry: CaseVerdict) -> str:
        """What the case expects, in a few words."""
        ...

    def cell(self, entry: CaseVerdict, variant: VariantName) -> str:
        """A variant's counts in a table cell."""
        ...

    def counted(self, entry: CaseVerdict) -> str:
        """What the counts count, in a word."""
        ...

    def went(self, entry: CaseVerdict, target: str) -> str | None:
        """Where a moved case's candidate went wrong."""
        ...

    def verdict(self, tally: Tally) -> bool | None:
        """The majority a comparison of two runs (`diff`) follows."""
        ...

    def shown_trials(self, entry: CaseVerdict) -> list[TrialWords]:
        """The trials a flagged case shows under its line."""
        ...

    def said(self, trial: Trial) -> TrialWords | None:
        """A trial in the stage's words beside its reading; None where its reading (what
        fired, or its error) says it all."""
        ...


class View(Protocol):
    @property
    def case(self) -> CaseWords:
        """How the stage says one case."""
        ...

    tests_body: bool
    """Whether the stage's trials run the skill's body, not only its listing entry (its
    report then carries the body's diff)."""
    recall: bool
    """Whether recall, false positives and where the prompts went describe the stage's
    runs (Stage C's trials load skills, they are not routed)."""

    def cells(self, report: Report) -> str:
        """The legend of the case table's cells (what k/n counts)."""
        ...

    def routes(self, report: Report) -> bool:
        """Whether the report draws where its prompts went (routing sections, heat maps)."""
        ...

    def terminal_cases(self, report: Report, entries: list[CaseVerdict]) -> RenderableType:
        """The case table, for the terminal."""
        ...

    def terminal_sections(self, report: Report, entries: list[CaseVerdict]) -> list[RenderableType]:
        """The stage's own sections after the case table, for the terminal."""
        ...

    def terminal_figures(self, report: Report) -> Text:
        """The stage's own summary lines, before the run's usage, for the terminal."""
        ...

    def markdown_figures(self, report: Report) -> list[str]:
        """The stage's figures in Markdown, before the run's usage."""
        ...

    def properties(self, report: Report) -> dict[str, str]:
        """The stage's own properties of a JUnit testsuite."""
        ...

    def case_lines(self, report: Report, entry: CaseVerdict) -> list[str]:
        """The stage's own lines about a case, after its verdict's (JUnit)."""
        ...

    def extra_tests(self, report: Report) -> tuple[ExtraTest, ...]:
        """The stage's own tests beside the cases (JUnit)."""
        ...

    def page_figures(self, report: Report) -> PageFigures | None:
        """The stage's figures on the HTML page, under the counts."""
        ...

    def rate_word(self, report: Report) -> str:
        """What the page's per-case chart rates ("correct", "pass")."""
        ...

    def gate_reason(self, report: Report) -> str | None:
        """Why the gate failed when no case regressed, by the stage's own figures."""
        ...

    def blind(self, report: Report) -> str | None:
        """Why a passing run says nothing, when its trials ran and could not show a
        regression (none passed in any arm); None when it can."""
        ...

    def arms(self, report: Report) -> str | None:
        """What the run asked besides the two variants, in a line of the header."""
        ...

    def lift_line(self, report: Report) -> str | None:
        """The stage's own line in a comparison of two runs (`diff`)."""
        ...

    def plan_cases(self, inputs: Inputs) -> str:
        """A dry run's line on the cases it would run."""
        ...

    def detectable_hint(self) -> str:
        """Where a dry run points for what its settings can detect."""
        ...

    def matrix_grid(self, cells: Sequence[Report]) -> Grid:
        """A matrix's grid of its cells (columns and a row per cell), in every format."""
        ...

    def trend(self, report: Report) -> dict[str, Figure]:
        """The stage's own figures `activation history` follows, by metric (Stage C: its
        pass rate and the skill's lift)."""
        ...

    def judges(self, report: Report) -> Sequence[JudgeAgreement]:
        """How often each of its judge graders disagreed with itself, for a matrix's lines
        (none: a stage with no judge)."""
        ...


VIEW_MODULES: MutableMapping[str, str] = {
    "A": "activation.report.activation_view",
    "B": "activation.report.activation_view",
    "C": "activation.report.behavior_view",
}
"""Each module holds `VIEW`; keyed by the stage a report records."""


def view_of(spec: RunSettings) -> View:
    """The view of the stage a run (or its report) records."""
    view: View = importlib.import_module(VIEW_MODULES[spec.stage]).VIEW
    return view
