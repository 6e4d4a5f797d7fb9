"""Stage B on OpenCode: the real pinned CLI (opencode-ai@1.18.33, tests/support/opencode_cli.py)
run by Stage B's own backend against the local Messages API stand-in; only the model is
scripted. First what reaches the model (the target's description, verbatim and whole, in
the listing Stage A renders), then what counts as a load, errors, and isolation."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from activation._errors import AuthError
from activation._models import AgentSettings
from activation.trials.agent.adapter import Run, RunDirs
from activation.trials.agent.installed import SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agents.opencode import adapter
from activation.trials.stage import stage_named
from tests.support.agent_harness import (
    ABOVE,
    CANDIDATE,
    LEAKY,
    SIBLING_ID,
    AgentHarness,
    harness_for,
)
from tests.support.messages_api import Error, FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import SKILL_ID, SkillRepos

LISTING_START = "Skills provide specialized instructions and workflows for specific tasks."


@pytest.fixture
def harness(
    opencode_cli: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AgentHarness]:
    yield from harness_for("opencode", opencode_cli, skill_repo, tmp_path, monkeypatch)


def turns(*replies: Reply) -> FakeMessagesAPI:
    """A stand-in answering the agent loop (it offers `skill`) by turn, the last reply
    repeating."""

    def script(request: FakeRequest) -> Reply:
        if "skill" not in request.tool_names:
            return Text("a title")
        return replies[min(request.turn, len(replies) - 1)]

    return FakeMessagesAPI(script)


def loop_requests(api: FakeMessagesAPI) -> list[FakeRequest]:
    return [request for request in api.message_requests if "skill" in request.tool_names]


def sent_listing(request: FakeRequest) -> str:
    (block,) = request.body["system"]
    text: str = block["text"]
    return text[text.index(LISTING_START) :]


def test_the_description_reaches_the_model_whole_and_nothing_of_the_users_does(
    harness: AgentHarness, tmp_path: Path
) -> None:
    """OpenCode cuts nothing: the 1,100-character description arrives as written, and the
    whole listing is the one Stage A renders for OpenCode, but for where the run's
    workspace is. Control first: run by hand with the planted HOME, in a folder under the
    planted skill, OpenCode lists both. Stage B's run lists neither, reads no user config
    (its model and address stand), and sends the key it was given."""
    project = harness.systemp / "by-hand"
    project.mkdir()
    with turns(Text("ok")) as api:
        env = {**harness.parent_env(api), "OPENCODE_CONFIG": str(tmp_path / "none.json")}
        stand_in = {"provider": {"anthropic": {"options": {"baseURL": f"{api.base_url}/v1"}}}}
        (tmp_path / "none.json").write_bytes(orjson.dumps(stand_in))
        argv = [str(harness.executable), "run", "--format", "json", "--title", "t", "--model",
                "anthropic/claude-sonnet-4-5"]  # fmt: skip
        done = subprocess.run(argv, input=b"hi", cwd=project, env=env, capture_output=True,
                              timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        control = sent_listing(loop_requests(api)[0])
    project.rmdir()
    assert f"<name>{LEAKY}</name>" in control
    assert f"<name>{ABOVE}</name>" in control
    with turns(Text("ok")) as api:
        trial = harness.run(api)
        (first,) = loop_requests(api)
    assert trial.error is None, trial.error
    sent = sent_listing(first)
    assert len(CANDIDATE) > 1024
    assert f"    <name>refunds</name>\n    <description>{CANDIDATE}</description>\n" in sent
    (root,) = re.findall(r"<location>(.*)/refunds/SKILL\.md</location>", sent)
    assert root.endswith("/work/.agents/skills")
    shown = stage_named("B").listings(harness.spec(), harness.inputs)["candidate"]
    assert sent == shown.text.replace(str(harness.repo.root / ".agents" / "skills"), root)
    assert list(shown.ids) == ["billing:charts", "customize-opencode", SKILL_ID]
    assert LEAKY not in sent
    assert ABOVE not in sent
    assert first.headers["x-api-key"] == harness.key
    assert first.model == "claude-sonnet-4-6"  # OpenCode's own default, not the planted one's
    assert "Is directory a git repo: yes" in first.body["system"][0]["text"]
    assert str(harness.repo.root) not in first.body["system"][0]["text"]


def test_a_skill_call_that_returns_the_copy_activates_and_stops_early(
    harness: AgentHarness,
) -> None:
    with turns(ToolUse("skill", {"name": "refunds"}), Text("Refunded.")) as api:
        trial = harness.run(api)
        prompts = {request.prompt for request in loop_requests(api)}
    assert (trial.activated, trial.chose, trial.error) == (True, (SKILL_ID,), None)
    assert trial.evidence == (
        "the agent called skill 'refunds' and it returned the target's SKILL.md, nonce "
        "included (line 2); run stopped early at that point"
    )
    assert prompts == {"Refund order 1234, please"}  # the prompt on stdin, verbatim
    events = harness.events(trial)
    assert [event["type"] for event in events] == ["step_start", "tool_use", "step_finish"]
    assert "<!-- activation nonce: " in events[1]["part"]["state"]["output"]
    assert trial.usage.requests == 1
    assert trial.usage.cost_usd is not None
    assert trial.usage.cost_usd > 0  # OpenCode's own figure for the step


def test_prose_about_the_skill_is_not_activated_and_a_model_id_is_opencodes(
    harness: AgentHarness,
) -> None:
    """A model id is OpenCode's anthropic model: the run's requests name it."""
    with turns(Text("I'll use the refunds skill. Refund issued.")) as api:
        trial = harness.run(api, model="claude-haiku-4-5", variant="baseline")
        (first,) = loop_requests(api)
    assert (trial.activated, trial.error) == (False, None)
    assert trial.evidence == (f"the run completed without a successful skill call for '{SKILL_ID}'")
    assert first.model == "claude-haiku-4-5"
    assert "You are powered by the model named claude-haiku-4-5." in first.body["system"][0]["text"]


@pytest.mark.parametrize(
    ("rule", "reason", "requests"),
    [
        ("ask", "The user rejected permission to use this specific tool call.", 1),
        ("deny", "The user has specified a rule which prevents you from using this specific", 2),
    ],
)
def test_a_refused_load_is_an_error_not_a_miss(
    harness: AgentHarness, monkeypatch: pytest.MonkeyPatch, rule: str, reason: str, requests: int
) -> None:
    """A permission rule on the target's skill: `ask`, which `opencode run` rejects by
    itself (and the session stops there), or `deny` (the model is told, and goes on). The
    model calls the skill, OpenCode refuses it, and the trial is an ERROR with OpenCode's
    reason, never a "did not activate"."""
    refusing = {**adapter.PERMISSION, "skill": {"*": "allow", "refunds": rule}}
    monkeypatch.setattr(adapter, "PERMISSION", refusing)
    with turns(ToolUse("skill", {"name": "refunds"}), Text("Done.")) as api:
        trial = harness.run(api)
        sent = len(loop_requests(api))
    assert (trial.activated, trial.chose) == (None, ())
    assert trial.error is not None
    assert trial.error.startswith(
        f"OpenCode refused to load 'refunds' (line 2, status error): {reason}"
    ), trial.error
    (call,) = [event for event in harness.events(trial) if event["type"] == "tool_use"]
    assert call["part"]["state"]["status"] == "error"
    assert sent == requests


def test_reading_the_skill_files_and_a_failed_skill_call_are_not_a_load(
    harness: AgentHarness,
) -> None:
    """A `read` of the target's SKILL.md returns its content (nonce included) but is not
    how OpenCode loads a skill; a skill call for a name it does not list fails; a skill
    call for the sibling is the sibling's load."""

    def script(request: FakeRequest) -> Reply:
        """By the tool results so far (OpenCode adds a turn of its own after a failed call)."""
        if "skill" not in request.tool_names:
            return Text("a title")
        done = len(request.tool_results)
        if done == 0:
            listing = sent_listing(request)
            (root,) = re.findall(r"<location>(.*)/refunds/SKILL\.md</location>", listing)
            return ToolUse("read", {"filePath": f"{root}/refunds/SKILL.md"})
        if done == 1:
            return ToolUse("skill", {"name": "refund"})
        if done == 2:
            return ToolUse("skill", {"name": "charts"})
        return Text("Done.")

    with FakeMessagesAPI(script) as api:
        trial = harness.run(api)
        results = loop_requests(api)[-1].tool_results
    assert (trial.activated, trial.chose, trial.error) == (False, (SIBLING_ID,), None)
    assert "<!-- activation nonce: " in str(results[0]["content"])
    assert results[1]["is_error"] is True
    assert 'Skill "refund" not found' in str(results[1]["content"])
    assert trial.evidence == (f"the run completed without a successful skill call for '{SKILL_ID}'")


def test_an_api_error_is_an_error_not_a_miss(harness: AgentHarness) -> None:
    with turns(Error(400, message=f"bad request {harness.key}")) as api:
        trial = harness.run(api)
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.startswith("API error 400: bad request [redacted]")
    assert trial.error.endswith("(exit code 1)")
    assert harness.key.encode() not in Path(str(trial.transcript)).read_bytes()


def test_refused_credentials_abort_the_run(harness: AgentHarness) -> None:
    with (
        turns(Error(401)) as api,
        pytest.raises(AuthError, match=r"HTTP 401.*OpenCode run; check ANTHROPIC_API_KEY"),
    ):
        harness.run(api)


def test_a_run_installs_no_package(opencode_cli: Path, tmp_path: Path) -> None:
    """OpenCode installs its plugin package into every config folder it starts with
    unless the folder already names it: with npm's registry pointed at the stand-in, a
    run whose config folder lacks the settled package files asks the registry for it (the
    control), the adapter's run asks it for nothing and leaves `node_modules` empty."""
    asked: dict[bool, set[str]] = {}
    for settled in (False, True):
        config_folder = tmp_path / str(settled) / "home" / ".config" / "opencode"
        dirs = RunDirs(*(tmp_path / str(settled) / part for part in ("work", "home", "tmp")))
        for folder in (dirs.work, dirs.home, dirs.tmp):
            folder.mkdir(parents=True)
        skills = SkillSet(tmp_path / "none", False, CatalogCopy(), ())
        with FakeMessagesAPI(Text("ok")) as api:
            parent = {"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "sk-ant-test",
                      "ANTHROPIC_BASE_URL": api.base_url}  # fmt: skip
            run = Run(AgentSettings(), None, str(opencode_cli), "hi", dirs, skills)
            launch = adapter.ADAPTER.prepare(run, parent)
            if not settled:
                shutil.rmtree(config_folder / "node_modules")
                for name in adapter.settled_package("1"):
                    (config_folder / name).unlink()
            env = {**launch.env, "npm_config_registry": f"{api.base_url}/"}
            done = subprocess.run(launch.argv, input=launch.stdin, text=True, cwd=dirs.work,
                                  env=env, capture_output=True, timeout=120)  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            asked[settled] = {r.path for r in api.requests if not r.is_messages}
        if settled:
            assert list((config_folder / "node_modules").iterdir()) == []
            assert not (dirs.home / ".npm").exists()
    assert any(adapter.PLUGIN_PACKAGE.split("/")[1] in path for path in asked[False])
    assert asked[True] == set()
