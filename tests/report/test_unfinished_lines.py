"""The terminal's list of cases an interruption left without a verdict."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from activation.report.terminal import TABLE_LIMIT, render_report
from tests.support.reports import every_status_report

ERRORS = "Coverage: 65 of 70 planned trials (93%) scored; errors: 5 model."
"""The report's errored case (`broken`) as the line after the unfinished ones says it."""


def unfinished_lines(count: int) -> list[str]:
    ids = tuple(f"c{index}" for index in range(count))
    report = every_status_report()
    report = replace(report, summary=replace(report.summary, unfinished=ids))
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(render_report(report, "flagged"))
    lines = console.export_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Not finished"))
    assert lines[-1] == "FAILED: the candidate regressed."  # the verdict comes last
    return [line.rstrip() for line in lines[start:-1]]


def test_a_few_unfinished_cases_are_each_named() -> None:
    assert unfinished_lines(2) == ["Not finished, left out (2):", "  c0", "  c1", ERRORS]


def test_thousands_of_unfinished_cases_are_named_up_to_the_table_limit_then_counted() -> None:
    """A run cut short early among 3,000 cases printed (and first measured) 2,900 lines on
    its way out; the JSON report lists every one."""
    lines = unfinished_lines(3_000)
    assert lines[0] == "Not finished, left out (3,000):"
    assert lines[1 : TABLE_LIMIT + 1] == [f"  c{index}" for index in range(TABLE_LIMIT)]
    assert lines[TABLE_LIMIT + 1 :] == [f"  and {3_000 - TABLE_LIMIT:,} more", ERRORS]
