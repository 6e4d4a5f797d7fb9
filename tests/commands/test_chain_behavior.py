"""A case whose graders read the agent's shell commands (`command_ran`) on the host, where
Claude Code at work has no shell: refused in one line naming the sandboxes. The attribution
chain through every agent's real CLI (listed but not loaded, loaded but not followed,
followed) is the conformance suite's (tests/trials/agents/test_conformance.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from activation.commands.main import main
from tests.support.skill_repo import commit_all

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior" / "trajectory"


def test_a_case_reading_shell_commands_is_refused_on_the_host_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    commit_all(repo, "cards and its evals").close()
    monkeypatch.chdir(repo)
    code = main(["behavior", "--sandbox", "host", "--baseline", "git:HEAD"])
    assert code == 2
    assert capsys.readouterr().err == (
        "activation behavior: error: case run_the_checker: its command_ran grader reads the "
        "agent's shell commands, and Claude Code at work on the host has no shell: pass "
        "--sandbox bwrap or --sandbox docker\n"
    )
