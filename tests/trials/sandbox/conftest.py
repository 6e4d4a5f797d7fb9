"""The agents whose real pinned CLIs the sandbox tests run in a sandbox (`agent_cli` marks
a test slow and real_cli, as in the conformance suite; its Stage B runs are bubblewrap's):
each agent of the registry, as the conformance suite takes them."""

from __future__ import annotations

from tests.trials.agents.conftest import agent_cli, real_agent

__all__ = ["agent_cli", "real_agent"]
