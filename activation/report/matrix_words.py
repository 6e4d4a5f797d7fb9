"""A matrix's words: the whole run's verdict naming the cells that decided it, its grid
(as its cells' stage's view draws it), how far two cells agree, and how often each cell's
judges disagreed with themselves."""

from __future__ import annotations

from activation._errors import ExitCode
from activation.report.behavior_words import (
    NO_LIFT,
)
from activation.report.efficiency_view import COSTS_MORE
from activation.report.judge_view import cell_lines
from activation.report.matrix import Matrix
from activation.report.run_words import (
    LESS_VISIBLE,
    VERDICTS,
    verdict,
)
from activation.report.views import Grid, view_of
from activation.verdicts.agreement import Agreement


def matrix_verdict(matrix: Matrix) -> str:
    """The whole run's verdict, naming the cells that decided it."""
    code = ExitCode(matrix.exit_code)
    if code is ExitCode.REGRESSED:
        failed = [cell for cell in matrix.cells if cell.exit_code == ExitCode.REGRESSED]
        lifts = [cell.cell for cell in failed if verdict(cell) == NO_LIFT]
        hidden = [cell.cell for cell in failed if verdict(cell) == LESS_VISIBLE]
        dearer = [cell.cell for cell in failed if verdict(cell) == COSTS_MORE]
        regressed = [cell.cell for cell in failed if cell.cell not in (*lifts, *hidden, *dearer)]
        parts = [f"the candidate regressed in {', '.join(regressed)}"] if regressed else []
        if hidden:
            parts.append(f"the candidate is less visible to the agent in {', '.join(hidden)}")
        if lifts:
            parts.append(
                f"the skill's lift over no skill is not shown in {', '.join(lifts)} "
                "(--fail-on no-lift)"
            )
        if dearer:
            parts.append(
                f"the candidate costs more than the baseline in {', '.join(dearer)} "
                "(--fail-on cost)"
            )
        return f"FAILED: {'; '.join(parts)}."
    if code is ExitCode.INCOMPLETE:
        cells = ", ".join(c.cell for c in matrix.cells if c.exit_code == ExitCode.INCOMPLETE)
        return f"INCOMPLETE: some evidence is missing in {cells}, so the gate fails closed."
    blind = {cell.cell: view_of(cell).blind(cell) for cell in matrix.cells}
    said = [(cell, why) for cell, why in blind.items() if why is not None]
    if code is ExitCode.OK and said:
        cells = ", ".join(cell for cell, _why in said)
        return f"OK, but it measures nothing in {cells}: {said[0][1]}."
    return VERDICTS.get(code, matrix.error or f"exit {matrix.exit_code}")


def matrix_grid(matrix: Matrix) -> Grid:
    """The grid of a matrix's cells, as their stage's view draws it."""
    return view_of(matrix.cells[0]).matrix_grid(matrix.cells)


def matrix_columns(matrix: Matrix) -> tuple[str, ...]:
    return matrix_grid(matrix)[0]


def matrix_rows(matrix: Matrix) -> list[list[str]]:
    return matrix_grid(matrix)[1]


JUDGES = "Judge agreement per cell (--judge-samples):"


def judge_lines(matrix: Matrix) -> list[str]:
    """Each cell's line per judge grader whose samples were more than one, named by its
    cell, as a one-cell run's outputs give them (report/judge_view.py)."""
    return [
        line for cell in matrix.cells for line in cell_lines(cell.cell, view_of(cell).judges(cell))
    ]


def agreement_text(found: Agreement) -> str:
    """One pair of cells' agreement on one variant, in a line."""
    first, second = found.cells
    if not found.cases:
        return f"{first} vs {second} ({found.variant}): no case with evidence in both"
    kappa = "kappa undefined (every case rated alike in both)"
    if found.kappa is not None:
        kappa = f"Cohen's kappa {found.kappa:.2f}"
        if found.kappa_interval is not None:
            low, high = found.kappa_interval
            kappa += f" (95% {low:.2f} to {high:.2f})"
        else:
            kappa += " (no interval: one cell rated every case alike)"
    line = (
        f"{first} vs {second} ({found.variant}): {found.same} of {found.cases} cases alike "
        f"({found.same / found.cases:.0%}), {kappa}"
    )
    if found.disagree:
        line += f"; they differ on {', '.join(found.disagree)}"
    return line


def agreement_reading() -> str:
    """How to read an agreement, in every output that shows one."""
    return (
        "Alike: both stages call the case right, or both wrong. Kappa discounts the agreement "
        "their own rates of 'right' would give by chance: 1 is full agreement, 0 no better "
        "than chance. On a few spot checks the interval is wide: read it before trusting "
        "Stage A's verdicts in place of the real agent's."
    )
