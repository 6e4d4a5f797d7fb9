"""Stage B on GitHub Copilot CLI: the real pinned CLI (@github/copilot@1.0.102,
tests/support/copilot_cli.py) run by Stage B's own backend in its offline provider mode
against the local Messages API stand-in over real HTTP with SSE; only the model is scripted.
What reaches the model (Stage A's listing), what counts as a load (and the body's nonce at
the model's next request, which the stream cannot show), failures, errors and isolation."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from activation._errors import AuthError
from activation.trials.stage import stage_named
from tests.support.agent_harness import (
    ABOVE,
    LEAKY,
    AgentHarness,
    harness_for,
    snapshot,
)
from tests.support.messages_api import Error, FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import SKILL_ID, SkillRepos

MODEL = "anthropic:claude-sonnet-4.6"
NONCE = "<!-- activation nonce: "
OPEN, CLOSE = "<skill>\n<available_skills>", "</available_skills>\n</skill>"


@pytest.fixture
def harness(
    copilot_cli: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AgentHarness]:
    yield from harness_for("copilot", copilot_cli, skill_repo, tmp_path, monkeypatch)


def turns(*replies: Reply) -> FakeMessagesAPI:
    """A stand-in answering by turn, the last reply repeating."""
    return FakeMessagesAPI(lambda request: replies[min(request.turn, len(replies) - 1)])


def listing(request: FakeRequest) -> str:
    (text,) = (block["text"] for block in request.body["system"] if OPEN in block["text"])
    start = text.index(OPEN)
    return text[start : text.index(CLOSE, start) + len(CLOSE)]


def test_a_skill_call_loads_the_target_and_stops_the_run(harness: AgentHarness) -> None:
    """The stream shows the call and its success, which settles the case: the run stops
    there. The listing the model saw is the one Stage A renders."""
    with turns(ToolUse("skill", {"skill": "refunds"}), Text("Refunded.")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
        first = api.message_requests[0]
    assert (trial.activated, trial.chose, trial.error) == (True, (SKILL_ID,), None), trial.error
    assert trial.evidence.startswith(
        "the agent called skill 'refunds' and Copilot CLI loaded it (line "
    )
    assert NONCE not in json.dumps(first.body)
    shown = stage_named("B").listings(harness.spec(MODEL), harness.inputs)["baseline"]
    assert listing(first) == shown.text
    assert first.body["model"] == "claude-sonnet-4.6"
    assert first.headers["x-api-key"] == harness.key
    events = harness.events(trial)
    starts = [e for e in events if e["type"] == "tool.execution_start"]
    assert [(e["data"]["toolName"], e["data"]["arguments"]) for e in starts] == [
        ("skill", {"skill": "refunds"})
    ]


def test_prose_about_the_skill_is_not_a_load(harness: AgentHarness) -> None:
    with turns(Text("I'll use the refunds skill. Refund issued.")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
    assert (trial.activated, trial.error) == (False, None)
    assert trial.evidence == (f"the run completed without a successful skill call for {SKILL_ID!r}")


def test_another_skill_is_not_the_target_and_its_body_reaches_the_model_next(
    harness: AgentHarness,
) -> None:
    """Loading the sibling does not settle the case, so the run goes on: the body, with its
    copy's nonce, reaches the model in its next request as a message of its own, not in the
    tool's result (which is a fixed text): what the stream cannot show."""
    with turns(ToolUse("skill", {"skill": "charts"}), Text("ok")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
        first, second = api.message_requests
    assert (trial.activated, trial.chose, trial.error) == (False, ("billing:charts",), None)
    assert NONCE not in json.dumps(first.body)
    (result,) = second.tool_results
    assert result["content"] == (
        'Skill "charts" loaded successfully. Follow the instructions in the skill context.'
    )
    assert NONCE not in json.dumps(result)
    later = json.dumps(second.body["messages"])
    assert NONCE in later and "Plot them." in later


def test_a_view_of_another_skills_file_is_not_a_load(harness: AgentHarness) -> None:
    """The model reads the sibling's SKILL.md with `view` (its body comes back in the tool
    result): a read, not Copilot's load action, so nothing fired."""

    def script(request: FakeRequest) -> Reply:
        if request.turn == 0:
            (workdir,) = re.findall(r"Current working directory: (\S+?)(?:\\n|\s)",
                                    json.dumps(request.body))  # fmt: skip
            return ToolUse("view", {"path": f"{workdir}/.agents/skills/charts/SKILL.md"})
        return Text("Plotted.")

    with FakeMessagesAPI(script) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
        (result,) = api.message_requests[-1].tool_results
    assert (trial.activated, trial.chose, trial.error) == (False, (), None)
    assert "Plot them." in json.dumps(result)
    assert trial.evidence == (f"the run completed without a successful skill call for {SKILL_ID!r}")


def test_a_skill_call_for_a_decoy_name_is_no_load(harness: AgentHarness) -> None:
    """A name the run did not install reads as "not loaded", as on every other agent (it
    was an ERROR, which turned REGRESSED cases UNSTABLE)."""
    with turns(ToolUse("skill", {"skill": "refund"}), Text("ok")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
    assert (trial.activated, trial.chose, trial.error) == (False, (), None)
    assert trial.evidence == (f"the run completed without a successful skill call for {SKILL_ID!r}")


def test_a_description_the_cli_rejects_runs_nothing(harness: AgentHarness) -> None:
    """The candidate's description is over 1,024 characters: the CLI would fail the skill
    silently, so the listing says so before any run."""
    with turns(Text("ok")) as api:
        trial = harness.run(api, model=MODEL)
        assert api.message_requests == []
    assert trial.activated is None
    assert trial.error is not None and "does not list" in trial.error


def test_an_api_error_is_an_error_not_a_miss(harness: AgentHarness) -> None:
    with turns(Error(400, message=f"bad request {harness.key}")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
    assert trial.activated is None
    assert trial.error == "API error 400: 400 bad request ****** (exit code 1)"  # masked by the CLI
    assert harness.key.encode() not in Path(str(trial.transcript)).read_bytes()


def test_refused_credentials_abort_the_run(harness: AgentHarness) -> None:
    with turns(Error(401, message="bad key")) as api:
        with pytest.raises(AuthError, match=r"HTTP 401"):
            harness.run(api, variant="baseline", model=MODEL)
        assert 1 <= len(api.message_requests) <= 3


def test_nothing_of_the_users_reaches_the_run_and_nothing_is_written_outside(
    harness: AgentHarness,
) -> None:
    """The planted skills (the user's ~/.copilot/skills and ~/.agents/skills, one in the
    folder above the run's) are not listed; the real home is unchanged; the temp folder
    holds nothing of the run afterwards (`assert_clean`)."""
    home = snapshot(harness.home)
    with turns(Text("ok")) as api:
        trial = harness.run(api, variant="baseline", model=MODEL)
        (first,) = api.message_requests
    assert trial.error is None, trial.error
    sent = listing(first)
    assert LEAKY not in sent and ABOVE not in sent
    assert "<name>refunds</name>" in sent
    assert snapshot(harness.home) == home
    assert str(harness.repo.root) not in json.dumps(first.body)
