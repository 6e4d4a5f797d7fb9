"""Stage C end to end on Gemini CLI: `activation behavior --agent gemini` drives the real pinned
CLI against the local Gemini API stand-in on the bundled example (examples/behavior), the
model scripted to do the task the way the skill it activated teaches: it calls
`activate_skill`, reads the body the CLI sent back, and writes the file with the CLI's own
`write_file` tool in the run's workspace. The judge is a Gemini model too
(`--judge-model google:...`, the google-genai SDK against the same stand-in)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.behavior_repo import FILES, case_of, example_repo, solution
from tests.support.cli import read_report
from tests.support.gemini_api import Call, FakeGeminiAPI, GeminiRequest, Reply, Text

MODEL = "google:gemini-3.1-pro-preview"
KEY = "AIza-behavior-test-SECRET-42"


def taught(request: GeminiRequest) -> str | None:
    """Which API the activated body teaches: "right" (2.x), "v1", or None (no load)."""
    for response in request.function_responses:
        output = str((response.get("response") or {}).get("output", ""))
        if response.get("name") == "activate_skill" and "<activated_skill" in output:
            return "right" if "# greetlib 2" in output else "v1"
    return None


def judged(request: GeminiRequest) -> Reply:
    """The judge: YES when the files use greetlib's 2.x API, NO otherwise."""
    text = request.prompt.partition("The workspace's files:")[2]
    right = "import greetlib" in text and not re.search(r"\b(hello|hello_all|init)\(", text)
    return Text(
        orjson.dumps({"reasoning": "scripted", "verdict": "YES" if right else "NO"}).decode()
    )


def does_the_task(request: GeminiRequest) -> Reply:
    """Gemini CLI at work: activate the skill when it is listed, write the answer the body
    teaches, then say it is done."""
    if not request.stream:
        return judged(request)
    case = case_of(request.prompt)
    listed = "<name>greetlib</name>" in request.system
    if listed and request.turn == 0:
        return Call("activate_skill", {"name": "greetlib"})
    if request.turn == (1 if listed else 0):
        content = solution(taught(request), case)
        return Call("write_file", {"file_path": FILES[case], "content": content})
    return Text("Done.")


def trials_of(report: dict[str, Any], arm: str) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def test_a_body_that_teaches_the_removed_api_regresses_on_gemini_cli(
    tmp_path: Path, gemini_cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example_repo(tmp_path / "repo", broken=True))
    for name in ("GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    report_file = tmp_path / "behavior.json"
    with FakeGeminiAPI(does_the_task, key=KEY) as api:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", api.base_url)
        monkeypatch.setenv("GEMINI_API_KEY", KEY)
        code = main(["behavior", "--agent", "gemini", "--gemini", str(gemini_cli),
                     "--model", MODEL, "--judge-model", MODEL, "--arm", "none",
                     "--baseline", "git:HEAD", "--only", "welcome_banner", "--trials", "3",
                     "--max-trials", "3", "--json", str(report_file),
                     "--full-record"])  # fmt: skip
        agent_requests = [r for r in api.requests if r.stream]
    report = read_report(report_file)
    assert code == 1
    assert report["stage"] == "C"
    (entry,) = report["cases"]
    assert entry["status"] == "REGRESSED"
    for arm, loaded, correct in (("baseline", True, True), ("candidate", True, False),
                                 ("none", False, False)):  # fmt: skip
        trials = trials_of(report, arm)
        assert [t["index"] for t in trials] == [0, 1, 2]
        assert {t["activated"] for t in trials} == {loaded}, trials[0]
        assert {t["correct"] for t in trials} == {correct}
        assert all(FILES["welcome_banner"] in t["files"] for t in trials)
    # The agent ran with write_file and without the shell or the web.
    tools = set(agent_requests[0].tool_names)
    assert {"write_file", "replace", "activate_skill"} <= tools
    assert not tools & {"run_shell_command", "web_fetch", "google_web_search"}
    # The none arm installs nothing: only the CLI's built-ins are listed.
    none_listings = [r.system for r in agent_requests if "<name>greetlib</name>" not in r.system]
    assert none_listings and all("<name>skill-creator</name>" in s for s in none_listings)
    assert KEY not in report_file.read_text()
