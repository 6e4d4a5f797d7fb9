"""Stage A's and B's words: what a case expects and which skills fired, where the prompts
went, recall and false positives, and the matrix grid of such cells."""

from __future__ import annotations

from collections.abc import Sequence

from activation._models import (
    ANY_SKILL,
    NONE,
    OTHER,
    VARIANTS,
    CaseVerdict,
    Tally,
    Trial,
    VariantName,
)
from activation.report.model import Report
from activation.report.phrases import (
    compact_rate,
    percent,
    rate_text,
    right_cell,
    status_counts,
    tally_cell,
)
from activation.report.views import Grid, TrialWords
from activation.verdicts.figures import VariantFigures
from activation.verdicts.routing import changed_cells

EXPECTED = {True: "activate", False: "stay quiet"}


CASE_CELLS = "k/n = activated of valid trials; right of valid for a case with `expect`"
"""What a case table's counts are."""


class ActivationCase:
    """A case of Stage A or B in words: which skills fired, against what it expects."""

    routes = "went to"
    correct = "correct"

    def expected(self, entry: CaseVerdict) -> str:
        """The skill(s) that should fire, none, or (a `should_activate` case) whether the
        measured one should."""
        if entry.expect is None:
            return EXPECTED[entry.should_activate]
        if entry.any_skill:
            return f"any skill but {' or '.join(entry.must_not)}"
        return " or ".join(entry.expect) if entry.expect else "no skill"

    def cell(self, entry: CaseVerdict, variant: VariantName) -> str:
        """Activated of valid trials, or for a case that says which skill should fire,
        right of valid."""
        tally = entry.tally(variant)
        return tally_cell(tally) if entry.expect is None else right_cell(tally)

    def counted(self, entry: CaseVerdict) -> str:
        return "activated" if entry.expect is None else "right"

    def went(self, entry: CaseVerdict, target: str) -> str | None:
        return went_text(entry, target)

    def verdict(self, tally: Tally) -> bool | None:
        """Its majority: whether the skill fired."""
        return tally.verdict

    def shown_trials(self, entry: CaseVerdict) -> list[TrialWords]:
        """None: its trials' choices are its counts and routes."""
        return []

    def said(self, trial: Trial) -> TrialWords | None:
        return None


ACTIVATION_CASE = ActivationCase()


def label_text(label: str, target: str) -> str:
    """A row or column of the routing matrix in words."""
    named = {NONE: "no skill", OTHER: f"not {target}", ANY_SKILL: "any skill"}
    return named.get(label, label.replace("|", " or "))


def went_text(entry: CaseVerdict, target: str) -> str | None:
    """Where the candidate's wrong trials went, if anywhere: "went to billing:refunds 2/3,
    fired nothing 1/3"."""
    tally = entry.candidate
    wrong = sorted(
        ((route, n) for route, n in tally.routes.items()
         if not entry.is_right(() if route == NONE else (route,), target)),
        key=lambda item: (-item[1], item[0]),
    )  # fmt: skip
    skills = [f"{route} {n}/{tally.valid}" for route, n in wrong if route != NONE]
    parts = [f"went to {', '.join(skills)}"] if skills else []
    parts += [f"fired nothing {n}/{tally.valid}" for route, n in wrong if route == NONE]
    return ", ".join(parts) or None


def routing_changes(report: Report) -> list[str]:
    """The cells of the routing matrix that changed, then the skills whose figures did."""
    target = report.skill.id
    routes = {variant: report.summary.routing(variant) for variant in VARIANTS}
    lines = [
        f"{label_text(expected, target)} -> {label_text(went, target)}: {old} -> {new} trial(s)"
        for expected, went, old, new in changed_cells(routes)
    ]
    base = {figures.skill: figures for figures in routes["baseline"].skills}
    for cand in routes["candidate"].skills:
        old = base.get(cand.skill)
        if old is None or (old.recall, old.precision) == (cand.recall, cand.precision):
            continue
        lines.append(
            f"{cand.skill}: recall {percent(old.recall, old.recall_interval)} -> "
            f"{percent(cand.recall, cand.recall_interval)}, precision "
            f"{percent(old.precision, old.precision_interval)} -> "
            f"{percent(cand.precision, cand.precision_interval)}"
        )
    return lines


def recall_text(figures: VariantFigures) -> str:
    return rate_text(figures.recall, figures.recall_interval)


def false_positives_text(figures: VariantFigures) -> str:
    return rate_text(figures.false_positives, figures.false_positives_interval)


MATRIX_COLUMNS = (
    "cell",
    "recall (baseline)",
    "recall (candidate)",
    "false positives (baseline)",
    "false positives (candidate)",
    "statuses",
)
"""The matrix grid's columns, in every format."""


def recall_grid(cells: Sequence[Report]) -> Grid:
    """Per cell: its recall and false positives per variant, with 95 % Wilson intervals,
    and its statuses."""
    rows = []
    for cell in cells:
        found = [cell.summary.figures(variant) for variant in VARIANTS]
        rows.append(
            [
                cell.cell,
                *(compact_rate(f.recall, f.recall_interval) for f in found),
                *(compact_rate(f.false_positives, f.false_positives_interval) for f in found),
                status_counts(cell),
            ]
        )
    return MATRIX_COLUMNS, rows
