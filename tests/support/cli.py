"""Running the `activation` command in-process on a test suite, and reading its JSON report.

The suite: a refunds skill whose HEAD description is BASELINE and whose working tree holds
CANDIDATE (the `repo` fixture of tests/commands/conftest.py), three distractors, and the
STATUS_CASES matrix, which a scripted model turns into every status.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.backends import Backends
from activation.commands.main import main
from tests.support.skill_repo import case, write_cases

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."

STATUS_CASES = [
    case("stripe-dispute", "a customer opened a stripe dispute, what now", True, ["kw"]),
    case("plain-refund", "refund order 1234", True, ["kw"]),
    case("chargeback-neg", "what is a chargeback, explain for my essay", False, ["negative"]),
    case("flaky", "partial refund for a coupon order", True, ["indirect"]),
    case("never", "give money back to the buyer", True, ["indirect"]),
    case("charts-neg", "plot monthly revenue", False, ["negative"]),
]

Report = dict[str, Any]


def run(
    tmp_path: Path,
    cases: list[dict[str, object]],
    *flags: str,
    backends: Backends | None = None,
) -> tuple[int, Report]:
    """`activation` on `cases` with the test distractors; the exit code and the JSON report
    ({} when none was written). Without `backends`, the real ones."""
    cases_file = write_cases(tmp_path / "cases.json", cases)
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = main(
        [
            "--cases",
            str(cases_file),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(report),
            *flags,
        ],
        backends,
    )
    return code, orjson.loads(report.read_bytes()) if report.exists() else {}


def by_id(report: Report) -> dict[str, Report]:
    return {entry["id"]: entry for entry in report["cases"]}


def tallies(entry: Report) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    def one(side: dict[str, int]) -> tuple[int, int, int]:
        return (side["activated"], side["valid"], side["errors"])

    return one(entry["baseline"]), one(entry["candidate"])


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    """The only line on stderr: a bad input is one clear line, never a traceback."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]
