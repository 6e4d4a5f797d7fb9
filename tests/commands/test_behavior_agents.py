"""Stage C end to end through the real pinned OpenCode and Codex CLIs: `activation behavior
--agent opencode|codex` on the bundled example (examples/behavior), each CLI against its
local stand-in (OpenCode the Messages API, Codex the Responses API), the model scripted to
do the task the way the body the agent loaded teaches (tests/support/behavior_repo.py): it
loads the skill its own way, then writes the file with its own tools (OpenCode's `read` and
`write`, Codex's `apply_patch`).

Codex's judge is `--judge-model openai:gpt-5.4-mini`, answered at the same Responses API
stand-in: a Codex user has an OpenAI key, and nothing of the run then needs Anthropic's (its
variables are unset). The `llm` arm's model is the judge's, so it goes there too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from tests.support import responses_api
from tests.support.agent_writes import update_file
from tests.support.behavior_repo import (
    CODEX_LOAD,
    EXAMPLE,
    GUESS,
    codex_does_the_task,
    example_repo,
    opencode_does_the_task,
    scaffold,
)
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, ToolUse
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest

Report = dict[str, Any]
KEYS = {
    "opencode": "sk-ant-test-behavior-opencode-SECRET",
    "codex": "sk-test-behavior-codex-SECRET",
}
VERSIONS = {"opencode": "1.18.33", "codex": "0.171.0"}
JUDGES = {"opencode": "claude-haiku-5-5", "codex": "gpt-5.4-mini"}
"""The model each agent's judge requests name: the default judge for OpenCode, for Codex
the `openai:` model it is given."""
ONE_CASE = ("--only", "welcome_banner", "--trials", "3", "--max-trials", "3")
RIGHT, V1 = (EXAMPLE / "solutions" / kind / "welcome-banner" / "app.py" for kind in ("right", "v1"))
SKILLS = EXAMPLE / "plugins" / "greetlib" / "skills"
REMOVED_API = "No removed 1.x API (hello, hello_all, init, polite=)"


@dataclass
class AtWork:
    """One agent's CLI and the stand-in its model (and judge) answer at."""

    agent: str
    cli: Path
    api: FakeMessagesAPI | FakeResponsesAPI
    tmp_path: Path

    def behave(self, *flags: str) -> tuple[int, Report]:
        report = self.tmp_path / "behavior.json"
        report.unlink(missing_ok=True)
        judge = ("--judge-model", "openai:gpt-5.4-mini") if self.agent == "codex" else ()
        code = main([
            "behavior", "--agent", self.agent, f"--{self.agent}", str(self.cli),
            "--baseline", "git:HEAD", "--timeout", "120", *judge, "--json", str(report),
            "--full-record", *flags,
        ])  # fmt: skip
        return code, read_report(report) if report.exists() else {}

    @property
    def judge_models(self) -> set[str]:
        """The model of every judge request (a JSON schema for its answer)."""
        if isinstance(self.api, FakeMessagesAPI):
            return {r.model for r in self.api.message_requests if r.schema is not None}
        return {
            str(r.body.get("model"))
            for r in self.api.requests
            if (r.body.get("text") or {}).get("format")
        }


@pytest.fixture(params=["opencode", "codex"])
def at_work(
    request: pytest.FixtureRequest,
    opencode_cli: Path,
    codex_cli: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[AtWork]:
    agent: str = request.param
    cli = {"opencode": opencode_cli, "codex": codex_cli}[agent]
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                     "OPENAI_API_KEY", "OPENAI_BASE_URL"):  # fmt: skip
        monkeypatch.delenv(variable, raising=False)
    api: FakeMessagesAPI | FakeResponsesAPI
    if agent == "opencode":
        api = FakeMessagesAPI(opencode_does_the_task)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS[agent])
    else:
        api = FakeResponsesAPI(codex_does_the_task)
        monkeypatch.setenv("OPENAI_API_KEY", KEYS[agent])
    with api:
        if agent == "opencode":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", f"{api.base_url}/v1")
        yield AtWork(agent, cli, api, tmp_path)


def trials_of(report: Report, arm: str) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def outcomes(trial: dict[str, Any]) -> dict[str, str]:
    return {grade["grader"]: grade["outcome"] for grade in trial["grades"]}


def test_a_body_that_teaches_the_removed_api_regresses_the_case_and_fails_the_gate(
    at_work: AtWork, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example_repo(at_work.tmp_path / "repo", broken=True))
    kept = at_work.tmp_path / "kept"
    code, report = at_work.behave(*ONE_CASE, "--keep-workspaces", str(kept))
    assert code == 1
    assert (report["stage"], report["coding_agent"]) == ("C", at_work.agent)
    assert report["agent"]["version"] == VERSIONS[at_work.agent]
    assert report["arms"] == ["none", "llm"]
    assert [(entry["id"], entry["status"]) for entry in report["cases"]] == [
        ("welcome_banner", "REGRESSED")
    ]
    for arm, loaded in (("baseline", True), ("candidate", True), ("none", False),
                        ("llm", False)):  # fmt: skip
        trials = trials_of(report, arm)
        assert [trial["index"] for trial in trials] == [0, 1, 2]
        assert [trial["activated"] for trial in trials] == [loaded] * 3
        assert [trial["correct"] for trial in trials] == [arm == "baseline"] * 3
        # The files each trial left, and no file the adapter installed (the skill's own
        # SKILL.md and references, which hold the right code).
        written = ["app.py", "requirements.txt"] + (["response.md"] if arm == "llm" else [])
        assert [trial["files"] for trial in trials] == [written] * 3
    assert set(outcomes(trials_of(report, "baseline")[0]).values()) == {"passed"}
    assert outcomes(trials_of(report, "candidate")[0])[REMOVED_API] == "failed"
    none = outcomes(trials_of(report, "none")[0])
    assert none["Imports greetlib"] == "failed"
    # What each arm's agent wrote, with its own tools, in its own workspace.
    for arm, text in (("baseline", RIGHT.read_text()), ("candidate", V1.read_text()),
                      ("none", GUESS)):  # fmt: skip
        assert [(kept / "welcome_banner" / f"{arm}-{i}" / "app.py").read_text()
                for i in range(3)] == [text] * 3  # fmt: skip
    # The arms that install the skill put it in the workspace (`.agents/skills`), its
    # references beside it; none of it was graded above. The none arm installs nothing.
    reference = "greetlib/references/api.md"
    for arm in ("baseline", "candidate"):
        installed = kept / "welcome_banner" / f"{arm}-0" / ".agents" / "skills" / reference
        assert installed.read_text() == (SKILLS / reference).read_text()
    assert not (kept / "welcome_banner" / "none-0" / ".agents" / "skills" / "greetlib").exists()
    assert at_work.judge_models == {JUDGES[at_work.agent]}
    assert KEYS[at_work.agent] not in (at_work.tmp_path / "behavior.json").read_text()


def test_an_unchanged_body_passes_and_the_skill_lifts_over_no_skill(
    at_work: AtWork, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(example_repo(at_work.tmp_path / "repo"))
    monkeypatch.setenv("COLUMNS", "250")
    code, report = at_work.behave(*ONE_CASE, "--arm", "none", "--fail-on", "no-lift")
    out = capsys.readouterr().out
    assert code == 0
    assert report["arms"] == ["none"]
    assert [(entry["id"], entry["status"]) for entry in report["cases"]] == [
        ("welcome_banner", "PASS")
    ]
    assert [t["correct"] for t in trials_of(report, "candidate")] == [True] * 3
    assert [t["activated"] for t in trials_of(report, "candidate")] == [True] * 3
    none = trials_of(report, "none")
    assert [(t["activated"], t["correct"]) for t in none] == [(False, False)] * 3
    assert (
        "skill lift over the suite (first rounds): candidate 3/3 = 100% vs no skill 0/3 = 0%: "
        "+100 points (95% Newcombe +21 to +100), shown"
    ) in out.splitlines()
    assert out.splitlines()[-1] == "OK: no case regressed, no case errored."


class SkipsTheSkill:
    """Every second run of the agent (in the order they start) does not load the skill it
    is offered: it writes its guess instead."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.first_turns = 0
        self.lock = threading.Lock()

    def skips(self) -> bool:
        with self.lock:
            self.first_turns += 1
            return self.first_turns % 2 == 0

    def __call__(self, request: Any) -> Any:
        if self.agent == "opencode":
            assert isinstance(request, FakeRequest)
            reply = opencode_does_the_task(request)
            if isinstance(reply, ToolUse) and reply.name == "skill" and self.skips():
                return ToolUse("read", {"filePath": "app.py"})
            return reply
        assert isinstance(request, ResponsesRequest)
        answer = codex_does_the_task(request)
        if answer == responses_api.Shell(CODEX_LOAD) and self.skips():
            return responses_api.Patch(update_file("app.py", scaffold("welcome_banner"), GUESS))
        return answer


def test_a_trial_where_the_skill_did_not_load_is_recorded_and_graded_as_such(
    at_work: AtWork, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example_repo(at_work.tmp_path / "repo"))
    at_work.api.script = SkipsTheSkill(at_work.agent)
    code, report = at_work.behave("--only", "welcome_banner", "--trials", "2", "--max-trials",
                                  "2", "--no-control", "--concurrency", "1")  # fmt: skip
    # One at a time, baseline and candidate alternate: every candidate run skips the skill.
    baseline, candidate = trials_of(report, "baseline"), trials_of(report, "candidate")
    assert [(t["activated"], t["correct"]) for t in baseline] == [(True, True)] * 2
    assert [(t["activated"], t["correct"]) for t in candidate] == [(False, False)] * 2
    for trial in candidate:
        assert trial["chose"] == []
        assert trial["files"] == ["app.py", "requirements.txt"]
        assert outcomes(trial)["Imports greetlib"] == "failed"
    assert report["arms"] == []
    assert report["cases"][0]["status"] == "UNSTABLE"
    assert code == 0
