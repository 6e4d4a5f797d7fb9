"""One Ray cluster for the session's Ray tests: a head (serving Ray Client too) and two
worker nodes of one CPU and one Claude Code run each, whose processes hold the stand-in's
key in their own environment (the orchestrator sends none)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.ray_cluster import RayCluster
from tests.support.real_agents import REAL_AGENTS

AGENT = "claude-code"


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[RayCluster]:
    row = REAL_AGENTS[AGENT]
    own = {name: value for name, value in row.variables("", row.key).items() if value}
    with RayCluster(2, own, agent=AGENT, client=True) as cluster:
        yield cluster
