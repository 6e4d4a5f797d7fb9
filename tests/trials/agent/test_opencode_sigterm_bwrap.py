"""SIGTERM during `--real` through the real pinned OpenCode, every run under bubblewrap:
OpenCode starts a server child of its own, and neither it, the CLI, bwrap nor the relay is
left behind, nor a run folder, a copy or an egress socket folder of that process; the
partial report says where the runs happened (the sandbox suite's SIGTERM scenario, which it
runs for the other agents)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.trials.agent.sandbox import bwrap_problem
from tests.support.cli import Spawn
from tests.support.needs import unavailable
from tests.support.skill_repo import SkillRepos
from tests.trials.sandbox import test_real_bwrap as sandboxed


def test_sigterm_under_bwrap_leaves_no_opencode_server_sandbox_or_socket_behind(
    opencode_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    spawn_activation: Spawn,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem = bwrap_problem()
    if problem is not None:
        unavailable("bubblewrap", problem)
    sandboxed.test_sigterm_leaves_no_sandbox_process_socket_or_folder_behind(
        opencode_cli, "opencode", skill_repo, tmp_path, spawn_activation, monkeypatch
    )
