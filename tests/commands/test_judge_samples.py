"""`--judge-samples`: the real Claude Code CLI does the bundled example's task against the
local Messages API stand-in (tests/support/behavior_repo.py), and the judge there answers
each question wrongly on a fixed share of its samples. The majority decides, a tie is an
error of the trial (the gate fails closed), and every output says how often the judge's
samples split, apart from the agent's variance."""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from activation.report.markdown import escape
from tests.support.behavior_repo import BROKEN_BODY, does_the_task, example_repo, verdict
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text

JUDGE = (
    "Does welcome_banner(name) return an HTML <h1> holding the formal greeting that "
    "greetlib.greet(name, formal=True) makes, HTML-escaped?"
)


def flipping(flips: Sequence[bool]) -> Callable[[FakeRequest], Reply]:
    """The agent as the skill teaches it; the judge right but for the samples `flips` marks,
    in the order it is asked (the trials run one at a time)."""
    asked = itertools.count()

    def script(request: FakeRequest) -> Reply:
        if request.schema is None:
            return does_the_task(request)
        answer = orjson.loads(verdict(request.prompt))
        if flips[next(asked) % len(flips)]:
            answer["verdict"] = "NO" if answer["verdict"] == "YES" else "YES"
        return Text(orjson.dumps(answer).decode())

    return script


def behave(tmp_path: Path, claude: Path, samples: int) -> tuple[int, dict[str, Any], Path]:
    """The run's exit code and JSON report; its Markdown and page beside the JSON."""
    report = tmp_path / "behavior.json"
    code = main(["behavior", "--claude", str(claude), "--json", str(report), "--markdown",
                 str(tmp_path / "behavior.md"), "--html", str(tmp_path / "behavior.html"),
                 "--baseline", "git:HEAD", "--only", "welcome_banner",
                 "--trials", "1", "--max-trials", "1", "--no-control", "--concurrency", "1",
                 "--no-cache", "--judge-samples", str(samples)])  # fmt: skip
    return code, read_report(report), tmp_path


def judge_grades(report: dict[str, Any]) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [grade for trial in entry["trials"] for grade in trial["grades"]
            if grade["type"] == "judge"]  # fmt: skip


@pytest.fixture
def repo(
    tmp_path: Path, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> FakeMessagesAPI:
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    return fake_api


def test_the_majority_of_three_samples_decides_and_every_output_says_how_often_they_split(
    tmp_path: Path, repo: FakeMessagesAPI, claude: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.script = flipping([False, True, False])  # each trial: right, wrong, right
    code, report, outputs = behave(tmp_path, claude, 3)
    out = capsys.readouterr().out
    assert (code, report["judge_samples"], report["cases"][0]["status"]) == (0, 3, "PASS")
    assert [(grade["outcome"], grade["why"], grade["votes"]) for grade in judge_grades(report)] == [
        ("passed", "the judge answered YES (2 of 3 samples)", [2, 1])
    ] * 2
    assert report["behavior"]["judges"] == [
        {
            "case": "welcome_banner",
            "grader": JUDGE,
            "asked": 2,
            "split": 2,
            "samples": 6,
            "minority": 2,
            "split_interval": [pytest.approx(0.3424, abs=1e-4), 1.0],
        }
    ]
    assert len([r for r in repo.message_requests if r.schema is not None]) == 6
    line = (
        f"judge agreement, welcome_banner, {JUDGE!r}: its samples split in 2/2 = 100%  "
        "(95% Wilson 34%-100%) of the trials; 2/6 samples against the majority"
    )
    assert line in " ".join(out.split("\n"))
    split = "2/2 = 100%  (95% Wilson 34%-100%)"
    markdown = (outputs / "behavior.md").read_text()
    assert f"| `welcome_banner` | {escape(JUDGE)} | {escape(split)} | 2/6 |" in markdown
    page = (outputs / "behavior.html").read_text()
    row = (
        '<tr data-case="welcome_banner"><td class="mono">welcome_banner</td><td>'
        f'{html.escape(JUDGE, quote=False)}</td><td class="num mono">{split}</td>'
        '<td class="num mono">2/6</td></tr>'
    )
    assert row in page


def test_a_tie_between_the_samples_is_an_error_of_the_trial_and_the_gate_fails_closed(
    tmp_path: Path, repo: FakeMessagesAPI, claude: Path
) -> None:
    repo.script = flipping([False, True])  # each trial: right, then wrong
    code, report, _ = behave(tmp_path, claude, 2)
    assert (code, report["cases"][0]["status"]) == (3, "ERROR")
    (entry,) = report["cases"]
    for trial in entry["trials"]:
        assert trial["error"] == (
            f"grader {JUDGE!r}: the judge's samples split 1 YES, 1 NO: no majority"
        )
        assert trial["error_class"] == "grader"
    assert report["behavior"]["judges"][0]["split"] == 2


def test_calibrate_behavior_reports_each_judges_agreement_with_itself_on_the_a_a_run(
    tmp_path: Path, repo: FakeMessagesAPI, claude: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.script = flipping([False, False, True])  # each trial: right, right, wrong
    record = tmp_path / "calibration.json"
    main(["calibrate", "--behavior", "--broken", str(BROKEN_BODY), "--claude", str(claude),
          "--json", str(record), "--only", "welcome_banner", "--trials", "1", "--max-trials",
          "1", "--concurrency", "1", "--no-cache", "--judge-samples", "3"])  # fmt: skip
    out = " ".join(capsys.readouterr().out.split("\n"))
    assert (
        f"A/A judge agreement, welcome_banner, {JUDGE!r}: its samples split in 3/3 = 100%  "
        "(95% Wilson 44%-100%) of the trials; 3/9 samples against the majority"
    ) in out
    same = orjson.loads(record.read_bytes())["same"]
    assert [(judge["asked"], judge["split"], judge["minority"])
            for judge in same["behavior"]["judges"]] == [(3, 3, 3)]  # fmt: skip
