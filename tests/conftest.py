"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.claude_cli import CLAUDE_PACKAGE, locate_claude
from tests.support.skill_repo import SkillRepos


@pytest.fixture(scope="session")
def claude() -> Path:
    """The pinned, real Claude Code CLI: skipped outside CI when it cannot be had, failed in CI."""
    path, problem = locate_claude()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the real Claude Code CLI ({CLAUDE_PACKAGE}): {problem}")
        pytest.skip(f"the real Claude Code CLI ({CLAUDE_PACKAGE}) is not available: {problem}")
    return path


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty response cache, never the user's."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def skill_repo(tmp_path: Path) -> Iterator[SkillRepos]:
    """Builds real git skill repos in the test's temp dir: `skill_repo(description, ...)`."""
    repos = SkillRepos(tmp_path)
    yield repos
    repos.close()
