"""`activation diff OLD.json NEW.json`: what moved between two runs of the same suite.

Exit 1 when a case that passed in OLD (PASS or IMPROVED) is REGRESSED or FAIL in NEW, so a
scheduled job can compare main with itself over time; else 0; 2 when a file is not a report.
"""

from __future__ import annotations

from activation.commands.flags import DIFF
from activation.commands.report import load_report
from activation.commands.session import Session
from activation.report.diff import compare, render_diff


def main_diff(session: Session, argv: list[str]) -> int:
    args = DIFF.parse(argv)
    comparison = compare(load_report(args.old), load_report(args.new))
    session.warn(comparison.warnings)
    session.show(render_diff(comparison, str(args.old), str(args.new)))
    return comparison.exit_code
