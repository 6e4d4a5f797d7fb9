"""What a behavior run's trials cost and how reliably they pass, in every format: each
figure's median per arm with the candidate's ratio to `none` and `baseline`
(verdicts/efficiency.py), the cost gate, and pass@k / pass^k per case and arm
(verdicts/passk.py). Stage C's view (behavior_view.py) places them beside the pass-rate
lift."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

from activation._config import SUMMARY_LIST_LIMIT
from activation._models import COST_FAILS, Arm
from activation.report.markdown import code, escape
from activation.verdicts.behavior import Behavior
from activation.verdicts.efficiency import (
    COMPARED,
    COST,
    CostGate,
    Efficiency,
    FigureEfficiency,
    Median,
    Ratio,
)
from activation.verdicts.passk import PassK

NAMES = {
    "input_tokens": "input tokens",
    "cache_read_tokens": "cache-read tokens",
    "cache_write_tokens": "cache-write tokens",
    "output_tokens": "output tokens",
    "cost_usd": "cost",
    "turns": "turns",
    "tool_calls": "tool calls",
    "seconds": "wall time",
}
"""Each figure (`_models.FIGURES`) as outputs name it."""
EFFICIENCY = (
    "Efficiency (median per trial, 95% order-statistic interval; candidate ÷ arm: "
    "Hodges-Lehmann ratio, 95% rank interval)"
)
CASE_EFFICIENCY = "Efficiency per case"
COSTS_MORE = (
    "FAILED: the candidate costs significantly more than the baseline, by more than "
    "--cost-margin (--fail-on cost)."
)
NOT_MEASURED = "efficiency: not measured (the agent's stream gave no figure)"


def reliability_title(k: int) -> str:
    return f"pass@{k} / pass^{k} (one of {k} trials passes / all {k} do)"


def amount(figure: str, value: float) -> str:
    """ "$0.80", "220 s", "12,345" (tokens), "4" (turns)."""
    if figure == "cost_usd":
        return f"${value:.2f}" if value >= 0.1 else f"${value:.4f}"
    if figure == "seconds":
        return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"
    return f"{value:,.0f}" if value >= 100 else f"{value:g}"


def median_cell(figure: str, median: Median | None) -> str:
    """ "$0.80 ($0.61-$0.95)": the median and its interval; "" where the arm gave none."""
    if median is None:
        return ""
    shown = amount(figure, median.value)
    if median.interval is None:
        return shown
    low, high = median.interval
    return f"{shown} ({amount(figure, low)}-{amount(figure, high)})"


def ratio_cell(ratio: Ratio | None) -> str:
    """ "0.09x (0.05-0.20)": the candidate's figure over the other arm's; "n/a" without."""
    if ratio is None:
        return "n/a"
    shown = f"{ratio.value:.2f}x"
    if ratio.interval is None:
        return shown
    low, high = ratio.interval
    return f"{shown} ({low:.2f}-{high:.2f})"


def compared(figures: Behavior) -> tuple[Arm, ...]:
    """The arms the candidate is compared with in this run."""
    return tuple(arm for arm in COMPARED if arm in figures.arms)


def row(found: FigureEfficiency, arms: Sequence[str], against: Sequence[Arm]) -> list[str]:
    """A figure's cells: each arm's median, then each ratio."""
    medians = [median_cell(found.figure, found.arms.get(arm)) for arm in arms]
    return medians + [ratio_cell(found.ratio(arm)) for arm in against]


def heads(arms: Sequence[str], against: Sequence[str]) -> list[str]:
    return [*arms, *(f"candidate ÷ {arm}" for arm in against)]


def cost_text(gate: CostGate, fail_on: Sequence[str]) -> str:
    """The cost gate in a line: what it tested and whether it fails."""
    margin = f"more than {gate.margin:.0%} more than the baseline"
    if gate.p is None:
        return "cost gate: not measured (no case has a cost in both baseline and candidate)"
    asked = COST_FAILS in fail_on
    verdict = (
        ("FAILED (--fail-on cost)" if asked else "significant (--fail-on cost would fail)")
        if gate.fails
        else "not significant"
    )
    return (
        f"cost gate: does the candidate cost {margin}? one-sided Wilcoxon over "
        f"{gate.cases} case(s): p = {gate.p:.3g}, {verdict}"
    )


def pass_k_cell(found: PassK | None) -> str:
    """ "67% / 33%": pass@k / pass^k; "n/a" with fewer than k valid trials."""
    if found is None or found.at_k is None or found.every_k is None:
        return "n/a"
    return f"{found.at_k:.0%} / {found.every_k:.0%}"


SUITE_PASS_K = "suite (mean of the cases)"


def suite_pass_k_cell(figures: Behavior, arm: str) -> str:
    """The suite's mean in an arm, with how many cases had k valid trials when not all."""
    found = figures.pass_k.get(arm)
    shown = pass_k_cell(found)
    counted = 0 if found is None else found.cases
    return shown if counted in (0, len(figures.cases)) else f"{shown} ({counted} cases)"


def pass_k_line(figures: Behavior) -> str:
    """ "pass@3 / pass^3 over the suite: baseline 100% / 93%, candidate ..."."""
    cells = ", ".join(f"{arm} {suite_pass_k_cell(figures, arm)}" for arm in figures.arms)
    return f"pass@{figures.k} / pass^{figures.k} over the suite: {cells}"


GRID_COLUMNS = ("pass@k / pass^k (candidate)", "cost ÷ baseline")
"""What a matrix of behavior cells shows of each cell's reliability and efficiency."""


def grid_cells(figures: Behavior) -> list[str]:
    """A cell's candidate pass@k / pass^k ("k=3: 67% / 33%") and its suite cost ratio."""
    found = figures.efficiency
    cost = (
        None if found is None else next((each for each in found.suite if each.figure == COST), None)
    )
    ratio = "not measured" if cost is None else ratio_cell(cost.ratio("baseline"))
    return [f"k={figures.k}: {suite_pass_k_cell(figures, 'candidate')}", ratio]


def efficiency_table(found: Efficiency, figures: Behavior) -> Table:
    """Over the suite: each figure's median per arm and the candidate's ratios."""
    against = compared(figures)
    table = Table(title=EFFICIENCY, title_justify="left")
    table.add_column("figure", no_wrap=True)
    for head in heads(figures.arms, against):
        table.add_column(head, justify="right")
    for each in found.suite:
        table.add_row(NAMES[each.figure], *row(each, figures.arms, against))
    return table


def pass_k_table(figures: Behavior, ids: Sequence[str]) -> Table:
    """pass@k / pass^k per case shown and arm, then over the suite."""
    table = Table(title=reliability_title(figures.k), title_justify="left")
    table.add_column("case", no_wrap=True)
    for arm in figures.arms:
        table.add_column(arm, justify="right", no_wrap=True)
    for case_id in ids:
        case = figures.case(case_id)
        table.add_row(case_id, *(pass_k_cell(case.pass_k.get(arm))
                                 for arm in figures.arms))  # fmt: skip
    table.add_row(SUITE_PASS_K, *(suite_pass_k_cell(figures, arm) for arm in figures.arms))
    return table


def terminal_sections(figures: Behavior, ids: Sequence[str]) -> list[Table]:
    found = figures.efficiency
    tables = [] if found is None else [efficiency_table(found, figures)]
    return [*tables, pass_k_table(figures, ids)]


def lines(figures: Behavior, fail_on: Sequence[str]) -> list[str]:
    """The cost gate and the suite's pass@k / pass^k, a line each (terminal, JUnit)."""
    found = figures.efficiency
    said = [NOT_MEASURED if found is None else cost_text(found.cost, fail_on)]
    return [*said, pass_k_line(figures)]


def markdown(figures: Behavior, fail_on: Sequence[str]) -> list[str]:
    """The suite's efficiency, each case's, the cost gate, and pass@k / pass^k per case."""
    arms, against = figures.arms, compared(figures)
    found = figures.efficiency
    out: list[str] = []
    if found is None:
        out += [escape(NOT_MEASURED), ""]
    else:
        columns = heads(arms, against)
        out += [f"**{escape(EFFICIENCY)}**", "",
                "| figure | " + " | ".join(escape(head) for head in columns) + " |",
                "|---" * (len(columns) + 1) + "|"]  # fmt: skip
        for each in found.suite:
            out.append(f"| {NAMES[each.figure]} | {' | '.join(row(each, arms, against))} |")
        out += ["", f"**{CASE_EFFICIENCY}**", "",
                "| case | figure | " + " | ".join(escape(head) for head in columns) + " |",
                "|---" * (len(columns) + 2) + "|"]  # fmt: skip
        for spent in found.cases[:SUMMARY_LIST_LIMIT]:
            for each in spent.figures:
                cells = " | ".join(row(each, arms, against))
                out.append(f"| {code(spent.id)} | {NAMES[each.figure]} | {cells} |")
        out += ["", escape(cost_text(found.cost, fail_on)), ""]
    out += [f"**{escape(reliability_title(figures.k))}**", "",
            "| case | " + " | ".join(arms) + " |", "|---" * (len(arms) + 1) + "|"]  # fmt: skip
    for case in figures.cases[:SUMMARY_LIST_LIMIT]:
        cells = " | ".join(pass_k_cell(case.pass_k.get(arm)) for arm in arms)
        out.append(f"| {code(case.id)} | {cells} |")
    suite = " | ".join(suite_pass_k_cell(figures, arm) for arm in arms)
    return [*out, f"| {SUITE_PASS_K} | {suite} |"]


def case_lines(figures: Behavior, case_id: str) -> list[str]:
    """A case's pass@k / pass^k and efficiency, for its JUnit test."""
    case = figures.case(case_id)
    cells = ", ".join(f"{arm} {pass_k_cell(case.pass_k.get(arm))}"
                      for arm in figures.arms)  # fmt: skip
    said = [f"pass@{figures.k} / pass^{figures.k}: {cells}"]
    if figures.efficiency is None:
        return said
    against = compared(figures)
    for each in figures.efficiency.case(case_id).figures:
        medians = ", ".join(f"{arm} {median_cell(each.figure, median)}"
                            for arm, median in each.arms.items())  # fmt: skip
        ratios = "".join(f", candidate ÷ {arm} {ratio_cell(each.ratio(arm))}" for arm in against)
        said.append(f"{NAMES[each.figure]}: {medians}{ratios}")
    return said


@dataclass(frozen=True)
class EfficiencyPage:
    """What the page shows (templates/_efficiency.html.j2)."""

    figures: Behavior
    fail_on: tuple[str, ...]
    title: str = EFFICIENCY
    case_title: str = CASE_EFFICIENCY
    suite_label: str = SUITE_PASS_K
    not_measured: str = NOT_MEASURED

    @property
    def heads(self) -> list[str]:
        return heads(self.figures.arms, compared(self.figures))

    @property
    def reliability(self) -> str:
        return reliability_title(self.figures.k)

    @property
    def cost(self) -> str:
        found = self.figures.efficiency
        return "" if found is None else cost_text(found.cost, self.fail_on)

    def suite_pass_k(self, arm: str) -> str:
        return suite_pass_k_cell(self.figures, arm)

    def name(self, figure: str) -> str:
        return NAMES[figure]

    def row(self, found: FigureEfficiency) -> list[str]:
        return row(found, self.figures.arms, compared(self.figures))

    def pass_k(self, found: PassK | None) -> str:
        return pass_k_cell(found)
