"""The HTML page of a run of several cells: the grid of cells, the flagged cases per cell,
how far the cells agree, then each cell's own report, as the single-run page shows it.

One self-contained page like the single run's (report/html.py), from the same template
partials: each cell's section gives its element ids its own prefix (`cell-2-cases`), and
the script wires each cell's table, filter and sort by that prefix.
"""

from __future__ import annotations

from pathlib import PurePath

from activation.report import cost_words, matrix_words
from activation.report.html import environment, section, shared
from activation.report.matrix import Matrix, changed_cells

HEADING_LEVEL = 3
"""A cell's own headings sit under the cell's."""


def render_matrix_html(matrix: Matrix, base: PurePath | None = None) -> str:
    """The page; `base` is the folder it will be saved in, for relative transcript links."""
    sections = [
        section(report, base, f"cell-{number}-", HEADING_LEVEL)
        for number, report in enumerate(matrix.cells, 1)
    ]
    flagged = [
        (case_id, [statuses.get(name) for name in matrix.names])
        for case_id, statuses in changed_cells(matrix).items()
    ]
    agreement = [
        matrix_words.agreement_text(found)
        for found in matrix.agreement
        if found.variant == "candidate"
    ]
    template = environment().get_template("matrix.html.j2")
    return template.render(
        matrix=matrix,
        skill=matrix.cells[0].skill.id,
        verdict=matrix_words.matrix_verdict(matrix),
        cost=cost_words.matrix_cost_line(matrix),
        columns=matrix_words.matrix_columns(matrix),
        grid=list(zip(sections, matrix_words.matrix_rows(matrix), strict=True)),
        flagged=flagged,
        agreement=agreement,
        judges=matrix_words.judge_lines(matrix),
        judges_title=matrix_words.JUDGES,
        sections=sections,
        prefixes=[part.prefix for part in sections],
        **shared(),
    )
