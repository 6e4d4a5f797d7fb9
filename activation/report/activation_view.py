"""Stage A's and B's view (report/views.py) and what it draws of its own: per case each
variant's activations, recall and false positives over the suite, and where the prompts
went."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from activation._models import VARIANTS, CaseVerdict, Inputs
from activation.report import activation_words, phrases, plan, routing_text, views
from activation.report.markdown import code
from activation.report.model import Report
from activation.report.terminal import STATUS_STYLE
from activation.report.views import CaseWords, ExtraTest, PageFigures
from activation.verdicts.judge_agreement import JudgeAgreement


class ActivationView:
    case = activation_words.ACTIVATION_CASE
    tests_body = False
    recall = True

    def cells(self, report: Report) -> str:
        return activation_words.CASE_CELLS

    def routes(self, report: Report) -> bool:
        """Whether the suite routes: two or more skills are the one home of some case."""
        found = routing_text.routes(report)
        homed = {f.skill for r in found.values() for f in r.skills if f.recall.total}
        return len(homed) > 1

    def terminal_cases(self, report: Report, entries: list[CaseVerdict]) -> RenderableType:
        return activation_table(entries, self.case, self.cells(report))

    def terminal_sections(self, report: Report, entries: list[CaseVerdict]) -> list[RenderableType]:
        return []

    def terminal_figures(self, report: Report) -> Text:
        text = Text()
        for variant in VARIANTS:
            figures = report.summary.figures(variant)
            text.append(f"{variant:9} recall {activation_words.recall_text(figures)}\n")
            text.append(
                f"{'':9} false positives {activation_words.false_positives_text(figures)}\n"
            )
        routing = [] if self.routes(report) else activation_words.routing_changes(report)
        if routing:  # else in the routing section
            text.append("where the prompts went, baseline -> candidate:\n")
            for line in routing:
                text.append(f"  {line}\n")
        return text

    def markdown_figures(self, report: Report) -> list[str]:
        return recall_lines(report)

    def properties(self, report: Report) -> dict[str, str]:
        return {}

    def case_lines(self, report: Report, entry: CaseVerdict) -> list[str]:
        return []

    def extra_tests(self, report: Report) -> tuple[ExtraTest, ...]:
        return ()

    def page_figures(self, report: Report) -> PageFigures | None:
        return PageFigures("_recall.html.j2")

    def rate_word(self, report: Report) -> str:
        return "correct"

    def gate_reason(self, report: Report) -> str | None:
        return None

    def blind(self, report: Report) -> str | None:
        return None

    def arms(self, report: Report) -> str | None:
        return None

    def lift_line(self, report: Report) -> str | None:
        return None

    def plan_cases(self, inputs: Inputs) -> str:
        counts = plan.case_counts(inputs.cases, inputs.target.skill_id)
        return f"{len(inputs.cases)} case(s): {counts}"

    def detectable_hint(self) -> str:
        return "on a suite this size: add --simulate."

    def matrix_grid(self, cells: Sequence[Report]) -> views.Grid:
        return activation_words.recall_grid(cells)

    def trend(self, report: Report) -> dict[str, views.Figure]:
        return {}

    def judges(self, report: Report) -> Sequence[JudgeAgreement]:
        return ()


def activation_table(entries: list[CaseVerdict], case: CaseWords, legend: str) -> Table:
    """Per case each variant's counts (as `legend` says), p and q, and the status."""
    table = Table(title=f"Cases ({legend})", title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("expected")
    for column in ("baseline", "candidate", "p", "q"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for entry in entries:
        table.add_row(
            entry.id,
            case.expected(entry),
            case.cell(entry, "baseline"),
            case.cell(entry, "candidate"),
            phrases.number(entry.p_value),
            phrases.number(entry.q_value),
            Text(phrases.status_text(entry), style=STATUS_STYLE[entry.status]),
        )
    return table


def recall_lines(report: Report) -> list[str]:
    """Each variant's recall and false positives (Stage A's and B's figures)."""
    lines = ["| variant | recall | false positives |", "|---|---|---|"]
    for name in VARIANTS:
        figures = report.summary.figures(name)
        lines.append(
            f"| {name} {code(report.variant(name).spec)} | {activation_words.recall_text(figures)} "
            f"| {activation_words.false_positives_text(figures)} |"
        )
    return lines


VIEW = ActivationView()
