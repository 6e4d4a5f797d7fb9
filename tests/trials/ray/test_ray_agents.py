"""Every other agent of the registry on a real Ray cluster: the conformance suite's Stage B
scenario (each run in the node's bubblewrap sandbox) and its Stage C scenario (an unchanged
body passes, the skill lifts over no skill), every assertion of them, each run on a worker
node, read as their local runs (Claude Code runs them in test_ray_cluster.py, Stage B
through Ray Client). Each agent gets a cluster of its own, one worker node holding that agent's
stand-in key in its own environment: Claude Code, OpenCode and Copilot CLI share the
variable their keys are in, so one node cannot hold every agent's key."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.trials.agents import known
from tests.support.cli import read_report
from tests.support.ray_cluster import RayCluster
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import SkillRepos
from tests.trials.agents import test_conformance as conformance
from tests.trials.agents.conftest import agent_cli, under_bwrap
from tests.trials.ray.conftest import AGENT

__all__ = ["agent_cli", "under_bwrap"]


@pytest.mark.usefixtures("under_bwrap")
@pytest.mark.parametrize("real_agent", [agent for agent in known() if agent != AGENT])
def test_stage_b_and_c_of_each_agent_on_a_node_read_as_the_local_runs(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    row = REAL_AGENTS[real_agent]
    own = {name: value for name, value in row.variables("", row.key).items() if value}
    with RayCluster(1, own, agent=real_agent) as cluster:
        monkeypatch.setenv("ACTIVATION_EXECUTOR", "ray")
        monkeypatch.setenv("RAY_ADDRESS", cluster.address)
        conformance.test_a_real_run_reads_each_agents_own_loads(
            real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, capsys
        )
        report = read_report(tmp_path / "report.json")
        assert (report["agent"]["executor"], report["agent"]["sandbox"]) == ("ray", "bwrap")
        monkeypatch.setenv("ACTIVATION_SANDBOX", "host")  # as the conformance Stage C runs
        for variable in conformance.PROVIDER_VARIABLES:
            monkeypatch.delenv(variable, raising=False)
        work = tmp_path / "stage-c"
        work.mkdir()
        with row.api(row.at_work.task) as api:
            for variable, value in row.variables(api.base_url, row.key).items():
                monkeypatch.setenv(variable, value)
            behaves = conformance.Behaves(real_agent, agent_cli, api, work)
            conformance.unchanged_body_passes(behaves, monkeypatch, capsys)
        assert read_report(work / "behavior.json")["agent"]["executor"] == "ray"
        assert not [path for path in cluster.logs() if row.key.encode() in path.read_bytes()]
