"""Stage C graded on what the agent did, end to end: `activation behavior` drives a real
agent CLI at its local stand-in on examples/behavior/trajectory, the model scripted to
follow the body it loaded. The candidate's body (`edits/skip-format.md`) no longer sends the
agent to the skill's format or its checker, so the cards still pass the file grader while a
trajectory grader fails: REGRESSED by what the agent did, the trajectory in the report.
Claude Code stops reading the format (`file_read`); Codex, the one agent whose Stage C may
run commands, stops running the checker (`command_ran`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support import responses_api
from tests.support.agent_writes import add_file
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


CHECK = "python3 .agents/skills/cards/scripts/check_cards.py cards.txt"


def codex_follows_the_body(request: responses_api.ResponsesRequest) -> responses_api.Reply:
    """Codex at work on the cards: `cat` the skill, add cards.txt, run the checker when the
    body it printed says to, done. The judge (no stream, a JSON schema) answers YES."""
    if request.body.get("stream") is not True:
        return responses_api.Text(
            orjson.dumps({"reasoning": "scripted", "verdict": "YES"}).decode()
        )
    printed = "".join(request.tool_outputs)
    if "- cards: " in (request.listing or "") and request.turn == 0:
        return responses_api.Shell("cat .agents/skills/cards/SKILL.md")
    if "*** Begin Patch" not in orjson.dumps(request.input).decode():
        cards = CARDS.replace("Happy birthday", "Thank you")
        return responses_api.Patch(add_file("cards.txt", cards))
    if "check_cards.py" in printed and CHECK not in orjson.dumps(request.input).decode():
        return responses_api.Shell(CHECK)
    return responses_api.Text("Done.")


def test_a_body_that_stops_running_the_checker_regresses_by_command_ran_on_codex(
    tmp_path: Path, codex_cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    in_repo(tmp_path, monkeypatch)
    saved = tmp_path / "behavior.json"
    with responses_api.FakeResponsesAPI(codex_follows_the_body) as api:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-codex-trajectory")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{api.base_url}/v1")
        code = main(["behavior", "--agent", "codex", "--codex", str(codex_cli), "--judge-model",
                     "openai:gpt-5.4-mini", "--baseline", "git:HEAD", "--only", "run_the_checker",
                     "--trials", "3", "--max-trials", "3", "--timeout", "120", "--json",
                     str(saved), "--full-record"])  # fmt: skip
    report, outcomes = regressed(code, saved)
    followed = dict.fromkeys(
        (
            "A card for Grace in the house format",
            "Ran the skill's checker (scripts/check_cards.py)",
            "Ran the checker at most 3 times",
            "Deletes no file",
            "Does cards.txt hold one card per name of names.txt, each `To <name>: <greeting>!`?",
        ),
        "passed",
    )
    assert outcomes["baseline"] == [followed] * 3
    skipped = {**followed, "Ran the skill's checker (scripts/check_cards.py)": "failed",
               "Ran the checker at most 3 times": "failed"}  # fmt: skip
    assert outcomes["candidate"] == [skipped] * 3
    baseline = trials_of(report, "baseline")[0]["trajectory"]
    assert [command.split("'")[1] if "'" in command else command
            for command in baseline["commands"]] == [
        "cat .agents/skills/cards/SKILL.md", CHECK
    ]  # fmt: skip
    assert baseline["files_read"] == [".agents/skills/cards/SKILL.md"]
    assert baseline["files_written"][-1].endswith("cards.txt")
    assert "turns" not in baseline["measured"]
