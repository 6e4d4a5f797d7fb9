"""Stage B on Gemini CLI: the real pinned CLI (@google/gemini-cli@0.61.0,
tests/support/gemini_cli.py) run by Stage B's own backend against the local Gemini API
stand-in over real HTTP with SSE; only the model is scripted. What reaches the model (the
listing Stage A renders), a load (its nonce at the model), no load, a read that is not a
load, a load the CLI refuses, API errors, a refused key, and isolation."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from itertools import chain, repeat
from pathlib import Path

import pytest

from activation._config import CLI_API_ATTEMPTS
from activation._errors import AuthError
from activation._models import ErrorClass
from activation.trials.agents.gemini import adapter
from activation.trials.agents.gemini.listing import builtin_root
from activation.trials.stage import stage_named
from tests.support.agent_harness import (
    ABOVE,
    CANDIDATE,
    LEAKY,
    SIBLING_ID,
    AgentHarness,
    harness_for,
)
from tests.support.gemini_api import Call, Error, FakeGeminiAPI, GeminiRequest, Reply, Text
from tests.support.skill_repo import SKILL_ID, SkillRepos

MODEL = "google:gemini-3.1-pro-preview"
NONCE = "<!-- activation nonce: "


@pytest.fixture
def harness(
    gemini_cli: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AgentHarness]:
    yield from harness_for("gemini", gemini_cli, skill_repo, tmp_path, monkeypatch)


def turns(*replies: Reply) -> FakeGeminiAPI:
    """A stand-in answering by turn (model turns so far), the last reply repeating."""
    return FakeGeminiAPI(lambda request: replies[min(request.turn, len(replies) - 1)])


def listing_of(request: GeminiRequest) -> str:
    system = request.system
    start = system.index("# Available Agent Skills")
    return system[start : system.index("</available_skills>", start) + len("</available_skills>")]


def test_the_listing_reaches_the_model_as_stage_a_renders_it_and_nothing_of_the_users(
    harness: AgentHarness,
) -> None:
    """The whole description, unescaped, in the listing Stage A renders for Gemini CLI, but
    for where the run's workspace and the CLI's built-ins are; the run's own settings:
    activate_skill offered, no web, shell or write tool, the pinned model, the key. Control
    first: run by hand with the planted HOME, Gemini CLI lists the planted skill. Stage B's
    run lists neither planted skill, and writes nothing outside its folders."""
    project = harness.systemp / "by-hand"
    project.mkdir()
    with turns(Text("ok")) as api:
        env = {**harness.parent_env(api), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
        argv = [str(harness.executable), "-p", "hi", "-m", "gemini-3.1-pro-preview",
                "--output-format", "stream-json"]  # fmt: skip
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, timeout=90,
                              stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        control = listing_of(api.requests[0])
    shutil.rmtree(project)
    assert f"<name>{LEAKY}</name>" in control
    home_before = sorted(str(p) for p in harness.home.rglob("*"))
    with turns(Text("ok")) as api:
        trial = harness.run(api, model=MODEL)
        (first,) = api.requests
    assert trial.error is None, trial.error
    sent = listing_of(first)
    assert LEAKY not in sent and ABOVE not in sent
    assert str(harness.repo.root) not in json.dumps(first.body)
    assert sorted(str(p) for p in harness.home.rglob("*")) == home_before
    workspace = sent.split("<location>")[3].split("/.agents/skills/")[0]
    assert workspace.endswith("/work")
    shown = stage_named("B").listings(harness.spec(MODEL), harness.inputs)["candidate"]
    expected = shown.text.replace(str(harness.repo.root), workspace)
    expected = expected.replace(builtin_root(), builtin_root(str(harness.executable)))
    assert sent == expected
    assert f"<description>{CANDIDATE}</description>" in sent
    assert first.model == "gemini-3.1-pro-preview"
    assert first.prompt == "Refund order 1234, please"
    assert first.headers["x-goog-api-key"] == harness.key
    offered = ["update_topic", "list_directory", "read_file", "grep_search", "glob",
               "enter_plan_mode", "invoke_agent", "activate_skill"]  # fmt: skip
    assert first.tool_names == offered


def test_a_successful_activate_skill_of_the_target_activates(harness: AgentHarness) -> None:
    """The run stops at the load (the stream settles it); the body, nonce included, went
    to the model in the next request, when the run lets it come."""
    with turns(Call("activate_skill", {"name": "refunds"}), Text("Refunded.")) as api:
        trial = harness.run(api, model=MODEL)
    assert (trial.activated, trial.chose, trial.error) == (True, (SKILL_ID,), None), trial.error
    assert trial.evidence.startswith(
        "the agent called activate_skill 'refunds' and the CLI activated the target from its "
        "own folder (line 4)"
    )
    events = harness.events(trial)
    assert [event["type"] for event in events[:4]] == ["init", "message", "tool_use",
                                                      "tool_result"]  # fmt: skip
    assert events[3]["status"] == "success"


def test_an_activated_body_reaches_the_model_with_its_nonce(harness: AgentHarness) -> None:
    """The stream carries no body: the CLI sends it to the model in the next request. A
    sibling's load does not settle the case, so that request comes: it holds the sibling
    copy's own SKILL.md, nonce included; then the target's load settles it."""
    replies = (Call("activate_skill", {"name": "charts"}),
               Call("activate_skill", {"name": "refunds"}), Text("Refunded."))  # fmt: skip
    with turns(*replies) as api:
        trial = harness.run(api, model=MODEL)
        (response,) = api.requests[1].function_responses
    assert (trial.activated, trial.chose, trial.error) == (True, (SIBLING_ID, SKILL_ID), None)
    assert response["name"] == "activate_skill"
    output = response["response"]["output"]
    assert output.startswith('<activated_skill name="charts">') and NONCE in output


def test_prose_and_a_read_of_the_skill_file_are_not_a_load(harness: AgentHarness) -> None:
    replies = (Call("read_file", {"file_path": ".agents/skills/refunds/SKILL.md"}),
               Text("I'll use the refunds skill. Refund issued."))  # fmt: skip
    with turns(*replies) as api:
        trial = harness.run(api, model=MODEL)
        (response,) = api.requests[-1].function_responses
    assert (trial.activated, trial.chose, trial.error) == (False, (), None)
    assert NONCE in response["response"]["output"]  # the model did read the body
    assert trial.evidence == (
        f"the run completed without a successful activate_skill of '{SKILL_ID}'"
    )
    assert trial.usage.input_tokens == 40 and trial.usage.output_tokens == 20


def test_another_skills_load_is_not_the_targets(harness: AgentHarness) -> None:
    with turns(Call("activate_skill", {"name": "charts"}), Text("Plotted.")) as api:
        trial = harness.run(api, model=MODEL)
    assert (trial.activated, trial.chose, trial.error) == (False, (SIBLING_ID,), None)


def test_a_failed_load_and_a_read_of_another_skill_are_not_a_load(harness: AgentHarness) -> None:
    """A name the CLI does not list fails its enum (`invalid_tool_params`): the model chose
    no listed skill, so the trial is a miss, not an error; a `read_file` of the sibling's
    SKILL.md is a read, not its load."""
    replies = (Call("activate_skill", {"name": "refund"}),
               Call("read_file", {"file_path": ".agents/skills/charts/SKILL.md"}),
               Text("Done."))  # fmt: skip
    with turns(*replies) as api:
        trial = harness.run(api, model=MODEL)
        failed, read = (request.function_responses[-1] for request in api.requests[1:3])
    assert (trial.activated, trial.chose, trial.error) == (False, (), None)
    assert "must be equal to one of the allowed values" in json.dumps(failed)
    assert NONCE in read["response"]["output"]
    assert trial.evidence == (
        f"the run completed without a successful activate_skill of '{SKILL_ID}'"
    )


def test_a_load_the_cli_refuses_is_an_error_with_its_reason(
    harness: AgentHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A policy that denies activate_skill (here the run's own rule turned to deny): the CLI
    removes the tool, the model's call fails `tool_not_registered`, and the run, which
    "succeeds", is an ERROR that says why, never a miss."""
    deny = adapter.policy().replace('decision = "allow"', 'decision = "deny"')
    monkeypatch.setattr(adapter, "policy", lambda *, work=False, shell=False, servers=(): deny)
    with turns(Call("activate_skill", {"name": "refunds"}), Text("Done.")) as api:
        trial = harness.run(api, model=MODEL)
        (first, *_) = api.requests
    assert "activate_skill" not in first.tool_names
    assert trial.activated is None
    assert trial.error is not None and trial.error.startswith(
        "Gemini CLI refused the agent's activate_skill 'refunds' (tool_not_registered: Tool "
        '"activate_skill" not found.'
    )


def test_an_api_error_is_an_error_not_a_miss(harness: AgentHarness) -> None:
    with turns(Error(400, f"bad request {harness.key}", "BAD_REQUEST")) as api:
        trial = harness.run(api, model=MODEL)
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.startswith('the run failed: [API Error: {"error":{"code":400,')
    assert "bad request [redacted]" in trial.error
    assert harness.key.encode() not in Path(str(trial.transcript)).read_bytes()


def test_a_failing_api_is_tried_as_often_as_the_tool_allows_and_is_the_models_error(
    harness: AgentHarness,
) -> None:
    """Left to itself the CLI tries a failing API ten times over minutes; the run's settings
    (`general.maxAttempts`) hold it to CLI_API_ATTEMPTS, and the trial is the model's error.
    Its retry of a model request reads no Retry-After header and backs off from 5 s, unless
    a model-capacity answer's RetryInfo sets the delay: the first answer says "capacity
    exhausted, retry in 1 ms", every later one "overloaded", so the retries take
    milliseconds instead of a minute (@google/gemini-cli 0.61.0, retryWithBackoff)."""
    capacity = Error(503, "model capacity exhausted", "MODEL_CAPACITY_EXHAUSTED", "0.001s")
    answers = chain([capacity], repeat(Error(503, "overloaded", "UNAVAILABLE")))
    with FakeGeminiAPI(lambda _request: next(answers)) as api:
        trial = harness.run(api, model=MODEL, timeout=240)
        assert len(api.requests) == CLI_API_ATTEMPTS == 5
    assert trial.activated is None
    assert trial.error_class is ErrorClass.MODEL


def test_a_refused_key_aborts_the_run(harness: AgentHarness) -> None:
    with FakeGeminiAPI(key="another-key") as api:
        with pytest.raises(AuthError, match=r"HTTP 400.*Gemini CLI run; check GEMINI_API_KEY"):
            harness.run(api, model=MODEL)
        assert len(api.requests) == 1


def test_a_run_needs_a_pinned_model(harness: AgentHarness) -> None:
    with FakeGeminiAPI() as api, pytest.raises(Exception, match="needs a pinned model"):
        harness.run(api)
