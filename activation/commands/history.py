"""`activation history REPORTS... [--html PATH] [--badges DIR] [--against DIR]`: saved runs
as trends on one static page, a shields.io endpoint per skill, and with `--against` each
series' delta from the base branch's last green run (report/history.py says how a report's
order, branch and greenness are told).

Exit 0 once written, 2 when a file is not a report (or a folder holds none), 4 when an
output cannot be written.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from activation._errors import ExitCode, InputError
from activation.commands.flags import HISTORY
from activation.commands.session import Session, check_writable
from activation.report.matrix import Matrix

SAVED = ("*.json", "*.json.gz")
FINISHED = {"cases", "cells", "gates"}
"""What the report of a run (one cell, a matrix) or of `changed` holds once it finished."""


def report_files(paths: list[Path]) -> list[Path]:
    """Each file as given; a folder's saved reports by name, through its subfolders."""
    found: list[Path] = []
    for path in paths:
        if not path.is_dir():
            found.append(path)
            continue
        inside = sorted({file for pattern in SAVED for file in path.rglob(pattern)})
        if not inside:
            raise InputError(f"{path}: no saved report (*.json, *.json.gz) in this folder")
        found += inside
    return found


def read_runs(session: Session, paths: list[Path]) -> list[tuple[str, Matrix]]:
    """Every run the files hold, named by file: a run's report is one, a `changed` report
    one per gate (`FILE#skill`); a run that stopped before its verdicts (its `--json` is
    written on a crash too) is left out, with a warning."""
    from activation.inputs.load import read_json
    from activation.report.changed import CHANGED_SCHEMA
    from activation.report.codec import parse_saved

    runs = []
    for path in report_files(paths):
        data = read_json(path, "report")
        if isinstance(data, dict) and data.get("error") and not data.keys() & FINISHED:
            session.warn([f"{path}: a run that stopped early ({data['error']}): left out"])
        elif isinstance(data, dict) and data.get("schema") == CHANGED_SCHEMA:
            gates = data.get("gates")
            if not isinstance(gates, list):
                raise InputError(f"{path}: the report of a changed run that stopped early")
            runs += [(f"{path}#{gate.get('skill')}", parse_saved(gate.get("run"), str(path)))
                     for gate in gates if isinstance(gate, dict)]  # fmt: skip
        else:
            runs.append((str(path), parse_saved(data, str(path))))
    return runs


def base_runs(session: Session, folder: Path) -> list[tuple[str, Matrix]]:
    """`--against`'s folder of the base branch's saved reports, read before any model call."""
    if not folder.is_dir():
        raise InputError(f"--against {folder}: not a folder of saved reports")
    return read_runs(session, [folder])


def main_history(session: Session, argv: list[str]) -> int:
    from activation.report.history import against, badges, history_of, summary_lines
    from activation.report.history_html import render_history_html

    args = HISTORY.parse(argv)
    check_writable(args.html, "--html")
    if args.badges is not None and args.badges.exists() and not args.badges.is_dir():
        raise InputError(f"--badges {args.badges}: is a file, not a folder")
    found = history_of(read_runs(session, args.reports))
    if args.against is not None:
        found = against(found, base_runs(session, args.against))
    session.out.print("\n".join(summary_lines(found)), markup=False, soft_wrap=True)
    written = [session.write_file(args.html, render_history_html(found).encode(), "history page")]
    if args.badges is not None:
        args.badges.mkdir(parents=True, exist_ok=True)
        written += [
            session.write_file(args.badges / f"{skill.replace(':', '-')}.json",
                               orjson.dumps(badge, option=orjson.OPT_INDENT_2) + b"\n", "badge")
            for skill, badge in badges(found).items()
        ]  # fmt: skip
    return ExitCode.OK if all(written) else ExitCode.INTERNAL
