"""The tool's own budgets, end to end through the real pinned Claude Code under bubblewrap at
the local stand-in: a scripted model that never stops answering with tool calls runs into
the request budget the egress proxy enforces, and one that never answers runs into the time
budget; each trial is an error of class `budget`, never a vote. The budget's size is the
test's (two requests, so the loop meets it at once); counting and refusing are the proxy's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from activation._models import Case, ErrorClass, Trial, TrialKey
from activation.trials.agent import backend as agent_backend
from activation.trials.agent.sandbox import Bwrap, bwrap_problem
from tests.support.agent_harness import AgentHarness, harness_for
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.needs import unavailable
from tests.support.skill_repo import SkillRepos

BUDGET = 2


@pytest.fixture
def harness(
    claude: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AgentHarness]:
    problem = bwrap_problem()
    if problem is not None:
        unavailable("bubblewrap", problem)
    monkeypatch.setattr(agent_backend, "request_budget", lambda _turns: BUDGET)
    yield from harness_for("claude-code", claude, skill_repo, tmp_path, monkeypatch)


def in_bwrap(harness: AgentHarness, api: FakeMessagesAPI, timeout: float = 60.0) -> Trial:
    """One trial of the harness's case under bubblewrap, after the cell's canary (no model call)."""
    backend = harness.backend(api, timeout=timeout)
    backend.sandbox = Bwrap()
    case = Case("refund", "Refund it", True, "the refunds skill covers refunds")

    async def one() -> Trial:
        async with backend:
            return await backend.run(TrialKey(case, "candidate", 0))

    trial = anyio.run(one)
    harness.assert_clean()
    return trial


def loops(request: FakeRequest) -> Reply:
    """Every turn of the agent's loop asks for one more look around; side calls get text."""
    if request.is_main_loop:
        return ToolUse("Glob", {"pattern": f"**/*{request.turn}"})
    return Text("ok")


def test_an_agent_that_loops_past_the_request_budget_is_a_budget_error(
    harness: AgentHarness,
) -> None:
    with FakeMessagesAPI(loops) as api:
        trial = in_bwrap(harness, api)
        answered = len(api.message_requests)
    assert answered == BUDGET
    assert trial.activated is None
    assert trial.error_class is ErrorClass.BUDGET
    assert str(trial.error).startswith(
        f"request budget: the agent sent more than {BUDGET} requests to the API in one trial ("
    )


def test_an_agent_that_gets_no_answer_in_time_is_a_budget_error(harness: AgentHarness) -> None:
    with FakeMessagesAPI(Text("too late"), latency=30) as api:
        trial = in_bwrap(harness, api, timeout=4)
    assert trial.activated is None
    assert trial.error_class is ErrorClass.BUDGET
    assert str(trial.error).startswith("time budget: timed out after 4s")
