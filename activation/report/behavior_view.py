"""Stage C's view (report/views.py): per case each arm's passes, the graders and levels, the
skill's lift over no skill and how trials did where it loaded. Until a trial is graded it
draws the cases as they stand, with no figure."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from activation._models import CaseVerdict
from activation.report import markdown, terminal, words
from activation.report.model import Report


class BehaviorView:
    recall = False

    def cells(self, report: Report) -> str:
        return words.CASE_CELLS if report.behavior is None else words.PASSED_CELLS

    def routes(self, report: Report) -> bool:
        """Which skills loaded is its loading figures, not a routing."""
        return False

    def terminal_cases(self, report: Report, entries: list[CaseVerdict]) -> RenderableType:
        graded = report.behavior
        if graded is None:
            return terminal.activation_table(entries)
        return terminal.behavior_table(graded, entries)

    def terminal_sections(self, report: Report, entries: list[CaseVerdict]) -> list[RenderableType]:
        graded = report.behavior
        if graded is None:
            return []
        graders = terminal.grader_table(graded, entries)
        return [terminal.level_table(graded), *([graders] if graders is not None else [])]

    def terminal_figures(self, report: Report) -> Text:
        graded = report.behavior
        return Text() if graded is None else terminal.behavior_text(graded).append("\n")

    def markdown_figures(self, report: Report) -> list[str]:
        graded = report.behavior
        return [] if graded is None else markdown.behavior_lines(graded)


VIEW = BehaviorView()
