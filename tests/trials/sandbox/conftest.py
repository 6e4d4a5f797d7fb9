"""The agents whose real pinned CLIs the sandbox tests run in a sandbox (`agent_cli` marks
a test slow and real_cli, as in the conformance suite; its Stage B runs are bubblewrap's)."""

from __future__ import annotations

import pytest

from tests.trials.agents.conftest import agent_cli

__all__ = ["agent_cli"]

SANDBOXED = ("claude-code", "codex", "copilot", "gemini", "opencode")
"""Every agent: a sandbox test that runs the conformance suite's scenarios takes each."""


@pytest.fixture(params=SANDBOXED)
def real_agent(request: pytest.FixtureRequest) -> str:
    agent: str = request.param
    return agent
