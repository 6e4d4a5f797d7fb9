"""`activation report FILE.json [--junit PATH] [--markdown PATH] [--html PATH]`: a saved run,
rendered again in any format without a model call; the terminal view when no format is asked.

Exit 0 once rendered (the saved run's own exit code is in the report), 2 when FILE is not a
report, 4 when a file could not be written after all.
"""

from __future__ import annotations

from pathlib import Path

from activation._errors import ExitCode
from activation.commands.flags import REPORT
from activation.commands.outputs import FORMATS, Outputs, write_outputs
from activation.commands.session import Session, check_writable
from activation.report.codec import parse_saved
from activation.report.formats import terminal_view
from activation.report.matrix import Matrix


def load_saved(path: Path) -> Matrix:
    """A report saved with `--json`, of one cell or of a matrix of several; anything else
    is an input error naming the file."""
    from activation.inputs.load import read_json

    return parse_saved(read_json(path, "report"), str(path))


def main_report(session: Session, argv: list[str]) -> int:
    args = REPORT.parse(argv)
    report = load_saved(args.file)
    files = {name: getattr(args, name) for name in FORMATS if getattr(args, name)}
    for name, path in files.items():
        check_writable(path, f"--{name}")
    if not files:
        session.show(terminal_view(report, args.show))
        return ExitCode.OK
    return ExitCode.OK if write_outputs(session, report, Outputs(files)) else ExitCode.INTERNAL
