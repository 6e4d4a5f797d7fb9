"""The attribution chain end to end: `activation behavior --sandbox bwrap` drives the real
Claude Code at its local stand-in on the trajectory example's checker case, the model
scripted to skip the skill, to load it and ignore its body, or to load it and run its
checker with Bash (which Stage C offers Claude Code in a sandbox). The report's chain
tells the three apart: listed but not loaded, loaded but not followed, followed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from tests.support.behavior_repo import calls, workdir
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import commit_all

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior" / "trajectory"
CASE = "evals/run-the-checker"
GRADERS = """\
- type: file_contains
  file_pattern: cards.txt
  value: 'To Grace: '
  case_sensitive: true
  description: A card for Grace in the house format
- type: command_ran
  pattern: 'scripts/check_cards\\.py'
  description: Ran the skill's checker
  follows: true
"""
CARDS = "To Ada: Thank you, Ada!\nTo Grace: Thank you, Grace!\n"


def tool_results(request: FakeRequest) -> list[str]:
    """What each tool call so far returned to the model, as text."""
    return [
        str(block.get("content"))
        for message in request.messages
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def scripted(mode: str, returned: list[str]) -> Any:
    """Claude Code on the cards: load the skill unless `mode` is "unloaded", write the
    cards, and run the checker its body names when `mode` is "followed" (what the tools
    returned kept in `returned`)."""

    def reply(request: FakeRequest) -> Reply:
        used = [call.get("name") for call in calls(request)]
        returned[:] = tool_results(request)
        if mode != "unloaded" and not used and "cards" in request.menu:
            return ToolUse("Skill", {"skill": "cards"})
        if "Write" not in used:
            return ToolUse("Write", {"file_path": f"{workdir(request)}/cards.txt",
                                     "content": CARDS})  # fmt: skip
        if mode == "followed" and "Bash" not in used:
            check = "python3 .claude/skills/cards/scripts/check_cards.py cards.txt"
            return ToolUse("Bash", {"command": check})
        return Text("Done.")

    return reply


def steps(chain: dict[str, Any]) -> list[tuple[int, int] | None]:
    return [None if chain[step] is None else (chain[step]["passed"], chain[step]["applied"])
            for step in ("trials", "listed", "loaded", "followed")]  # fmt: skip


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("unloaded", [(0, 1), (0, 1), (0, 0), (0, 0)]),
        ("ignored", [(0, 1), (0, 1), (0, 1), (0, 0)]),
        ("followed", [(1, 1), (1, 1), (1, 1), (1, 1)]),
    ],
)
def test_the_chain_tells_not_loaded_from_not_followed_from_followed_under_bwrap(
    mode: str,
    expected: list[tuple[int, int]],
    tmp_path: Path,
    fake_api: FakeMessagesAPI,
    claude: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    returned: list[str] = []
    fake_api.script = scripted(mode, returned)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    shutil.rmtree(repo / "evals" / "read-the-format")
    (repo / CASE / "graders.yaml").write_text(GRADERS)
    commit_all(repo, "cards and one case").close()
    monkeypatch.chdir(repo)
    saved = tmp_path / "behavior.json"
    code = main(["behavior", "--claude", str(claude), "--sandbox", "bwrap", "--no-control",
                 "--baseline", "git:HEAD", "--trials", "1", "--max-trials", "1", "--json",
                 str(saved), "--full-record"])  # fmt: skip
    report = read_report(saved)
    assert code == 0
    assert report["agent"]["sandbox"] == "bwrap"
    baseline, candidate = report["chain"]
    assert (candidate["arm"], candidate["listing"]) == ("candidate", "full")
    assert steps(baseline) == steps(candidate) == expected
    (entry,) = report["cases"]
    trial = next(t for t in entry["trials"] if t["variant"] == "candidate")
    ran = ["python3 .claude/skills/cards/scripts/check_cards.py cards.txt"]
    assert trial["trajectory"]["commands"] == (ran if mode == "followed" else [])
    assert ("ok" in returned) is (mode == "followed")  # Bash ran the checker in the sandbox


def test_a_case_reading_shell_commands_is_refused_on_the_host_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    commit_all(repo, "cards and its evals").close()
    monkeypatch.chdir(repo)
    code = main(["behavior", "--sandbox", "host", "--baseline", "git:HEAD"])
    assert code == 2
    assert capsys.readouterr().err == (
        "activation behavior: error: case run_the_checker: its command_ran grader reads the "
        "agent's shell commands, and Claude Code at work on the host has no shell: pass "
        "--sandbox bwrap or --sandbox docker\n"
    )
