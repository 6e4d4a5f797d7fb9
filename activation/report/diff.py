"""Two saved runs of the same suite side by side: per case what moved, and the figures.

Useful to compare main last week with main today, or two models on the same cases. A case
*regressed between the runs* when it passed in OLD (PASS or IMPROVED: the candidate was
right) and is REGRESSED or FAIL in NEW (the candidate is wrong); that is what fails `diff`.

Runs of several cells are compared cell by cell, a cell of OLD with the cell of NEW of the
same name (stage/agent/model); a cell only one side has is named. Two runs of one cell each
are compared whatever their cells, as two models on the same cases are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation._models import VARIANTS, CaseVerdict, Status
from activation.report import activation_words, behavior_words, run_words
from activation.report.matrix import Matrix
from activation.report.model import Report
from activation.report.terminal import STATUS_STYLE
from activation.report.views import CaseWords, view_of

PASSED = (Status.PASS, Status.IMPROVED)
BROKEN = (Status.REGRESSED, Status.FAIL)
MOVE_STYLE = {
    "regressed": "bold red",
    "fixed": "bold green",
    "changed": "yellow",
    "added": "cyan",
    "removed": "cyan",
}


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    old: CaseVerdict | None
    new: CaseVerdict | None
    said: tuple[CaseWords, CaseWords]
    """How OLD's stage and NEW's say a case: its cells, and the majority it moves on."""

    @property
    def movement(self) -> str:
        """regressed, fixed, changed, added, removed, or "" when nothing moved (on the
        majority its stage reads: a graded case on its passing trials, not on whether the
        skill loaded)."""
        old, new = self.old, self.new
        if old is None:
            return "added"
        if new is None:
            return "removed"
        if old.status in PASSED and new.status in BROKEN:
            return "regressed"
        if old.status in BROKEN and new.status in PASSED:
            return "fixed"
        before, after = self.said
        verdicts = [(before.verdict(old.tally(v)), after.verdict(new.tally(v))) for v in VARIANTS]
        if old.status is not new.status or any(a != b for a, b in verdicts):
            return "changed"
        return ""


@dataclass(frozen=True)
class RunDiff:
    old: Report
    new: Report
    changes: tuple[CaseChange, ...]

    def ids(self, movement: str) -> list[str]:
        return [change.case_id for change in self.changes if change.movement == movement]

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.REGRESSED if self.ids("regressed") else ExitCode.OK

    @property
    def warnings(self) -> list[str]:
        """What makes the two runs less comparable than they look."""
        found = []
        if self.old.skill.id != self.new.skill.id:
            found.append(
                f"the runs measure different skills ({self.old.skill.id} and "
                f"{self.new.skill.id}): is this the same suite?"
            )
        if self.old.stage != self.new.stage:
            found.append(f"comparing Stage {self.old.stage} with Stage {self.new.stage}")
        for report, name in ((self.old, "OLD"), (self.new, "NEW")):
            if report.interrupted:
                found.append(f"{name} was interrupted: its unfinished cases show as removed/added")
        return found


def compare(old: Report, new: Report) -> RunDiff:
    """Every case of either run: NEW's order, then the cases only OLD had."""
    before = {entry.id: entry for entry in old.cases}
    after = {entry.id: entry for entry in new.cases}
    order = list(after) + [case_id for case_id in before if case_id not in after]
    said = (view_of(old).case, view_of(new).case)
    return RunDiff(old, new, tuple(CaseChange(i, before.get(i), after.get(i), said) for i in order))


def _side(entry: CaseVerdict | None, case: CaseWords) -> tuple[str, str, Text]:
    if entry is None:
        return "", "", Text("-")
    status = Text(entry.status.value, style=STATUS_STYLE[entry.status])
    return case.cell(entry, "baseline"), case.cell(entry, "candidate"), status


def _run_line(name: str, path: str, report: Report) -> Text:
    model = f", model {report.model}" if report.model else ""
    return Text(
        f"{name} {path}: {report.skill.id}, Stage {report.stage}{model}, {report.trials} trial(s), "
        f"baseline {report.baseline.spec}, candidate {report.candidate.spec}, "
        f"exit {report.exit_code}"
    )


def diff_table(diff: RunDiff) -> Table:
    legend = run_words.cells_legend(diff.new)
    table = Table(title=f"Cases, OLD and NEW ({legend})")
    table.title_justify = "left"
    table.add_column("id", no_wrap=True)
    for column in ("OLD baseline", "OLD candidate", "OLD status"):
        table.add_column(column, justify="right", no_wrap=True)
    for column in ("NEW baseline", "NEW candidate", "NEW status"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("moved", no_wrap=True)
    for change in diff.changes:
        movement = change.movement
        table.add_row(
            Text(change.case_id),
            *_side(change.old, change.said[0]),
            *_side(change.new, change.said[1]),
            Text(movement, style=MOVE_STYLE.get(movement, "")),
        )
    return table


def figures_text(diff: RunDiff) -> Text:
    text = Text()
    for name, report in (("OLD", diff.old), ("NEW", diff.new)):
        lift = view_of(report).lift_line(report)
        if lift is not None:
            text.append(f"{behavior_words.SUITE_LIFT} {name}: {lift}\n")
    if not (view_of(diff.old).recall or view_of(diff.new).recall):
        return text
    for variant in VARIANTS:
        old, new = diff.old.summary.figures(variant), diff.new.summary.figures(variant)
        text.append(f"{variant:9} recall          OLD {activation_words.recall_text(old)}\n")
        text.append(f"{'':9}                 NEW {activation_words.recall_text(new)}\n")
        text.append(f"{'':9} false positives OLD {activation_words.false_positives_text(old)}\n")
        text.append(f"{'':9}                 NEW {activation_words.false_positives_text(new)}\n")
    return text


def render_diff(diff: RunDiff, old_path: str, new_path: str) -> RenderableType:
    parts: list[RenderableType] = [
        _run_line("OLD", old_path, diff.old),
        _run_line("NEW", new_path, diff.new),
        diff_table(diff),
        figures_text(diff),
    ]
    moved = [(name, diff.ids(name)) for name in MOVE_STYLE]
    for name, ids in moved:
        if ids:
            parts.append(Text(f"{name} ({len(ids)}): {', '.join(ids)}", style=MOVE_STYLE[name]))
    regressed = diff.ids("regressed")
    if regressed:
        parts.append(
            Text(
                f"FAILED: {len(regressed)} case(s) that passed in OLD regressed in NEW.",
                style="bold red",
            )
        )
    else:
        parts.append(Text("OK: no case that passed in OLD regressed in NEW.", style="bold green"))
    return Group(*parts)


@dataclass(frozen=True)
class CellsDiff:
    """Two runs compared cell by cell."""

    diffs: tuple[tuple[str, RunDiff], ...]
    """(the cell's name, OLD's cell against NEW's), for the cells both runs have."""
    only_old: tuple[str, ...] = ()
    only_new: tuple[str, ...] = ()

    @property
    def exit_code(self) -> ExitCode:
        failed = any(diff.exit_code is ExitCode.REGRESSED for _cell, diff in self.diffs)
        return ExitCode.REGRESSED if failed else ExitCode.OK

    @property
    def warnings(self) -> list[str]:
        if len(self.diffs) == 1 and not (self.only_old or self.only_new):
            return self.diffs[0][1].warnings
        found = [f"{cell}: {warning}" for cell, diff in self.diffs for warning in diff.warnings]
        if self.only_old:
            found.append(f"cells only OLD ran: {', '.join(self.only_old)}")
        if self.only_new:
            found.append(f"cells only NEW ran: {', '.join(self.only_new)}")
        if not self.diffs:
            found.append("the runs have no cell in common: nothing to compare")
        return found


def compare_cells(old: Matrix, new: Matrix) -> CellsDiff:
    """Each cell of NEW against OLD's cell of the same name (NEW's order)."""
    before, after = old.cells, new.cells
    if len(before) == len(after) == 1:
        name = before[0].cell if before[0].cell == after[0].cell else "OLD vs NEW"
        return CellsDiff(((name, compare(before[0], after[0])),))
    olds = {cell.cell: cell for cell in before}
    news = {cell.cell: cell for cell in after}
    return CellsDiff(
        tuple((name, compare(olds[name], cell)) for name, cell in news.items() if name in olds),
        tuple(name for name in olds if name not in news),
        tuple(name for name in news if name not in olds),
    )


def render_cells_diff(diff: CellsDiff, old_path: str, new_path: str) -> RenderableType:
    """One cell pair as a plain diff; several, each under its cell's name, then the verdict."""
    if len(diff.diffs) == 1 and not (diff.only_old or diff.only_new):
        return render_diff(diff.diffs[0][1], old_path, new_path)
    parts: list[RenderableType] = []
    for cell, one in diff.diffs:
        parts += [Rule(f"cell {cell}"), render_diff(one, old_path, new_path)]
    regressed = [cell for cell, one in diff.diffs if one.exit_code is ExitCode.REGRESSED]
    parts.append(Rule("every cell"))
    if regressed:
        parts.append(Text(_regressed_line(regressed), style="bold red"))
    else:
        parts.append(Text("OK: no case that passed in OLD regressed in NEW, in any cell.",
                          style="bold green"))  # fmt: skip
    return Group(*parts)


def _regressed_line(cells: Sequence[str]) -> str:
    return f"FAILED: cases that passed in OLD regressed in NEW in {', '.join(cells)}."
