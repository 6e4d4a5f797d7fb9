"""Agent runs under bubblewrap, through the real pinned CLIs at their stand-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import read_report
from tests.support.skill_repo import SkillRepos
from tests.trials.agents import test_conformance as conformance


def test_stage_b_in_bwrap_reads_the_same_as_on_the_host(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it, with each run under
    bubblewrap: the same statuses, loads and errors; the report says where runs happened."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "bwrap")
    conformance.test_a_real_run_reads_each_agents_own_loads(
        real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, capsys
    )
    assert read_report(tmp_path / "report.json")["agent"]["sandbox"] == "bwrap"
