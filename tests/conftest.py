"""Fixtures shared by the test modules, and the markers their use gives a test.

A test is marked by what it uses, never by hand: every fixture in MARKS marks each test that
uses it (directly or through another fixture), so `pytest -m "not slow"` is the fast tier
while you work and `-m real_cli` the end-to-end tests of the real agent CLIs.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from activation.trials.agent import canary, sandbox
from tests.support.browser import CHROMIUM, Launcher, launch
from tests.support.claude_cli import CLAUDE
from tests.support.cli import Spawn, spawn
from tests.support.codex_cli import CODEX
from tests.support.copilot_cli import COPILOT
from tests.support.gemini_cli import GEMINI
from tests.support.needs import unavailable
from tests.support.npm_cli import PinnedCli, install_notice
from tests.support.opencode_cli import OPENCODE, required_ripgrep
from tests.support.skill_repo import RepoTemplates, SkillRepos
from tests.support.tiers import FAST_TIER, load_fast_profile
from tests.support.wheel import build_wheel

REAL_CLIS: dict[str, PinnedCli] = {
    "claude": CLAUDE,
    "opencode_cli": OPENCODE,
    "codex_cli": CODEX,
    "copilot_cli": COPILOT,
    "gemini_cli": GEMINI,
}
"""The fixture that gives each pinned agent CLI; `agent_cli` (tests/trials/agents/conftest.py)
gives each of them in turn."""
MARKS: dict[str, tuple[str, ...]] = {
    **{fixture: ("slow", "real_cli") for fixture in (*REAL_CLIS, "agent_cli")},
    "chromium": ("slow",),
    "docker_image": ("slow",),
    "wheel": ("slow",),
    "fresh_python": ("slow",),
    "venv_bin": ("slow",),
    "spawn_activation": ("slow",),
    "search_suite": ("slow",),
    "search_with_sibling": ("slow",),
    "ray_cluster": ("slow",),
}
"""The markers each fixture gives the tests that use it: a real CLI, the browser, a wheel
build or a fresh interpreter each costs seconds, and so does a whole `suggest` search
(tests/commands/test_suggest.py: thousands of requests over real HTTP) and a Ray cluster
(tests/trials/ray: a head and two worker nodes)."""


def pytest_configure(config: pytest.Config) -> None:
    """The fast tier tries each Hypothesis property on fewer examples (tests/support/tiers.py),
    unless `--hypothesis-profile` names a profile."""
    if config.option.markexpr == FAST_TIER and not config.getoption("hypothesis_profile"):
        load_fast_profile()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by the fixtures it uses, before `-m` selects."""
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            for marker in MARKS.get(fixture, ()):
                item.add_marker(marker)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Say which pinned CLIs this run is about to install, before the first install."""
    used = {fixture for item in session.items for fixture in getattr(item, "fixturenames", ())}
    notice = install_notice(cli for fixture, cli in REAL_CLIS.items() if fixture in used)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if notice is not None and reporter is not None:
        reporter.write_line(notice)


@pytest.fixture(scope="session")
def claude() -> Path:
    """The pinned, real Claude Code CLI: skipped outside CI when it cannot be had, failed in CI."""
    return CLAUDE.required()


@pytest.fixture(scope="session")
def ripgrep() -> Path:
    """ripgrep (`rg`), which OpenCode needs on PATH: skipped outside CI when it is missing,
    failed in CI (`.ci/run` installs it)."""
    return required_ripgrep()


@pytest.fixture(scope="session")
def opencode_cli(ripgrep: Path) -> Path:
    """The pinned, real OpenCode CLI, with the ripgrep it needs: skipped outside CI when
    either cannot be had, failed in CI."""
    return OPENCODE.required()


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    """The pinned, real Codex CLI: skipped outside CI when it cannot be had, failed in CI."""
    return CODEX.required()


@pytest.fixture(scope="session")
def copilot_cli() -> Path:
    """The pinned GitHub Copilot CLI (installed on first use)."""
    return COPILOT.required()


@pytest.fixture(scope="session")
def gemini_cli() -> Path:
    """The pinned, real Gemini CLI: skipped outside CI when it cannot be had, failed in CI."""
    return GEMINI.required()


@pytest.fixture(scope="session")
def caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder every test's cache is a subfolder of, numbered in the order tests run."""
    root = tmp_path_factory.mktemp("caches")
    return (root / str(number) for number in itertools.count())


@pytest.fixture(autouse=True)
def cache_dir(caches: Iterator[Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty response cache, never the user's. The folder is made
    by the first run that caches: most tests never do, and each folder made is one more to
    delete when pytest clears an old run's temp files."""
    folder = next(caches)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def host_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Agent runs happen on the host unless a test passes `--sandbox` (which wins over the
    variable) or sets the variable again: the suite's fake agents are scripts of this venv,
    which a bubblewrap sandbox does not bind; the conformance suite's Stage B runs
    (`under_bwrap`) and tests/trials/sandbox run the real CLIs in one. Stage C's note that a
    run on the host is contained only by the agent's own settings, and the note that no
    canary runs there, count as said (each is printed once a process: tests/trials/sandbox
    and tests/trials/agent/test_canary.py hold them)."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "host")
    monkeypatch.setattr(sandbox, "_said", {sandbox.HOST_NOTE, canary.HOST_UNCHECKED})


@pytest.fixture(scope="session")
def empty_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("empty")


@pytest.fixture(autouse=True)
def lean_environment(
    empty_folder: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """What the tests' processes need none of, and would pay for hundreds of times a run:
    - the system's CA bundle: the SDKs' HTTP clients trust an empty CA folder
      (SSL_CERT_DIR), as every test speaks plain HTTP to 127.0.0.1, where loading the
      bundle costs each client 50 ms;
    - git's sample hooks: `git init` copies an empty template (GIT_TEMPLATE_DIR), not the
      eighteen files of the default one, into each of the few hundred repos a run builds.
    A real agent CLI gets the machine's environment, as it would on a user's."""
    if request.node.get_closest_marker("real_cli") is not None:
        return
    monkeypatch.setenv("SSL_CERT_DIR", str(empty_folder))
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(empty_folder))


@pytest.fixture(autouse=True)
def no_terminal_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's commands write to a pipe of no known width (LOG_WIDTH), whatever the
    runner's terminal: pytest imports readline, GNU readline exports COLUMNS=80 and LINES=24
    into the process's environment, and a process started from it (an xdist worker, a
    spawned `activation`) inherits them and would wrap its output at 80 columns. A test
    that means a width sets COLUMNS itself."""
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def chromium() -> Launcher:
    """Starts headless Chromium from the system packages (`with chromium() as browser:`):
    skipped outside CI when it is missing, failed in CI (`.ci/run` installs it).

    A launcher rather than a browser: Playwright's sync API holds an event loop while it
    runs, so a test computes its reports (anyio) first and opens the browser after."""
    if not CHROMIUM.exists():
        unavailable(
            "a browser to open the HTML report in",
            f"{CHROMIUM} is missing (apt-get install chromium)",
        )
    return launch


@pytest.fixture
def fresh_python() -> str:
    """This venv's interpreter, for a test that runs code in a fresh process of its own."""
    return sys.executable


@pytest.fixture
def venv_bin() -> Path:
    """This venv's programs folder, for a test that runs its `activation` as a program."""
    return Path(sys.executable).parent


@pytest.fixture
def spawn_activation() -> Spawn:
    """`python -m activation` in a process of its own (tests/support/cli.py's `spawn`)."""
    return spawn


@pytest.fixture
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built from a copy of the sources."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def repo_templates(tmp_path_factory: pytest.TempPathFactory) -> RepoTemplates:
    """The session's built repos, one per shape, which `skill_repo` copies."""
    return RepoTemplates(tmp_path_factory.mktemp("repo-templates"))


@pytest.fixture
def skill_repo(tmp_path: Path, repo_templates: RepoTemplates) -> Iterator[SkillRepos]:
    """Builds real git skill repos in the test's temp dir: `skill_repo(description, ...)`."""
    repos = SkillRepos(tmp_path, repo_templates)
    yield repos
    repos.close()
