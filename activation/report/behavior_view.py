"""Stage C's view (report/views.py): per case each arm's passes, the graders and levels, the
skill's lift over no skill and how trials did where it loaded. Until a trial is graded it
draws the cases as they stand, with no figure."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from activation._models import NO_LIFT_FAILS, AnyInputs, CaseVerdict
from activation.report import html, junit, markdown, terminal, words
from activation.report.model import Report
from activation.report.views import ExtraTest, PageFigures


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

    def properties(self, report: Report) -> dict[str, str]:
        graded = report.behavior
        if graded is None:
            return {}
        found = {"arms": ",".join(graded.arms), "lift": words.lift_text(graded.lift)}
        for loading in graded.loading:
            found[f"loading_{loading.arm}"] = words.loading_text(loading)
        return found

    def case_lines(self, report: Report, entry: CaseVerdict) -> list[str]:
        graded = report.behavior
        if graded is None or not words.graded_case(entry):
            return []
        return junit.behavior_lines(entry, graded)

    def extra_tests(self, report: Report) -> tuple[ExtraTest, ...]:
        """The skill's lift over no skill as a test of its own: a failure when the gate
        asks for it (`--fail-on no-lift`) and it is not shown."""
        graded = report.behavior
        if graded is None:
            return ()
        lines = [words.suite_rates_text(graded), words.suite_lift_text(graded)]
        text = "\n".join(lines + [words.loading_text(found) for found in graded.loading]) + "\n"
        fails = NO_LIFT_FAILS in report.fail_on and not graded.lift_shown
        failure = ("NO-LIFT", words.NO_LIFT) if fails else None
        return (ExtraTest("behavior", "skill-lift", text, failure),)

    def page_figures(self, report: Report) -> PageFigures | None:
        graded = report.behavior
        return (
            None if graded is None else PageFigures("_behavior.html.j2", html.graded_view(graded))
        )

    def rate_word(self, report: Report) -> str:
        return "correct" if report.behavior is None else "pass"

    def gate_reason(self, report: Report) -> str | None:
        graded = report.behavior
        return None if graded is None or graded.lift_shown else words.NO_LIFT

    def arms(self, report: Report) -> str | None:
        """ "arms: baseline, candidate, none (no skill of the set)": what the run ran."""
        graded = report.behavior
        if graded is None:
            return None
        said = {"none": "none (no skill of the set)", "llm": "llm (one model call, no agent)"}
        return "arms: " + ", ".join(said.get(arm, arm) for arm in graded.arms)

    def lift_line(self, report: Report) -> str | None:
        graded = report.behavior
        return None if graded is None else words.lift_text(graded.lift)

    def plan_cases(self, inputs: AnyInputs) -> str:
        graders = sum(len(case.graders) for case in inputs.cases)
        return f"{len(inputs.cases)} behavior case(s), {graders} grader(s) in all"

    def detectable_hint(self) -> str:
        return "in Stage C: the behavior gate benchmark (docs: Benchmarks)."

    def matrix_grid(self, cells: Sequence[Report]) -> words.Grid:
        """Pass rates and lift once every cell has graded trials."""
        graded = [(cell, cell.behavior) for cell in cells if cell.behavior is not None]
        if len(graded) < len(cells):
            return words.recall_grid(cells)
        return words.behavior_grid(graded)


VIEW = BehaviorView()
