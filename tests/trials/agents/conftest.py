"""The agent under test for the conformance suite's end-to-end tests: each agent of the
registry in turn, with its pinned CLI (`agent_cli`, which marks a test slow and real_cli)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.trials.agents import known
from tests.support.real_agents import REAL_AGENTS


@pytest.fixture(params=known())
def real_agent(request: pytest.FixtureRequest) -> str:
    agent: str = request.param
    return agent


@pytest.fixture
def agent_cli(real_agent: str, request: pytest.FixtureRequest) -> Path:
    cli: Path = request.getfixturevalue(REAL_AGENTS[real_agent].fixture)
    return cli


@pytest.fixture
def under_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's agent runs happen under bubblewrap (CI has it), its process's and those it
    starts: the conformance suite's Stage B runs are the sandbox's coverage, not a second
    copy of them. A test that calls such a test's function with another sandbox in
    ACTIVATION_SANDBOX (tests/trials/sandbox/) gets that one."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "bwrap")
