"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import CHROMIUM, Launcher, launch
from tests.support.claude_cli import CLAUDE
from tests.support.codex_cli import CODEX
from tests.support.opencode_cli import OPENCODE
from tests.support.skill_repo import SkillRepos


@pytest.fixture(scope="session")
def claude() -> Path:
    """The pinned, real Claude Code CLI: skipped outside CI when it cannot be had, failed in CI."""
    return CLAUDE.required()


@pytest.fixture(scope="session")
def opencode_cli() -> Path:
    """The pinned, real OpenCode CLI: skipped outside CI when it cannot be had, failed in CI."""
    return OPENCODE.required()


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    """The pinned, real Codex CLI: skipped outside CI when it cannot be had, failed in CI."""
    return CODEX.required()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty response cache, never the user's."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def chromium() -> Launcher:
    """Starts headless Chromium from the system packages (`with chromium() as browser:`):
    skipped outside CI when it is missing, failed in CI (`.ci/run` installs it).

    A launcher rather than a browser: Playwright's sync API holds an event loop while it
    runs, so a test computes its reports (anyio) first and opens the browser after."""
    if not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must open the HTML report in a real browser: {problem}")
        pytest.skip(f"no browser to open the HTML report in: {problem}")
    return launch


@pytest.fixture
def skill_repo(tmp_path: Path) -> Iterator[SkillRepos]:
    """Builds real git skill repos in the test's temp dir: `skill_repo(description, ...)`."""
    repos = SkillRepos(tmp_path)
    yield repos
    repos.close()
