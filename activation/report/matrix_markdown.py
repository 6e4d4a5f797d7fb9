"""The Markdown report of a run of several cells: the verdict naming the cells, the grid,
the flagged cases per cell, the agreement between cells and each cell's judges with
themselves, then each cell's own summary folded (`<details>`), so a pull-request comment
stays short."""

from __future__ import annotations

from activation.report import cost_words, matrix_words
from activation.report.markdown import ICONS, code, escape, render_markdown
from activation.report.matrix import Matrix, changed_cells


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _grid(matrix: Matrix) -> list[str]:
    columns = list(matrix_words.matrix_columns(matrix))
    lines = [_row(columns), _row(["---"] * len(columns))]
    lines += [
        _row([code(row[0]), *(escape(cell) for cell in row[1:])])
        for row in matrix_words.matrix_rows(matrix)
    ]
    return [*lines, ""]


def _changes(matrix: Matrix) -> list[str]:
    found = changed_cells(matrix)
    if not found:
        return ["No case was flagged in any cell.", ""]
    names = matrix.names
    lines = [_row(["case", *(code(name) for name in names)]), _row(["---"] * (len(names) + 1))]
    for case_id, statuses in found.items():
        shown = [statuses[name].value if name in statuses else "-" for name in names]
        lines.append(_row([code(case_id), *shown]))
    return [*lines, ""]


def _agreement(matrix: Matrix) -> list[str]:
    found = [item for item in matrix.agreement if item.variant == "candidate"]
    if not found:
        return []
    lines = ["Agreement between cells (the candidate's verdicts):", ""]
    lines += [f"- {escape(matrix_words.agreement_text(item))}" for item in found]
    return [*lines, ""]


def _judges(matrix: Matrix) -> list[str]:
    found = matrix_words.judge_lines(matrix)
    if not found:
        return []
    return [matrix_words.JUDGES, "", *(f"- {escape(line)}" for line in found), ""]


def render_matrix_markdown(matrix: Matrix) -> str:
    verdict = matrix_words.matrix_verdict(matrix)
    title = " ".join(filter(None, (ICONS.get(matrix.exit_code), "activation:", verdict)))
    skill = matrix.cells[0].skill.id
    lines = [f"### {escape(title)}", "", f"Skill {code(skill)}, {len(matrix.cells)} cells.", ""]
    lines += _grid(matrix) + _changes(matrix) + _agreement(matrix) + _judges(matrix)
    for cell in matrix.cells:
        lines += [f"<details><summary>cell {escape(cell.cell)}</summary>", ""]
        lines += [render_markdown(cell).replace("\n### ", "\n#### ", 1).rstrip("\n"), ""]
        lines += ["</details>", ""]
    lines.append(escape(cost_words.matrix_cost_line(matrix)))
    return "\n".join(lines).rstrip("\n") + "\n"
