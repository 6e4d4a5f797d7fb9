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
