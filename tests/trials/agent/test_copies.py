"""Stage B's skill copies hold what git would commit, never what the user's repo ignores.

A real temp git repo whose plugin has a git-ignored `.env` secret, a `node_modules/` and a
build output beside its committed and untracked files: the copies, and the workspace the
agent runs in, hold none of the ignored ones.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio
import pytest

from activation._models import AgentSettings, RunSpec, Target, TrialKey
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.plugin_copy import paired_copies
from activation.trials.agents import REGISTRY
from tests.support.skill_repo import SkillRepos
from tests.trials.agent.test_backend import case, deploy_target, inputs_for

SECRET = "s3cr3t-token-never-copied"
IGNORED = {
    ".env": f"API_TOKEN={SECRET}\n",
    "node_modules/left-pad/index.js": f"// {SECRET}\n",
    "skills/deploy/dist/bundle.js": f"// built with {SECRET}\n",
}
UNTRACKED = {"skills/deploy/scratch.md": "Not committed yet, not ignored.\n"}
COPIED = {
    ".claude-plugin/plugin.json",
    ".gitignore",
    "skills/deploy/SKILL.md",
    "skills/deploy/notes.md",
    "skills/deploy/scratch.md",
}
"""The manifest and the skill's files (committed, or untracked but not ignored), and the
untracked `.gitignore` itself."""


def files_below(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


def with_ignored_files(skill_repo: SkillRepos) -> Target:
    """The acme-tools plugin, committed, then given a `.gitignore` and what it ignores."""
    target = deploy_target(skill_repo)
    plugin = target.plugin_root
    (plugin / ".gitignore").write_text(".env\nnode_modules/\ndist/\n")
    for relative, text in {**IGNORED, **UNTRACKED}.items():
        (plugin / relative).parent.mkdir(parents=True, exist_ok=True)
        (plugin / relative).write_text(text)
    return target


def test_the_copies_hold_the_files_git_would_commit_and_none_it_ignores(
    skill_repo: SkillRepos,
) -> None:
    target = with_ignored_files(skill_repo)
    inputs = inputs_for(target)
    with paired_copies(target, inputs.baseline, inputs.candidate) as copies:
        for copy in copies.sets.values():
            files = files_below(copy)
            assert set(files) == COPIED
            assert not any(SECRET.encode() in data for data in files.values())
            assert (
                files["skills/deploy/scratch.md"] == UNTRACKED["skills/deploy/scratch.md"].encode()
            )


STAND_IN_AGENT = """#!/bin/bash
if [ "$1" = "--version" ]; then echo "fake-agent 1.0.0"; exit 0; fi
find . -type f | sort > {listing}
grep -rl {secret} . "$HOME" "$TMPDIR" > {found}
exit 0
"""
"""Stage B's agent noting every file of its workspace, and any file anywhere it can see
that holds the secret."""


def test_an_ignored_secret_never_reaches_the_agents_workspace(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "systemp"))
    (tmp_path / "systemp").mkdir()
    target = with_ignored_files(skill_repo)
    listing, found = tmp_path / "listing", tmp_path / "found"
    agent = tmp_path / "stand-in-agent"
    agent.write_text(STAND_IN_AGENT.format(listing=listing, found=found, secret=SECRET))
    agent.chmod(0o755)
    settings = AgentSettings(3, 60.0, executables={"fake": str(agent)})
    spec = RunSpec(stage="B", agent=settings, coding_agent="fake")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    backend = AgentBackend(spec, inputs_for(target), tmp_path / "transcripts", env=env)

    async def main() -> None:
        async with backend:
            await backend.run(TrialKey(case(), "candidate", 0))

    anyio.run(main)
    seen = listing.read_text().splitlines()
    assert "./.agents/skills/deploy/SKILL.md" in seen
    assert "./.agents/skills/deploy/scratch.md" in seen
    assert [line for line in seen if "dist" in line or ".env" in line] == []
    assert found.read_text() == ""
