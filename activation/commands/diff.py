"""`activation diff OLD.json NEW.json`: what moved between two runs of the same suite.

Exit 1 when a case that passed in OLD (PASS or IMPROVED) is REGRESSED or FAIL in NEW (in any
cell the two runs share), so a scheduled job can compare main with itself over time; else 0;
2 when a file is not a report.
"""

from __future__ import annotations

from activation.commands.flags import DIFF
from activation.commands.report import load_saved
from activation.commands.session import Session
from activation.report.diff import compare_cells, render_cells_diff


def main_diff(session: Session, argv: list[str]) -> int:
    args = DIFF.parse(argv)
    comparison = compare_cells(load_saved(args.old), load_saved(args.new))
    session.warn(comparison.warnings)
    session.show(render_cells_diff(comparison, str(args.old), str(args.new)))
    return comparison.exit_code
