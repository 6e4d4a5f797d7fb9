"""The terminal report of a run of several cells: the grid of cells, the cases that
changed somewhere and in which cells, how far the cells agree, then each cell's own report.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation.report import cost_words, matrix_words
from activation.report.matrix import Matrix, changed_cells
from activation.report.terminal import STATUS_STYLE, VERDICT_STYLE, render_report, unbroken


def grid(matrix: Matrix) -> Table:
    table = Table(title=f"Cells ({len(matrix.cells)})", title_justify="left")
    for column in matrix_words.matrix_columns(matrix):
        table.add_column(column, no_wrap=column == "cell")
    for row in matrix_words.matrix_rows(matrix):
        table.add_row(unbroken(row[0]), *row[1:])
    return table


def changes(matrix: Matrix) -> RenderableType:
    """Case x cell, for the cases some cell flagged."""
    found = changed_cells(matrix)
    if not found:
        return Text("No case was flagged in any cell.")
    table = Table(title="Flagged cases, per cell", title_justify="left")
    table.add_column("id", no_wrap=True)
    for name in matrix.names:
        table.add_column(name, no_wrap=True)
    for case_id, statuses in found.items():
        cells = [statuses.get(name) for name in matrix.names]
        table.add_row(
            unbroken(case_id),
            *(
                Text("-") if status is None else Text(status.value, style=STATUS_STYLE[status])
                for status in cells
            ),
        )
    return table


def render_matrix(matrix: Matrix, show: str = "auto") -> RenderableType:
    skill = matrix.cells[0].skill.id
    parts: list[RenderableType] = [
        Text(f"activation: {skill}, {len(matrix.cells)} cells", style="bold"),
        grid(matrix),
        changes(matrix),
    ]
    agreement = [found for found in matrix.agreement if found.variant == "candidate"]
    if agreement:
        parts.append(Text("Agreement between cells (the candidate's verdicts):", style="bold"))
        parts += [Text(f"  {matrix_words.agreement_text(found)}") for found in agreement]
    judges = matrix_words.judge_lines(matrix)
    if judges:
        parts.append(Text(matrix_words.JUDGES, style="bold"))
        parts += [Text(f"  {line}") for line in judges]
    for cell in matrix.cells:
        parts += [Rule(f"cell {cell.cell}"), render_report(cell, show)]
    parts.append(Rule("the whole run"))
    parts.append(Text(cost_words.matrix_cost_line(matrix)))
    style = VERDICT_STYLE.get(ExitCode(matrix.exit_code), "")
    parts.append(Text(matrix_words.matrix_verdict(matrix), style=style))
    return Group(*parts)
