"""Stage C end to end on GitHub Copilot CLI: `activation behavior --agent copilot` drives the
real pinned CLI (offline provider mode) against the local Messages API stand-in on the
bundled example (examples/behavior). The scripted model loads the skill with Copilot's
`skill` tool when it is listed, views the file and rewrites it with Copilot's `edit` tool,
writing what the body it was given teaches (tests/support/behavior_repo.py's solutions);
the `none` arm installs nothing, so the model guesses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.behavior_repo import (
    EXAMPLE,
    FILES,
    FOLDERS,
    case_of,
    example_repo,
    judged,
    solution,
)
from tests.support.cli import read_report
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.scripted_model import API_KEY

WORKDIR = re.compile(r"Current working directory: (\S+?)(?:\\n|\s)")
LISTED = "<name>greetlib</name>"


def taught(request: FakeRequest) -> str | None:
    """The API the body Copilot brought into the conversation teaches (its
    `<skill-context>` message), or None when no skill was loaded."""
    for message in request.messages[1:]:
        text = orjson.dumps(message.get("content")).decode()
        if "<skill-context" in text:
            return "right" if "# greetlib 2" in text else "v1"
    return None


def does_the_task(request: FakeRequest) -> Reply:
    """Copilot CLI at work: `skill` when greetlib is listed, `view` the file, `edit` it whole
    into what the loaded body teaches, then say it is done."""
    if request.schema is not None:
        return judged(request)
    if not request.tool_names:  # the llm arm
        return Text(f"```python\n{solution(None, 'welcome_banner')}```")
    found = WORKDIR.search(orjson.dumps(request.body).decode())
    assert found is not None, "no working directory in the request"
    case = case_of(request.prompt)
    path = f"{found.group(1)}/{FILES[case]}"
    results = len(request.tool_results)
    offered = LISTED in orjson.dumps(request.body["system"]).decode()
    if offered and results == 0:
        return ToolUse("skill", {"skill": "greetlib"})
    steps = results - (1 if offered else 0)
    if steps == 0:
        return ToolUse("view", {"path": path})
    if steps == 1:
        scaffold = (EXAMPLE / "evals" / FOLDERS[case] / "scaffold" / FILES[case]).read_text()
        new = solution(taught(request), case)
        return ToolUse("edit", {"path": path, "old_str": scaffold, "new_str": new})
    return Text("Done.")


def trials_of(report: dict[str, Any], arm: str) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def test_the_skill_is_loaded_and_its_body_written_by_copilots_own_tools(
    tmp_path: Path,
    fake_api: FakeMessagesAPI,
    copilot_cli: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_api.script = does_the_task
    monkeypatch.setenv("COPILOT_PKG_CACHE_HOME", str(PACKAGE_CACHE))
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    report_path = tmp_path / "behavior.json"
    code = main(["behavior", "--agent", "copilot", "--copilot", str(copilot_cli),
                 "--model", "anthropic:claude-sonnet-4.6", "--baseline", "git:HEAD",
                 "--only", "welcome_banner", "--trials", "2", "--max-trials", "2",
                 "--json", str(report_path), "--full-record"])  # fmt: skip
    report = read_report(report_path)
    assert code == 0, report
    assert report["stage"] == "C"
    for arm, loaded, correct in (("baseline", True, True), ("candidate", True, True),
                                 ("none", False, False)):  # fmt: skip
        trials = trials_of(report, arm)
        assert [t["activated"] for t in trials] == [loaded] * 2, trials
        assert [t["correct"] for t in trials] == [correct] * 2, trials
        assert {tuple(sorted(t["files"])) for t in trials} == {("app.py", "requirements.txt")}
    agent_requests = [r for r in fake_api.message_requests if "skill" in r.tool_names]
    assert agent_requests
    assert {tuple(sorted(r.tool_names)) for r in agent_requests} == {
        ("create", "edit", "glob", "grep", "skill", "view")
    }
    none_requests = [r for r in agent_requests if LISTED not in orjson.dumps(r.body).decode()]
    assert none_requests  # the none arm: greetlib installed nowhere, so never listed
    assert API_KEY not in report_path.read_text()
