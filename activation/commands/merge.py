"""`activation merge A.json B.json ...`: the shards of one run, judged again as one run.

Exit codes as for a run: 1 when a case regressed, 3 when shards are missing or some case
errored (the evidence is incomplete), 0 otherwise; 2 for reports that do not belong together.
"""

from __future__ import annotations

import os

from activation import __version__
from activation.commands.flags import MERGE
from activation.commands.outputs import chosen_outputs, write_outputs
from activation.commands.report import load_saved
from activation.commands.session import Session
from activation.report.formats import terminal_view
from activation.report.merge import merge_saved


def main_merge(session: Session, argv: list[str]) -> int:
    args = MERGE.parse(argv)
    session.adopt(args.debug, args.json, full_record=args.full_record)
    outputs = chosen_outputs(vars(args), args.no_summary, os.environ)
    reports = [(str(path), load_saved(path)) for path in args.reports]
    merged = merge_saved(reports, __version__)
    if merged.missing_line:
        session.warn([merged.missing_line])
    session.show(terminal_view(merged.report, args.show))
    session.write_report(merged.report)
    write_outputs(session, merged.report, outputs)
    return merged.report.exit_code
