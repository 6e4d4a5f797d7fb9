"""`activation calibrate` end to end through the CLI against the local Messages API stand-in."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply
from tests.support.skill_repo import (
    DISTRACTORS,
    SKILL_ID,
    SkillRepo,
    case,
    make_skill_repo,
    skill_text,
    write_cases,
    write_distractors,
)

REAL = "Use when issuing refunds or handling chargebacks."
NARROW = "explicitly asks for the"
BROAD = "Use for any software development task"

CASES = [
    case("refund", "refund order 1234", True, ["keyword-loss"]),
    case("chargeback", "a chargeback came in for order 9", True, ["keyword-loss"]),
    case("chart", "plot monthly revenue as a bar chart", False, ["negative"]),
    case("sql", "this sql query is slow, add an index", False, ["negative"]),
]


def fires(prompt: str, description: str) -> bool:
    """The scripted model: the real description covers refunds and chargebacks only."""
    if NARROW in description:
        return "skill by name" in prompt
    if BROAD in description:
        return True
    return "refund" in prompt or "chargeback" in prompt


@pytest.fixture
def setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[SkillRepo, FakeMessagesAPI]]:
    skill = make_skill_repo(tmp_path / "repo", REAL)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    monkeypatch.chdir(skill.root)
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-calibrate")
        yield skill, api


def calibrate(tmp_path: Path, cases: list[dict[str, object]], *flags: str) -> int:
    cases_file = write_cases(tmp_path / "cases.json", cases)
    return main(
        [
            "calibrate",
            "--cases",
            str(cases_file),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(tmp_path / "calibration.json"),
            *flags,
        ]
    )


def answer(request: FakeRequest) -> Reply:
    target = request.menu[SKILL_ID]
    return Answer([SKILL_ID] if fires(request.prompt, target) else ["charts"])


def test_a_sound_suite_catches_both_controls(
    tmp_path: Path,
    setup: tuple[SkillRepo, FakeMessagesAPI],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _skill, api = setup
    api.script = answer
    code = calibrate(tmp_path, CASES, "--record", str(tmp_path / "records"))
    out, err = capsys.readouterr()
    assert code == 0
    assert "warning: the narrow control" in err
    assert "is written for the skill 'auth0', not 'refunds'" in err
    assert err.count("warning: ") == 2
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["schema"] == "activation-calibration/1"
    assert data["narrow"] == {"detected": True, "regressed": ["refund", "chargeback"]}
    assert data["broad"] == {"detected": True, "regressed": ["chart", "sql"]}
    assert data["self"] == {"false_alarms": []}
    assert data["problems"] == []
    assert data["exit_code"] == 0
    assert data["reports"]["narrow"]["candidate"]["description"].startswith("Use only when")
    assert data["reports"]["self"]["candidate"]["description"] == REAL
    assert len(api.message_requests) == 3 * len(CASES) * 2 * 3
    assert "The suite caught both controls and raised no A/A alarm." in out
    records = sorted(path.suffix for path in (tmp_path / "records").iterdir())
    assert records == [".json", ".md"]
    markdown = next((tmp_path / "records").glob("*.md")).read_text()
    assert "| narrow | positives REGRESSED | yes | refund, chargeback |" in markdown
    assert "| self | no REGRESSED (A/A) | yes | - |" in markdown


def test_a_suite_without_real_negatives_is_blind_on_false_positives(
    tmp_path: Path,
    setup: tuple[SkillRepo, FakeMessagesAPI],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _skill, api = setup
    api.script = answer
    positives_only = [CASES[0], CASES[1]]
    code = calibrate(tmp_path, positives_only, "--trials", "3")
    out = capsys.readouterr().out
    assert code == 1
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["broad"] == {"detected": False, "regressed": []}
    assert data["narrow"]["detected"] is True
    assert [problem.split(":")[0] for problem in data["problems"]] == ["blind on false positives"]
    assert "The suite is blind on false positives" in out


def test_a_flaky_case_raises_an_aa_false_alarm(
    tmp_path: Path, setup: tuple[SkillRepo, FakeMessagesAPI]
) -> None:
    """With one call at a time the order is fixed: narrow (3 real calls), broad (3), then
    A/A alternating real-baseline and real-candidate; the scripted model flips after the
    first call of each A/A pair, so the baseline fires and the candidate does not."""
    _skill, api = setup
    calls = {"n": 0}
    lock = threading.Lock()

    def flaky(request: FakeRequest) -> Reply:
        target = request.menu[SKILL_ID]
        if target != REAL or request.prompt != "refund order 1234":
            return answer(request)
        with lock:
            n = calls["n"]
            calls["n"] += 1
        return Answer([SKILL_ID] if n < 6 or n % 2 == 0 else [])

    api.script = flaky
    code = calibrate(tmp_path, CASES, "--concurrency", "1")
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert code == 1
    assert data["self"] == {"false_alarms": ["refund"]}
    assert data["problems"][0].startswith("raises false alarms: A/A regressed refund")


def test_own_controls_for_the_skill_raise_no_warning(
    tmp_path: Path,
    setup: tuple[SkillRepo, FakeMessagesAPI],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _skill, api = setup
    api.script = answer
    narrow = tmp_path / "narrow.md"
    narrow.write_text(skill_text(f"Use only when the user {NARROW} refunds skill by name."))
    broad = tmp_path / "broad.md"
    broad.write_text(skill_text(f"{BROAD}."))
    code = calibrate(tmp_path, CASES, "--narrow", str(narrow), "--broad", str(broad))
    out, err = capsys.readouterr()
    assert code == 0, out
    assert "warning" not in err
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["narrow"]["detected"] is True
    assert data["reports"]["narrow"]["candidate"]["spec"] == str(narrow)


def test_calibrate_bad_input_exits_2_before_any_call(
    tmp_path: Path,
    setup: tuple[SkillRepo, FakeMessagesAPI],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _skill, api = setup
    code = calibrate(tmp_path, CASES, "--narrow", str(tmp_path / "missing.md"))
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("activation calibrate: error: ")
    assert "missing.md" in err[0]
    assert api.requests == []
