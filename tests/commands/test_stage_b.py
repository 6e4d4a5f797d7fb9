"""Stage B end to end: `activation --real` drives the real Claude Code CLI against the local
Messages API stand-in, on a plugin that is not auth0, with the model scripted per case and
per description.

`CLAUDE_CODE_MAX_RETRIES=0` keeps the CLI from retrying scripted API errors for minutes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import activation
from activation.commands.main import main
from activation.inputs.controls import BROAD as BROAD_CONTROL
from activation.inputs.identity import shard_of
from activation.trials.agents.claude_code.stream import StreamReader
from tests.support.cli import HANG, read_report
from tests.support.messages_api import (
    Answer,
    Error,
    FakeMessagesAPI,
    FakeRequest,
    Reply,
    Text,
    ToolUse,
)
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_ID,
    SKILL_PATH,
    SkillRepo,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)

API_KEY = "sk-ant-test-stage-b-SECRET-42"
BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."


def skill_call(request: FakeRequest) -> Reply:
    return ToolUse("Skill", {"skill": SKILL_ID}) if request.turn == 0 else Text("Refunded.")


def prose(_request: FakeRequest) -> Reply:
    return Text("I'll use the billing:refunds skill for this. Refund issued.")


def read_skill(request: FakeRequest) -> Reply:
    if request.turn == 0:
        return ToolUse("Read", {"file_path": f"/plugin/{SKILL_PATH}"})
    return Text("I read the refunds skill and followed it.")


def other_skill(request: FakeRequest) -> Reply:
    return ToolUse("Skill", {"skill": "charts"}) if request.turn == 0 else Text("Charted.")


def api_error(_request: FakeRequest) -> Reply:
    return Error(500, message="scripted server error")


BEHAVIOUR = {
    # prompt: (behaviour with the baseline description, with the candidate)
    "a stripe dispute came in, refund it": (skill_call, prose),
    "refund order 1234": (skill_call, skill_call),
    "show me the refunds skill file": (read_skill, read_skill),
    "plot refunds per month": (other_skill, other_skill),
    "refund the duplicate charge": (skill_call, api_error),
}

CASES = [
    {**case("dispute", "a stripe dispute came in, refund it", True), "spot_check": True},
    case("plain", "refund order 1234", True),
    case("read", "show me the refunds skill file", False),
    case("other", "plot refunds per month", False),
    case("broken", "refund the duplicate charge", True),
]


def agent_script(request: FakeRequest) -> Reply:
    """The CLI's main loop by prompt and description; Stage A's classifier calls too."""
    description = request.menu.get(SKILL_ID)
    if request.schema is not None:
        positive = request.prompt in {c["prompt"] for c in CASES if c["should_activate"]}
        return Answer([SKILL_ID] if positive and description == BASELINE else [])
    if not request.is_main_loop:
        return Text("Refund help")
    with_baseline, with_candidate = BEHAVIOUR[request.prompt]
    return (with_baseline if description == BASELINE else with_candidate)(request)


def hang_after_activation(request: FakeRequest) -> float:
    """The turn after a successful Skill call takes a minute: only an early stop is in time."""
    launched = any("Launching skill" in str(result) for result in request.tool_results)
    return HANG if request.is_main_loop and launched else 0.0


def snapshot(root: Path) -> dict[str, bytes]:
    """The repo's files, leaving out git's internals and activation's own state folder."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and not {".git", ".activation"} & set(path.relative_to(root).parts)
    }


@pytest.fixture
def stage_b(
    claude: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[SkillRepo, FakeMessagesAPI, Path]]:
    repo = skill_repo(BASELINE, files=REFERENCE, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", CASES)
    systemp = tmp_path / "systemp"
    systemp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systemp))
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    before = snapshot(repo.root)
    with FakeMessagesAPI(agent_script, latency=hang_after_activation) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        yield repo, api, claude
    assert list(systemp.iterdir()) == []  # plugin copies and run dirs are all gone
    assert snapshot(repo.root) == before  # the user's working tree is untouched


def real(tmp_path: Path, claude: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = main(
        [
            "--real",
            "--claude",
            str(claude),
            "--cases",
            str(tmp_path / "cases.json"),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(report),
            "--full-record",
            "--max-turns",
            "3",
            "--timeout",
            "20",
            *flags,
        ]
    )
    return code, read_report(report) if report.exists() else {}


def entries(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in report["cases"]}


def tally(side: dict[str, int]) -> tuple[int, int, int]:
    return side["activated"], side["valid"], side["errors"]


def test_real_run_statuses_evidence_early_stop_and_exit_1(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _repo, api, claude = stage_b
    code, report = real(tmp_path, claude, "--only", "dispute,plain,read,other,broken")
    captured = capsys.readouterr()
    assert code == 1
    cases = entries(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        "dispute": "REGRESSED",
        "plain": "PASS",
        "read": "PASS",
        "other": "PASS",
        "broken": "ERROR",
    }
    # A lone unanimous flip at 3 trials is not significant across 5 cases (q = 0.078), so
    # the case escalates until it is significant on its own: 9 of 9 against 0 of 9.
    assert tally(cases["dispute"]["baseline"]) == (9, 9, 0)
    assert tally(cases["dispute"]["candidate"]) == (0, 9, 0)
    assert cases["dispute"]["escalated"] is True
    assert cases["dispute"]["trials_run"] == {"baseline": 9, "candidate": 9}
    assert [cases[c]["escalated"] for c in ("plain", "read", "other", "broken")] == [False] * 4
    assert tally(cases["broken"]["candidate"]) == (0, 0, 3)
    assert report["stage"] == "B"
    assert report["agent"]["version"] == "2.1.332 (Claude Code)"
    assert report["skill"] == {"id": SKILL_ID, "path": SKILL_PATH}
    assert report["summary"]["regressed"] == ["dispute"]
    assert report["summary"]["errors"] == ["broken"]
    # Model calls seen in the streams: one per Skill-call, prose or failed run, two per run
    # that used a tool first (Read, another skill): 18 + 6 + 12 + 12 + 6.
    assert report["usage"]["requests"] == 54
    assert report["summary"]["escalated"] == 1
    assert report["summary"]["extra_calls"] == 12

    # Every trial names its transcript. An activated run was stopped at the successful
    # Skill result: a later turn would hang past --timeout and make the trial an ERROR.
    for entry in cases.values():
        for trial in entry["trials"]:
            lines = Path(trial["transcript"]).read_bytes().splitlines()
            assert lines
            assert API_KEY.encode() not in b"".join(lines)
    plain_trial = cases["plain"]["trials"][0]
    assert plain_trial["reading"] == "activated"
    events = [
        orjson.loads(line) for line in Path(plain_trial["transcript"]).read_bytes().splitlines()
    ]
    assert "result" not in {event["type"] for event in events}
    assert plain_trial["evidence"].endswith("run stopped early at that point")
    main_loop = [r for r in api.message_requests if r.is_main_loop]
    assert len([r for r in main_loop if r.prompt == "refund order 1234" and r.turn == 0]) == 6
    errors = {t["error"] for t in cases["broken"]["trials"] if t["reading"] == "error"}
    assert len(errors) == 1
    assert "500" in errors.pop()
    read_evidence = {t["evidence"] for t in cases["read"]["trials"]}
    assert read_evidence == {f"the run completed without a successful Skill call for '{SKILL_ID}'"}
    assert "FAILED: the candidate regressed." in captured.out
    assert API_KEY not in captured.out + captured.err
    # `detect` reads a transcript the run kept as the run read it.
    assert main(["detect", plain_trial["transcript"], "--skill", SKILL_ID, "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["reading"] == "activated"


def test_errors_alone_fail_closed_with_exit_3(
    tmp_path: Path, stage_b: tuple[SkillRepo, FakeMessagesAPI, Path]
) -> None:
    _repo, _api, claude = stage_b
    code, report = real(tmp_path, claude, "--only", "plain,broken", "--trials", "1")
    assert code == 3
    assert [e["status"] for e in report["cases"]] == ["PASS", "ERROR"]


def test_a_bug_in_a_run_is_an_internal_error_not_an_error_trial(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A failure of the run itself (a process that cannot start, a broken pipe) is an error
    trial and exit 3; a bug in the code reading it is exit 4, as in Stage A, so CI says
    "report it", not "re-run the job"."""
    _repo, _api, claude = stage_b

    def broken(self: StreamReader, line: str | bytes) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(StreamReader, "feed", broken)
    code, report = real(tmp_path, claude, "--only", "plain", "--trials", "1")
    assert code == 4
    assert report["exit_code"] == 4
    assert report["error"].startswith("internal error: ZeroDivisionError: a bug; please report it")
    assert "internal error: ZeroDivisionError: a bug" in capsys.readouterr().err


def test_default_selection_is_spot_checks_plus_what_stage_a_flagged(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _repo, _api, claude = stage_b
    code, report = real(tmp_path, claude, "--trials", "1", "--max-trials", "1")
    assert code == 0  # one trial each: 1/1 against 0/1 is not significant
    assert [(e["id"], e["status"]) for e in report["cases"]] == [("dispute", "UNSTABLE")]
    assert (
        "spot checks only (no Stage A run on these two descriptions yet)" in capsys.readouterr().err
    )

    # Stage A: the scripted classifier fires only with the baseline, so every positive
    # regresses and every negative passes.
    stage_a_report = tmp_path / "stage-a.json"
    stage_a = main(
        [
            "--cases",
            str(tmp_path / "cases.json"),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(stage_a_report),
        ]
    )
    assert stage_a == 1
    flagged = read_report(stage_a_report)["summary"]["regressed"]
    assert flagged == ["dispute", "plain", "broken"]

    code, report = real(tmp_path, claude, "--trials", "1", "--max-trials", "1")
    assert [e["id"] for e in report["cases"]] == ["dispute", "plain", "broken"]
    assert code == 3


def test_missing_claude_is_exit_2_with_an_install_hint(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _repo, api, _claude = stage_b
    code, report = real(tmp_path, tmp_path / "no-such-claude", "--only", "plain")
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "@anthropic-ai/claude-code@2.1.332" in line
    assert report == {
        "schema": "activation-report/4",
        "version": activation.__version__,
        "exit_code": 2,
        "error": line.removeprefix("activation: error: "),
    }
    assert api.requests == []


def test_calibrate_through_the_real_agent(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The agent loads the skill when the description covers the prompt: the real one
    covers refunds, the narrow control nothing, the broad control everything (both
    controls the defaults, written for the skill measured)."""
    _repo, api, claude = stage_b

    def covers(request: FakeRequest) -> Reply:
        if not request.is_main_loop:
            return Text("ok")
        description = request.menu[SKILL_ID]
        if "explicitly asks" in description:
            return prose(request)
        if description == BROAD_CONTROL or request.prompt.startswith("refund"):
            return skill_call(request)
        return other_skill(request)

    api.script = covers
    calibration = tmp_path / "calibration.json"
    code = main(
        [
            "calibrate", "--real", "--claude", str(claude), "--only", "plain,other",
            "--cases", str(tmp_path / "cases.json"), "--distractors", str(tmp_path / "distractors"),
            "--max-turns", "3", "--timeout", "20", "--json", str(calibration),
        ]
    )  # fmt: skip
    data = orjson.loads(calibration.read_bytes())
    assert code == 0, capsys.readouterr().out
    assert data["stage"] == "B"
    assert data["narrow"] == {"detected": True, "regressed": ["plain"]}
    assert data["broad"] == {"detected": True, "regressed": ["other"]}
    assert data["self"] == {"false_alarms": []}
    assert data["reports"]["self"]["candidate"]["description"] == CANDIDATE


def test_calibrate_agreement_runs_both_stages_on_the_same_cases(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Stage A fires on both refund prompts, the real agent only on the plain one: the
    stages disagree on the dispute with the real description, agree with the narrow one."""
    _repo, api, claude = stage_b
    fired = {"A": {"refund order 1234", "a stripe dispute came in, refund it"},
             "B": {"refund order 1234"}}  # fmt: skip

    def both(request: FakeRequest) -> Reply:
        narrow = "explicitly asks" in request.menu.get(SKILL_ID, "")
        if request.schema is not None:
            return Answer([SKILL_ID] if not narrow and request.prompt in fired["A"] else [])
        if not request.is_main_loop:
            return Text("ok")
        if not narrow and request.prompt in fired["B"]:
            return skill_call(request)
        return other_skill(request)

    api.script = both
    out, records = tmp_path / "agreement.json", tmp_path / "records"
    code = main(
        [
            "calibrate", "--agreement", "--claude", str(claude), "--only", "plain,other,dispute",
            "--cases", str(tmp_path / "cases.json"), "--distractors", str(tmp_path / "distractors"),
            "--max-turns", "3", "--timeout", "20", "--json", str(out), "--record", str(records),
        ]
    )  # fmt: skip
    shown = capsys.readouterr().out
    data = orjson.loads(out.read_bytes())
    assert code == 0, shown
    cheap, real = data["cells"]
    assert cheap.startswith("A/claude-code/") and real == "B/claude-code/default"
    found = {item["variant"]: item for item in data["agreement"]}
    assert found["baseline"] == {
        "variant": "baseline", "cases": 3, "same": 2, "kappa": 0.0, "kappa_interval": None,
        "disagree": ["dispute"],
    }  # fmt: skip
    assert found["candidate"] == {
        "variant": "candidate", "cases": 3, "same": 3, "kappa": 1.0, "kappa_interval": [1.0, 1.0],
        "disagree": [],
    }  # fmt: skip
    assert data["reports"]["stage_b"]["stage"] == "B"
    rows = [line for line in shown.splitlines() if line.startswith("│ ")]
    assert [row.split("│")[1:6] for row in rows] == [
        [" baseline (the real description) ", " 3     ", " 2 (67%)  ",
         " 0.00 (no interval: one stage rated every case alike) ", " dispute        "],
        [" candidate (the narrow control)  ", " 3     ", " 3 (100%) ",
         " 1.00 (1.00 to 1.00)                                  ", " -              "],
    ]  # fmt: skip
    written = sorted(path.suffix for path in records.iterdir())
    assert written == [".json", ".md"]
    (md,) = records.glob("*.md")
    assert md.name.endswith(f"-agreement-{cheap.replace('/', '-')}-vs-B-claude-code-default.md")
    assert "| baseline (" in md.read_text()


def test_three_shards_of_a_real_run_merge_into_the_whole_run(
    tmp_path: Path,
    stage_b: tuple[SkillRepo, FakeMessagesAPI, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _repo, _api, claude = stage_b
    reports = []
    for index in (1, 2, 3):
        code, report = real(
            tmp_path, claude, "--only", "dispute,plain,read,other", "--shard", f"{index}/3"
        )
        saved = tmp_path / f"shard-{index}.json"
        saved.write_bytes(orjson.dumps(report))
        reports.append(saved)
    merged = tmp_path / "merged.json"
    capsys.readouterr()
    code = main(["merge", *map(str, reports), "--json", str(merged)])
    data = read_report(merged)
    assert code == 1
    assert {entry["id"]: entry["status"] for entry in data["cases"]} == {
        "dispute": "REGRESSED",
        "plain": "PASS",
        "read": "PASS",
        "other": "PASS",
    }
    # Significant on its own across the run's 4 cases at 6 of 6 against 0 of 6.
    assert tally(entries(data)["dispute"]["candidate"]) == (0, 6, 0)
    for index, path in enumerate(reports, start=1):
        ids = [entry["id"] for entry in read_report(path)["cases"]]
        assert ids == [c for c in ("dispute", "plain", "read", "other") if shard_of(c, 3) == index]
    assert "FAILED: the candidate regressed." in capsys.readouterr().out
