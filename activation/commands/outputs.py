"""A run's report files: JUnit, Markdown and HTML beside the JSON, and the job summary.

Each path is checked before any model call, as `--json` is, and written at the end from the
one report model. A file that cannot be written is one error line; the exit code still says
what the verdicts say.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from activation._config import SUMMARY_ENV
from activation.commands.session import Session, check_writable

if TYPE_CHECKING:
    from activation.report.codec import Saved
    from activation.report.matrix import Matrix

FORMATS = ("junit", "markdown", "html")


@dataclass(frozen=True)
class Outputs:
    files: Mapping[str, Path] = field(default_factory=dict)
    """Format -> path, for the formats asked for."""
    summary: Path | None = None
    """The GitHub job summary the Markdown is appended to."""


def chosen_outputs(args: argparse.Namespace, environ: Mapping[str, str]) -> Outputs:
    """The files asked for, each checked writable; the job summary unless `--no-summary`."""
    files = {name: getattr(args, name) for name in FORMATS if getattr(args, name, None)}
    for name, path in files.items():
        check_writable(path, f"--{name}")
    summary = environ.get(SUMMARY_ENV)
    if not summary or getattr(args, "no_summary", True):
        return Outputs(files)
    return Outputs(files, Path(summary))


def render(name: str, report: Saved, path: Path) -> bytes:
    from activation.report.matrix import Matrix

    if isinstance(report, Matrix):
        return render_matrix(name, report, path)
    if name == "junit":
        from activation.report.junit import render_junit

        return render_junit(report)
    if name == "markdown":
        from activation.report.markdown import render_markdown

        return render_markdown(report).encode()
    from activation.report.html import render_html

    return render_html(report, path.absolute().parent).encode()


def render_matrix(name: str, matrix: Matrix, path: Path) -> bytes:
    if name == "junit":
        from activation.report.junit import render_matrix_junit

        return render_matrix_junit(matrix)
    if name == "markdown":
        from activation.report.matrix_markdown import render_matrix_markdown

        return render_matrix_markdown(matrix).encode()
    from activation.report.matrix_html import render_matrix_html

    return render_matrix_html(matrix, path.absolute().parent).encode()


def write_outputs(session: Session, report: Saved, outputs: Outputs) -> bool:
    """Every file asked for; False when one could not be written (said in one line each)."""
    written = True
    for name, path in outputs.files.items():
        try:
            path.write_bytes(render(name, report, path))
        except OSError as error:
            session.error_line(f"cannot write the {name} report {path}: {error.strerror}")
            written = False
    if outputs.summary is not None:
        try:
            with outputs.summary.open("ab") as summary:
                summary.write(render("markdown", report, outputs.summary) + b"\n")
        except OSError as error:
            session.error_line(
                f"cannot append the summary to {SUMMARY_ENV} {outputs.summary}: {error.strerror}"
            )
            written = False
    return written
