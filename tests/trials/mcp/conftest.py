"""The agents whose real pinned CLIs the MCP tests run (`agent_cli` marks a test slow and
real_cli), under bubblewrap: each agent of the registry, as the conformance suite takes
them."""

from __future__ import annotations

from tests.trials.agents.conftest import agent_cli, real_agent, under_bwrap

__all__ = ["agent_cli", "real_agent", "under_bwrap"]
