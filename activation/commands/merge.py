"""`activation merge A.json B.json ...`: the shards of one run, judged again as one run.

Exit codes as for a run: 1 when a case regressed, 3 when shards are missing or some case
errored (the evidence is incomplete), 0 otherwise; 2 for reports that do not belong together.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from activation import __version__
from activation.commands.arguments import parser
from activation.commands.session import Session, check_writable
from activation.report.merge import merge_reports
from activation.report.terminal import render_report


def build_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation merge",
        "Merge the JSON reports of a run's shards (--shard I/N) into the report of the whole "
        "run: every verdict and the false-discovery step recomputed across all cases. "
        "Example: activation merge shard-*.json --json report.json",
    )
    made.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="shard reports")
    made.add_argument("--json", type=Path, metavar="PATH", help="write the merged JSON report")
    return made


def main_merge(session: Session, argv: list[str]) -> int:
    from activation.inputs.load import read_json
    from activation.report.data import parse_report

    args = build_parser().parse_args(argv)
    if args.json is not None:
        check_writable(args.json)
        session.json_path = args.json
    reports = [
        (str(path), parse_report(read_json(path, "report"), str(path))) for path in args.reports
    ]
    merged = merge_reports(reports, __version__)
    if merged.missing_line:
        session.warn([merged.missing_line])
    session.show(render_report(merged.report))
    session.write_report(merged.report)
    return merged.report.exit_code
