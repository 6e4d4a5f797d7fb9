"""Stage C graded on what the agent did, end to end: `activation behavior` drives the real
Claude Code at its local stand-in on examples/behavior/trajectory, the model scripted to
follow the body it loaded. The candidate's body (`edits/skip-format.md`) no longer sends the
agent to the skill's format, so the cards still pass the file grader while the `file_read`
grader fails: REGRESSED by what the agent did, the trajectory in the report (its tool calls,
files read and written, turns, and the figures Claude Code's stream gives). A body that
stops running the skill's checker (`command_ran`), through every agent's real CLI in a
sandbox: the conformance suite (tests/trials/agents/test_conformance.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.behavior_repo import calls, workdir
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import commit_all

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior" / "trajectory"
CARDS = "To Ada: Happy birthday, Ada!\nTo Grace: Happy birthday, Grace!\n"
BASE = re.compile(r"Base directory for this skill: (\S+?)(?:\\n|\s)")


def follows_the_body(request: FakeRequest) -> Reply:
    """Claude Code at work on the cards: load the skill, read the format when the body
    says to, write the cards, done. The judge answers YES to house-format cards."""
    if request.schema is not None:
        right = "To Ada: " in request.prompt
        return Text(orjson.dumps({"reasoning": "scripted",
                                  "verdict": "YES" if right else "NO"}).decode())  # fmt: skip
    used = [call.get("name") for call in calls(request)]
    if not used and "cards" in request.menu:
        return ToolUse("Skill", {"skill": "cards"})
    said = orjson.dumps(request.messages).decode()
    base = BASE.search(said)
    if base is not None and "references/format.md" in said and "Read" not in used:
        return ToolUse("Read", {"file_path": f"{base.group(1)}/references/format.md"})
    if "Write" not in used:
        cards = CARDS if base is not None else "Happy birthday Ada\n"
        return ToolUse("Write", {"file_path": f"{workdir(request)}/cards.txt", "content": cards})
    return Text("Done.")


def in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example committed, its edited body the candidate, the working directory."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    commit_all(repo, "cards and its evals").close()
    shutil.copyfile(repo / "edits" / "skip-format.md", repo / "skills" / "cards" / "SKILL.md")
    monkeypatch.chdir(repo)


def regressed(code: int, saved: Path) -> tuple[dict[str, Any], dict[str, list[dict[str, str]]]]:
    """The run's report, its one case REGRESSED and the gate failed, and each grader's
    outcome in every trial of the baseline and the candidate."""
    report = read_report(saved)
    assert code == 1
    assert [entry["status"] for entry in report["cases"]] == ["REGRESSED"]
    outcomes = {
        arm: [
            {g["grader"]: g["outcome"] for g in trial["grades"]} for trial in trials_of(report, arm)
        ]
        for arm in ("baseline", "candidate")
    }
    return report, outcomes


def trials_of(report: dict[str, Any], arm: str) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def test_a_body_that_stops_sending_the_agent_to_its_format_regresses_by_file_read(
    tmp_path: Path,
    fake_api: FakeMessagesAPI,
    claude: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_api.script = follows_the_body
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    in_repo(tmp_path, monkeypatch)
    saved = tmp_path / "behavior.json"
    code = main(["behavior", "--claude", str(claude), "--json", str(saved), "--full-record",
                 "--baseline", "git:HEAD", "--only", "read_the_format", "--trials", "3",
                 "--max-trials", "3"])  # fmt: skip
    report, outcomes = regressed(code, saved)
    followed = dict.fromkeys(
        (
            "A card for Ada in the house format",
            "Read the skill's card format (references/format.md)",
            "At most 12 tool calls",
            "At most 15 turns",
            "Fetches nothing from the web",
            "Does cards.txt hold one card per name of names.txt, each `To <name>: <greeting>!`?",
        ),
        "passed",
    )
    assert outcomes["baseline"] == [followed] * 3
    skipped = {**followed, "Read the skill's card format (references/format.md)": "failed"}
    assert outcomes["candidate"] == [skipped] * 3
    baseline = trials_of(report, "baseline")[0]
    assert [call["name"] for call in baseline["trajectory"]["tool_calls"]] == [
        "Skill", "Read", "Write"
    ]  # fmt: skip
    assert baseline["trajectory"]["files_read"] == [".claude/skills/cards/references/format.md"]
    assert baseline["trajectory"]["files_written"] == ["cards.txt"]
    assert baseline["trajectory"]["turns"] == 5  # as Claude Code counts them (num_turns)
    assert baseline["trajectory"]["measured"] == [
        "input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens", "cost_usd",
        "turns", "tool_calls", "seconds",
    ]  # fmt: skip
    candidate = trials_of(report, "candidate")[0]["trajectory"]
    assert [call["name"] for call in candidate["tool_calls"]] == ["Skill", "Write"]
    assert candidate["files_read"] == []
