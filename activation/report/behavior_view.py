"""Stage C's view (report/views.py) and what it draws in every format: per case each arm's
passes, the graders and levels, the skill's lift over no skill and how trials did where it
loaded, what the trials cost and pass@k / pass^k (efficiency_view.py), how often each judge
disagreed with itself (judge_view.py). Until a trial is graded it draws the cases as they
stand, with no figure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from activation._config import SUMMARY_LIST_LIMIT
from activation._models import COST_FAILS, NO_LIFT_FAILS, AnyInputs, CaseVerdict, Status
from activation.report import (
    activation_view,
    activation_words,
    behavior_words,
    chain_view,
    efficiency_view,
    judge_view,
    phrases,
    views,
)
from activation.report.markdown import code, escape
from activation.report.model import Report
from activation.report.terminal import STATUS_STYLE
from activation.report.views import ExtraTest, PageFigures
from activation.verdicts.behavior import LEVEL_ORDER, Behavior, Rate
from activation.verdicts.chain import ArmChain
from activation.verdicts.judge_agreement import JudgeAgreement


class BehaviorView:
    case = behavior_words.GRADED_CASE
    tests_body = True
    recall = False

    def cells(self, report: Report) -> str:
        return behavior_words.PASSED_CELLS

    def routes(self, report: Report) -> bool:
        """Which skills loaded is its loading figures, not a routing."""
        return False

    def terminal_cases(self, report: Report, entries: list[CaseVerdict]) -> RenderableType:
        return drawn(report).cases(entries)

    def terminal_sections(self, report: Report, entries: list[CaseVerdict]) -> list[RenderableType]:
        return drawn(report).sections(entries)

    def terminal_figures(self, report: Report) -> Text:
        return drawn(report).text()

    def markdown_figures(self, report: Report) -> list[str]:
        return drawn(report).markdown()

    def properties(self, report: Report) -> dict[str, str]:
        return drawn(report).properties()

    def case_lines(self, report: Report, entry: CaseVerdict) -> list[str]:
        return drawn(report).case_lines(entry)

    def extra_tests(self, report: Report) -> tuple[ExtraTest, ...]:
        return drawn(report).extra_tests(report.fail_on)

    def page_figures(self, report: Report) -> PageFigures | None:
        return drawn(report).page()

    def rate_word(self, report: Report) -> str:
        return "pass"

    def gate_reason(self, report: Report) -> str | None:
        return drawn(report).gate_reason()

    def blind(self, report: Report) -> str | None:
        return drawn(report).blind()

    def arms(self, report: Report) -> str | None:
        return drawn(report).arms()

    def lift_line(self, report: Report) -> str | None:
        return drawn(report).lift_line()

    def plan_cases(self, inputs: AnyInputs) -> str:
        graders = sum(len(case.graders) for case in inputs.cases)
        return f"{len(inputs.cases)} behavior case(s), {graders} grader(s) in all"

    def detectable_hint(self) -> str:
        return "in Stage C: the behavior gate benchmark (docs: Benchmarks)."

    def matrix_grid(self, cells: Sequence[Report]) -> views.Grid:
        """Pass rates and lift once every cell has graded trials."""
        graded = [(cell, cell.behavior) for cell in cells if cell.behavior is not None]
        if len(graded) < len(cells):
            return activation_words.recall_grid(cells)
        return behavior_words.behavior_grid(graded)

    def trend(self, report: Report) -> dict[str, views.Figure]:
        return drawn(report).trend()

    def judges(self, report: Report) -> Sequence[JudgeAgreement]:
        return drawn(report).judges()


def drawn(report: Report) -> Figures | Ungraded:
    """What a report's figures draw: nothing until a trial is graded."""
    if report.behavior is None:
        return UNGRADED
    return Figures(report.behavior, report.fail_on, report.chain or ())


@dataclass(frozen=True)
class Figures:
    """A Stage C run's figures in every format."""

    figures: Behavior
    fail_on: tuple[str, ...] = ()
    chain: tuple[ArmChain, ...] = ()
    """The attribution chain per arm with the skill (verdicts/chain.py)."""

    def cases(self, entries: list[CaseVerdict]) -> RenderableType:
        return cases_table(self.figures, entries)

    def sections(self, entries: list[CaseVerdict]) -> list[RenderableType]:
        graders = grader_table(self.figures, entries)
        found = efficiency_view.terminal_sections(self.figures, [entry.id for entry in entries])
        return [level_table(self.figures), *([graders] if graders is not None else []),
                chain_view.terminal(self.chain), *found]  # fmt: skip

    def text(self) -> Text:
        text = figures_text(self.figures).append("\n")
        for line in [*efficiency_view.lines(self.figures, self.fail_on),
                     *judge_view.lines(self.figures)]:  # fmt: skip
            text.append(f"{line}\n")
        return text

    def markdown(self) -> list[str]:
        judges = judge_view.markdown(self.figures)
        return [*markdown_figures(self.figures), "", *chain_view.markdown(self.chain), "",
                *efficiency_view.markdown(self.figures, self.fail_on),
                *(["", *judges] if judges else [])]  # fmt: skip

    def properties(self) -> dict[str, str]:
        graded = self.figures
        found = {"arms": ",".join(graded.arms), "lift": behavior_words.lift_text(graded.lift)}
        for loading in graded.loading:
            found[f"loading_{loading.arm}"] = behavior_words.loading_text(loading)
        for arm in self.chain:
            found[f"chain_{arm.arm}"] = chain_view.line(arm)
        cost, pass_k = efficiency_view.lines(graded, self.fail_on)
        judges = judge_view.lines(graded)
        return {**found, "cost_gate": cost, "pass_k": pass_k,
                **({"judge_agreement": "\n".join(judges)} if judges else {})}  # fmt: skip

    def case_lines(self, entry: CaseVerdict) -> list[str]:
        return junit_case_lines(entry, self.figures) + efficiency_view.case_lines(
            self.figures, entry.id
        )

    def extra_tests(self, fail_on: Sequence[str]) -> tuple[ExtraTest, ...]:
        """The skill's lift over no skill as a test of its own: a failure when the gate
        asks for it (`--fail-on no-lift`) and it is not shown."""
        graded = self.figures
        lines = [behavior_words.suite_rates_text(graded), behavior_words.suite_lift_text(graded)]
        lines += [behavior_words.loading_text(found) for found in graded.loading]
        fails = NO_LIFT_FAILS in fail_on and not graded.lift_shown
        failure = ("NO-LIFT", behavior_words.NO_LIFT) if fails else None
        cost = efficiency_view.lines(graded, fail_on)
        dearer = ("COST", efficiency_view.COSTS_MORE) if self.costs_more(fail_on) else None
        return (
            ExtraTest("behavior", "skill-lift", "\n".join(lines) + "\n", failure),
            ExtraTest("behavior", "efficiency", "\n".join(cost) + "\n", dearer),
        )

    def costs_more(self, fail_on: Sequence[str]) -> bool:
        """Whether `--fail-on cost` is asked and the candidate costs more."""
        found = self.figures.efficiency
        return COST_FAILS in fail_on and found is not None and found.cost.fails

    def page(self) -> PageFigures | None:
        return PageFigures("_behavior.html.j2", graded_page(self.figures, self.fail_on, self.chain))

    def gate_reason(self) -> str | None:
        """Why the gate failed with no case regressed: the lift, or the cost, it was asked
        to judge."""
        if NO_LIFT_FAILS in self.fail_on and not self.figures.lift_shown:
            return behavior_words.NO_LIFT
        return efficiency_view.COSTS_MORE if self.costs_more(self.fail_on) else None

    def blind(self) -> str | None:
        if not behavior_words.measures_nothing(self.figures):
            return None
        return behavior_words.blind_text(self.figures.arms)

    def arms(self) -> str | None:
        """ "arms: baseline, candidate, none (no skill of the set)": what the run ran."""
        said = {"none": "none (no skill of the set)", "llm": "llm (one model call, no agent)"}
        return "arms: " + ", ".join(said.get(arm, arm) for arm in self.figures.arms)

    def lift_line(self) -> str | None:
        return behavior_words.lift_text(self.figures.lift)

    def trend(self) -> dict[str, views.Figure]:
        """The candidate's pass rate and the skill's lift, where the run measured them."""
        found = {}
        rate = self.figures.suite.get("candidate")
        if rate is not None and (passed := views.share((rate.passed, rate.applied), rate.interval)):
            found["pass_rate"] = passed
        lift = self.figures.lift
        if lift:
            low, high = lift.interval
            found["lift"] = views.Figure(lift.difference, low, high, f"{lift.difference:+.0%}")
        return found

    def judges(self) -> Sequence[JudgeAgreement]:
        return self.figures.judges


class Ungraded:
    """A Stage C run before any trial was graded (every one errored): its cases as they
    stand, and no figure."""

    def cases(self, entries: list[CaseVerdict]) -> RenderableType:
        case, legend = behavior_words.GRADED_CASE, behavior_words.PASSED_CELLS
        return activation_view.activation_table(entries, case, legend)

    def sections(self, entries: list[CaseVerdict]) -> list[RenderableType]:
        return []

    def text(self) -> Text:
        return Text()

    def markdown(self) -> list[str]:
        return []

    def properties(self) -> dict[str, str]:
        return {}

    def case_lines(self, entry: CaseVerdict) -> list[str]:
        return []

    def extra_tests(self, fail_on: Sequence[str]) -> tuple[ExtraTest, ...]:
        return ()

    def page(self) -> PageFigures | None:
        return None

    def gate_reason(self) -> str | None:
        return None

    def blind(self) -> str | None:
        return None

    def arms(self) -> str | None:
        return None

    def lift_line(self) -> str | None:
        return None

    def trend(self) -> dict[str, views.Figure]:
        return {}

    def judges(self) -> Sequence[JudgeAgreement]:
        return ()


UNGRADED = Ungraded()


def cases_table(figures: Behavior, entries: list[CaseVerdict]) -> Table:
    """Per case: each arm's pass rate with its interval, p and q of the gate (baseline vs
    candidate), the status and the grader that broke first (each case's lift is in the
    Markdown, HTML, JUnit and JSON; the terminal gives the suite's)."""
    table = Table(title=f"Cases ({behavior_words.PASSED_CELLS})", title_justify="left")
    table.add_column("id", no_wrap=True)
    for arm in figures.arms:
        table.add_column(arm, justify="right")
    for column in ("p", "q"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("broke first")
    for entry in entries:
        case = figures.case(entry.id)
        table.add_row(
            entry.id,
            *(behavior_words.rate_cell(case.rate(arm)) for arm in figures.arms),
            phrases.number(entry.p_value),
            phrases.number(entry.q_value),
            Text(phrases.status_text(entry), style=STATUS_STYLE[entry.status]),
            behavior_words.case_broke(case),
        )
    return table


def grader_table(figures: Behavior, entries: list[CaseVerdict]) -> Table | None:
    """Each grader of the cases that did not simply pass, per arm: where a case broke."""
    shown = [figures.case(entry.id) for entry in entries if entry.status is not Status.PASS]
    if not shown:
        return None
    table = Table(title=behavior_words.GRADERS, title_justify="left")
    table.add_column("case", no_wrap=True)
    table.add_column("grader")
    for arm in figures.arms:
        table.add_column(arm, justify="right", no_wrap=True)
    for case in shown:
        for grader in case.graders:
            broke = grader.grader == case.broke
            table.add_row(
                case.id,
                Text(behavior_words.grader_text(grader), style="bold red" if broke else ""),
                *(behavior_words.grader_cell(grader.rate(arm)) for arm in figures.arms),
            )
    return table


def level_table(figures: Behavior) -> Table:
    """Every grader of a level over the suite, per arm."""
    table = Table(title=behavior_words.LEVELS, title_justify="left")
    table.add_column("level", no_wrap=True)
    for arm in figures.arms:
        table.add_column(arm, justify="right", no_wrap=True)
    for level in figures.levels:
        table.add_row(
            behavior_words.level_text(level.level),
            *(behavior_words.grader_cell(level.rate(arm)) for arm in figures.arms),
        )
    return table


def figures_text(figures: Behavior) -> Text:
    """Each arm's pass rate over the suite, the skill's lift over no skill, and how trials
    did where it loaded and where not."""
    text = Text()
    text.append(f"{behavior_words.suite_rates_text(figures)}\n")
    text.append(
        f"{behavior_words.suite_lift_text(figures)}\n",
        style="" if figures.lift_shown else "yellow",
    )
    text.append(f"{behavior_words.LOADED.lower()}:\n")
    for loading in figures.loading:
        text.append(f"  {behavior_words.loading_text(loading)}\n")
    text.rstrip()
    return text


def markdown_figures(figures: Behavior) -> list[str]:
    """Each case's pass rate per arm, each level's, the graders that changed, the skill's
    lift and loaded vs not."""
    arms = figures.arms
    head = "| " + " | ".join(arms) + " |"
    lines = [f"**Cases** ({escape(behavior_words.PASSED_CELLS)}, 95% Wilson)", ""]
    lifted = "none" in arms
    lift = " lift |" if lifted else ""
    lines += [f"| case {head}{lift} status | broke first |",
              "|---" * (len(arms) + 3 + lifted) + "|"]  # fmt: skip
    for case in figures.cases[:SUMMARY_LIST_LIMIT]:
        rates = [behavior_words.rate_cell(case.rate(arm)) for arm in arms]
        cells = " | ".join(rates + ([behavior_words.lift_cell(case.lift)] if lifted else []))
        broke = escape(behavior_words.case_broke(case))
        lines.append(f"| {code(case.id)} | {cells} | {case.status.value} | {broke} |")
    if len(figures.cases) > SUMMARY_LIST_LIMIT:
        lines.append(f"\n… and {len(figures.cases) - SUMMARY_LIST_LIMIT} more (see the HTML or "
                     "JSON report)")  # fmt: skip
    lines += ["", f"**{escape(behavior_words.LEVELS)}**", ""]
    lines += [f"| level {head}", "|---" * (len(arms) + 1) + "|"]
    for level in figures.levels:
        cells = " | ".join(behavior_words.grader_cell(level.rate(arm)) for arm in arms)
        lines.append(f"| {escape(behavior_words.level_text(level.level))} | {cells} |")
    changed = behavior_words.changed_graders(figures)
    if changed:
        lines += ["", f"**{escape(behavior_words.CHANGED_GRADERS)}**", ""]
        lines += [f"| case | grader {head}", "|---" * (len(arms) + 2) + "|"]
        for case, grader in changed[:SUMMARY_LIST_LIMIT]:
            cells = " | ".join(behavior_words.grader_cell(grader.rate(arm)) for arm in arms)
            lines.append(
                f"| {code(case.id)} | {escape(behavior_words.grader_text(grader))} | {cells} |"
            )
    lift = (
        f"**{escape(behavior_words.SUITE_LIFT)}**: {escape(behavior_words.lift_text(figures.lift))}"
    )
    lines += ["", escape(behavior_words.suite_rates_text(figures)), "", lift, ""]
    lines += [f"**{behavior_words.LOADED}**", ""]
    lines += [f"- {escape(behavior_words.loading_text(loading))}" for loading in figures.loading]
    return lines


def junit_case_lines(entry: CaseVerdict, figures: Behavior) -> list[str]:
    """A graded case: each arm's pass rate, each grader's per arm, the grader that broke
    first, the lift, and every trial with what it left."""
    case = figures.case(entry.id)
    lines = [f"{arm} pass rate: {behavior_words.rate_cell(case.rate(arm))}" for arm in figures.arms]
    for grader in case.graders:
        rates = ", ".join(f"{arm} {behavior_words.grader_cell(grader.rate(arm))}"
                          for arm in figures.arms if grader.rate(arm) is not None)  # fmt: skip
        lines.append(f"grader {behavior_words.grader_text(grader)}: {rates}")
    if case.broke is not None:
        lines.append(f"broke first: {behavior_words.case_broke(case)}")
    if case.lift is not None:
        lines.append(f"lift: {behavior_words.lift_text(case.lift)}")
    for trial in sorted(entry.trials, key=lambda t: (figures.arms.index(t.variant), t.index)):
        said = behavior_words.trial_words(trial)
        lines.append(f"trial {said.line}")
        lines += [f"  {grade}" for grade in said.failed]
    return lines


@dataclass(frozen=True)
class GraderCell:
    """One grader of one case in one arm: its pass rate as text and colour."""

    grader: str
    text: str
    style: str
    title: str


@dataclass(frozen=True)
class GraderMap:
    """One arm's case x grader heat map: a row per case, a column per level, each grader of
    the case at that level a cell, from red (never passed) to green (always)."""

    arm: str
    levels: tuple[str | None, ...]
    rows: tuple[tuple[str, tuple[tuple[GraderCell, ...], ...]], ...]
    """(case id, the graders at each level)."""


def pass_colour(rate: Rate | None) -> str:
    """Red at 0 % through yellow to green at 100 %; grey for a grader that never applied."""
    if rate is None:
        return ""
    if not rate.applied:
        return "background: #e5e7eb"
    hue = round(120 * rate.passed / rate.applied)
    return f"background: hsl({hue}, 70%, 80%)"


def grader_maps(figures: Behavior) -> list[GraderMap]:
    used = {grader.level for case in figures.cases for grader in case.graders}
    levels = tuple(level for level in LEVEL_ORDER if level in used)
    maps = []
    for arm in figures.arms:
        rows = []
        for case in figures.cases:
            cells = tuple(
                tuple(
                    GraderCell(
                        grader.grader,
                        behavior_words.grader_cell(grader.rate(arm)) or "-",
                        pass_colour(grader.rate(arm)),
                        f"{arm}: {case.id}: {behavior_words.grader_text(grader)}: "
                        f"{behavior_words.grader_cell(grader.rate(arm)) or 'not run'}",
                    )
                    for grader in case.graders
                    if grader.level == level
                )
                for level in levels
            )
            rows.append((case.id, cells))
        maps.append(GraderMap(arm, levels, tuple(rows)))
    return maps


@dataclass(frozen=True)
class GradedPage:
    """What the page shows of a behavior run (templates/_behavior.html.j2)."""

    figures: Behavior
    maps: list[GraderMap]
    suite: str
    lift: str
    loading: list[str]
    legend: str
    efficiency: efficiency_view.EfficiencyPage
    chain: list[tuple[str, ...]]
    """The attribution chain's rows (chain_view.rows)."""
    chain_notes: list[str]
    judges: judge_view.JudgePage
    heat_legend: str = behavior_words.HEAT_LEGEND
    chain_title: str = chain_view.TITLE
    chain_heads: tuple[str, ...] = chain_view.HEADS

    def rate(self, rate: Rate | None) -> str:
        return behavior_words.rate_cell(rate)

    def grader_rate(self, rate: Rate | None) -> str:
        return behavior_words.grader_cell(rate)

    def level(self, level: str | None) -> str:
        return behavior_words.level_text(level)

    def grader(self, case_id: str, name: str) -> str:
        found = self.figures.case(case_id)
        return next(behavior_words.grader_text(g) for g in found.graders if g.grader == name)

    @property
    def lifted(self) -> bool:
        """Whether the run had a `none` arm, so each case has a lift."""
        return "none" in self.figures.arms

    def lift_cell(self, case_id: str) -> str:
        return behavior_words.lift_cell(self.figures.case(case_id).lift)

    def broke(self, case_id: str) -> str:
        return behavior_words.case_broke(self.figures.case(case_id))


def graded_page(
    found: Behavior, fail_on: tuple[str, ...], chain: Sequence[ArmChain] = ()
) -> GradedPage:
    return GradedPage(found, grader_maps(found), behavior_words.suite_rates_text(found),
                        behavior_words.suite_lift_text(found),
                        [behavior_words.loading_text(loading) for loading in found.loading],
                        behavior_words.PASSED_CELLS,
                        efficiency_view.EfficiencyPage(found, fail_on), chain_view.rows(chain),
                        chain_view.notes(chain), judge_view.JudgePage(found.judges))  # fmt: skip


VIEW = BehaviorView()
