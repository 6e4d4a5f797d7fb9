"""`activation report FILE.json [--junit PATH] [--markdown PATH] [--html PATH]`: a saved run,
or a saved `activation changed` report, rendered again in any format without a model call;
the terminal view when no format is asked.

Exit 0 once rendered (the saved run's own exit code is in the report), 2 when FILE is not a
report, 4 when a file could not be written after all.
"""

from __future__ import annotations

from pathlib import Path

from activation._errors import ExitCode, InputError
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
    from activation.inputs.load import read_json
    from activation.report.changed import CHANGED_SCHEMA

    args = REPORT.parse(argv)
    data = read_json(args.file, "report")
    files: dict[str, Path] = {name: getattr(args, name) for name in FORMATS if getattr(args, name)}
    if isinstance(data, dict) and data.get("schema") == CHANGED_SCHEMA:
        return _changed_report(session, args.file, data, files)
    report = parse_saved(data, str(args.file))
    for name, path in files.items():
        check_writable(path, f"--{name}")
    if not files:
        session.show(terminal_view(report, args.show))
        return ExitCode.OK
    return ExitCode.OK if write_outputs(session, report, Outputs(files)) else ExitCode.INTERNAL


def _changed_report(
    session: Session, path: Path, data: dict[str, object], files: dict[str, Path]
) -> int:
    """`activation changed --json`'s report, rendered as `changed` renders it: its summary
    on the terminal, or each file asked for."""
    from activation.report.changed import changed_file, summary_lines
    from activation.report.schemas import read_changed

    if "skills" not in data:
        raise InputError(
            f"{path}: the report of a changed run that stopped early ({data.get('error')})"
        )
    try:
        report = read_changed(data)
    except ValueError as error:
        raise InputError(f"{path}: not a readable activation changed report: {error}") from None
    for name, target in files.items():
        check_writable(target, f"--{name}")
    if not files:
        session.out.print("\n".join(summary_lines(report)), markup=False, soft_wrap=True)
        return ExitCode.OK
    written = [
        session.write_file(target, changed_file(name, report, target), f"{name} report")
        for name, target in files.items()
    ]
    return ExitCode.OK if all(written) else ExitCode.INTERNAL
