"""Running the `activation` command on a test suite, in-process or (to send it a signal) in
a process of its own (the `spawn_activation` fixture, which marks a test slow), and reading
its JSON report.

The suite: a refunds skill whose HEAD description is BASELINE and whose working tree holds
CANDIDATE (the `repo` fixture of tests/commands/conftest.py), three distractors, and the
STATUS_CASES matrix, which a scripted model turns into every status.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import jsonschema_rs
import orjson
import pytest

from activation.commands.main import main
from activation.report.schemas import report_schema
from activation.trials.stage import Stage
from tests.support.messages_api import FakeRequest
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

STATUS_EXPECTED = {
    "stripe-dispute": "REGRESSED",
    "plain-refund": "PASS",
    "chargeback-neg": "IMPROVED",
    "flaky": "UNSTABLE",
    "never": "FAIL",
    "charts-neg": "PASS",
}
"""The status of each of STATUS_CASES once the scripted model has answered three trials."""
HANG = 60.0
"""Seconds a hanging request waits: longer than any test runs."""

Report = dict[str, Any]
REPORTS = jsonschema_rs.validator_for(report_schema())
"""Every report a test reads is checked against the schema the package ships (by the Rust
validator: a few hundred reports a run, ten times faster than `jsonschema`'s)."""


def read_report(path: Path) -> Report:
    """A JSON report the command wrote, valid against the report's schema."""
    data: Report = orjson.loads(path.read_bytes())
    REPORTS.validate(data)
    return data


def run(
    tmp_path: Path,
    cases: Sequence[Mapping[str, object]],
    *flags: str,
    stages: Mapping[str, Stage] | None = None,
) -> tuple[int, Report]:
    """`activation` on `cases` with the test distractors; the exit code and the JSON report
    ({} when none was written). Without `stages`, the real ones."""
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
            "--full-record",  # the tests read every trial's detail, not only flagged cases'
            *flags,
        ],
        stages,
    )
    return code, read_report(report) if report.exists() else {}


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


class Spawn(Protocol):
    """What the `spawn_activation` fixture gives: `spawn` below."""

    def __call__(
        self,
        cwd: Path,
        tmp_path: Path,
        cases: Path,
        report: Path,
        *flags: str,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes]: ...


def spawn(
    cwd: Path,
    tmp_path: Path,
    cases: Path,
    report: Path,
    *flags: str,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """`python -m activation` in a process of its own, so a signal reaches it and not pytest:
    `cases` with the test distractors (unless `flags` gives its own: a one-value flag given
    twice is refused, and cases given twice are read twice), the JSON report to `report`."""
    given = {"--cases": str(cases), "--distractors": str(tmp_path / "distractors")}
    defaults = [
        word for flag, value in given.items() if flag not in flags for word in (flag, value)
    ]
    return subprocess.Popen(
        [sys.executable, "-m", "activation", *defaults, "--json", str(report),
         "--full-record", *flags],
        cwd=cwd, env=dict(os.environ if env is None else env),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def hang_on(prompt: str, after: int = 0) -> Callable[[FakeRequest], float]:
    """A latency for the stand-in: `prompt` hangs once it has been asked `after` times; every
    other request is answered at once."""
    asked = 0
    lock = threading.Lock()

    def latency(request: FakeRequest) -> float:
        nonlocal asked
        if request.prompt != prompt:
            return 0.0
        with lock:
            asked += 1
            return HANG if asked > after else 0.0

    return latency


def wait_until(condition: Callable[[], bool], seconds: float = 60.0, what: str = "") -> None:
    """Poll until `condition` holds; fail the test when `seconds` pass first."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds:g} s: {what or condition}")
        time.sleep(0.05)
