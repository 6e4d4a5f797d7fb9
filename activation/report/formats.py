"""Every view of a run, from its matrix: the terminal's, and each report file's bytes.

A run of one cell shows as that cell's own report (what a run always showed); a run of
several as the matrix views (the grids, then each cell's report). This is the one place
that chooses between them.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType

from activation.report.matrix import Matrix


def terminal_view(matrix: Matrix, show: str) -> RenderableType:
    single = matrix.single
    if single is not None:
        from activation.report.terminal import render_report

        return render_report(single, show)
    from activation.report.matrix_terminal import render_matrix

    return render_matrix(matrix, show)


def file_bytes(name: str, matrix: Matrix, path: Path) -> bytes:
    """The report file `name` (junit, markdown or html) for `path` (HTML links its charts'
    assets relative to the file's folder)."""
    single = matrix.single
    folder = path.absolute().parent
    if name == "junit":
        from activation.report.junit import render_junit, render_matrix_junit

        return render_junit(single) if single is not None else render_matrix_junit(matrix)
    if name == "markdown":
        from activation.report.markdown import render_markdown
        from activation.report.matrix_markdown import render_matrix_markdown

        text = render_markdown(single) if single else render_matrix_markdown(matrix)
        return text.encode()
    from activation.report.html import render_html
    from activation.report.matrix_html import render_matrix_html

    page = render_html(single, folder) if single else render_matrix_html(matrix, folder)
    return page.encode()
