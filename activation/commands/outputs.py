"""A run's report files: JUnit, Markdown and HTML beside the JSON, and the job summary.

Each path is checked before any model call, as `--json` is, and written at the end from the
one report model. A file that cannot be written is one error line; the exit code still says
what the verdicts say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from activation._config import SUMMARY_ENV
from activation.commands.session import Session, check_writable

if TYPE_CHECKING:
    from activation.report.matrix import Matrix

FORMATS = ("junit", "markdown", "html")
"""The report files beside the JSON (report/formats.py renders them)."""


@dataclass(frozen=True)
class Outputs:
    files: Mapping[str, Path] = field(default_factory=dict)
    """Format -> path, for the formats asked for."""
    summary: Path | None = None
    """The GitHub job summary the Markdown is appended to."""


def chosen_outputs(
    asked: Mapping[str, Path | None], no_summary: bool, environ: Mapping[str, str]
) -> Outputs:
    """The files asked for (format -> path), each checked writable; the job summary unless
    `--no-summary`."""
    files = {name: path for name in FORMATS if (path := asked.get(name))}
    for name, path in files.items():
        check_writable(path, f"--{name}")
    summary = environ.get(SUMMARY_ENV)
    if not summary or no_summary:
        return Outputs(files)
    return Outputs(files, Path(summary))


def against_base(session: Session, folder: Path | None) -> Callable[[Matrix], Matrix]:
    """`--against`: the base branch's saved reports, read now (before any model call), as
    what adds each cell's delta from them to a finished run (nothing without the flag)."""
    if folder is None:
        return lambda run: run
    from activation.commands.history import base_runs
    from activation.report.history import last_green, with_against

    runs = base_runs(session, folder)
    if last_green(runs) is None:
        session.warn([f"--against {folder}: no green run (exit 0) among its reports: no delta"])
    return lambda run: with_against(run, runs)


def write_outputs(session: Session, report: Matrix, outputs: Outputs) -> bool:
    """Every file asked for; False when one could not be written (said in one line each)."""
    from activation.report.formats import file_bytes

    written = True
    for name, path in outputs.files.items():
        written &= session.write_file(path, file_bytes(name, report, path), f"{name} report")
    if outputs.summary is not None:
        markdown = file_bytes("markdown", report, outputs.summary)
        written &= session.append_summary(outputs.summary, markdown)
    return written
