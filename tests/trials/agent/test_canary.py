"""A canary per cell proves the sandbox's boundary before any trial: under real bubblewrap a
write in the workspace lands while a write outside, a read of the user's home and repository
and a connection to another host do not; a sandbox that lets them through (here: one that
confines nothing) fails the canary with each escape named, and then every trial of the cell
is that infrastructure error, never run, never retried, never a vote. On the host and with
`--no-canary` no canary runs, and the run says what that leaves unchecked. (The agent's own
tool, the canary's last step: test_canary_agent.py.)"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from activation._models import ErrorClass, Trial, TrialKey
from activation.trials.agent import canary, sandbox
from activation.trials.agent.adapter import RunDirs
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.canary import OUTSIDE, Probe, Seen, problems, run_probe
from activation.trials.agent.sandbox import Bwrap, Confined, Unconfined, View, bwrap_problem
from activation.trials.backend import Round, Silent
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots
from tests.support.needs import unavailable
from tests.support.skill_repo import SkillRepos
from tests.trials.agent.test_backend import case
from tests.trials.agent.test_error_sources import fake_agent_in

PROBE = Probe(
    "n0nce",
    Path("/run/work/canary.txt"),
    (Path("/run/canary-outside.txt"),),
    (Path("/home/me/.profile"), Path("/home/me/repo/SKILL.md")),
)


def test_a_clean_probe_has_no_problem() -> None:
    assert problems(PROBE, Seen(0, "", "n0nce", (), 0)) == ()


def test_each_escape_is_named_in_the_order_a_person_fixes_them() -> None:
    seen = Seen(0, "read /home/me/.profile\nread /home/me/repo/SKILL.md\nconnected\n", None,
                (Path("/run/canary-outside.txt"),), 1)  # fmt: skip
    assert problems(PROBE, seen) == (
        "a write in the workspace did not land (canary.txt)",
        "a write outside the workspace landed: /run/canary-outside.txt",
        "your /home/me/.profile is readable in the sandbox",
        "your /home/me/repo/SKILL.md is readable in the sandbox",
        "a connection to a host other than the model API got through",
    )


def test_a_connection_the_host_saw_fails_the_canary_whatever_the_probe_said() -> None:
    assert problems(PROBE, Seen(0, "", "n0nce", (), 1)) == (
        "a connection to a host other than the model API got through",
    )


def test_a_probe_that_did_not_run_says_its_exit_code_and_output() -> None:
    assert problems(PROBE, Seen(1, "bwrap: Can't mkdir /x:\n Read-only", None, (), 0)) == (
        "the probe did not run in the sandbox (exit code 1): bwrap: Can't mkdir /x: Read-only",
    )


@dataclass
class Leaky:
    """A sandbox by name that confines nothing: what a broken one would do."""

    name: str = "bwrap"

    @asynccontextmanager
    async def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AsyncIterator[Confined]:
        yield Unconfined()


def probe_in(box: sandbox.Sandbox, tmp_path: Path) -> tuple[str, ...]:
    """The canary in `box`, with a file of the user's home and one of a repository beside
    the run."""
    home, repo, copies = tmp_path / "home", tmp_path / "home" / "repo", tmp_path / "copies"
    for folder in (repo, copies):
        folder.mkdir(parents=True)
    (home / ".profile").write_text("PLANTED-HOME\n")
    (repo / "SKILL.md").write_text("PLANTED-REPO\n")
    base = tmp_path / "run"
    dirs = RunDirs(base / "work", base / "home", base / "tmp")
    view = View(dirs.work, (dirs.work, dirs.home, dirs.tmp), (copies,))
    env = {"PATH": os.environ["PATH"], "HOME": str(dirs.home)}
    private = (home / ".profile", repo / "SKILL.md")
    found = anyio.run(run_probe, box, view, {}, base, private, env)
    assert not (base / OUTSIDE).exists()  # an escaped write is removed after it was seen
    assert not (copies / OUTSIDE).exists()
    return found


def test_under_real_bubblewrap_the_canary_passes(tmp_path: Path) -> None:
    problem = bwrap_problem()
    if problem is not None:
        unavailable("bubblewrap", problem)
    assert probe_in(Bwrap(), tmp_path) == ()


def test_a_sandbox_that_confines_nothing_fails_the_canary_with_every_escape(
    tmp_path: Path,
) -> None:
    assert probe_in(Leaky(), tmp_path) == (
        f"a write outside the workspace landed: {tmp_path / 'run' / OUTSIDE}",
        f"a write outside the workspace landed: {tmp_path / 'copies' / OUTSIDE}",
        f"your {tmp_path / 'home' / '.profile'} is readable in the sandbox",
        f"your {tmp_path / 'home' / 'repo' / 'SKILL.md'} is readable in the sandbox",
        "a connection to a host other than the model API got through",
    )


# --- the cell ------------------------------------------------------------------------------


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    fresh: set[str] = set()
    monkeypatch.setattr(sandbox, "_said", fresh)
    return fresh


def cell(
    tmp_path: Path,
    skill_repo: SkillRepos,
    monkeypatch: pytest.MonkeyPatch,
    box: sandbox.Sandbox,
    canary_on: bool = True,
) -> tuple[AgentBackend, list[Trial], RunSlots]:
    """The fake agent's backend in `box`, entered, and one round of three trials."""
    backend = fake_agent_in(box, tmp_path, skill_repo, monkeypatch, canary_on)
    slots = RunSlots(Limiter(2))
    keys = tuple(TrialKey(case("deploy the app"), "candidate", index) for index in range(3))
    delivered: list[Trial] = []

    async def main() -> None:
        async with backend:
            await backend.run_round(Round(keys, delivered.append, slots, Silent()))

    anyio.run(main)
    return backend, delivered, slots


def test_a_failed_canary_makes_every_trial_of_the_cell_an_infrastructure_error(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, said: set[str]
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".profile").write_text("PLANTED\n")
    backend, trials, slots = cell(tmp_path, skill_repo, monkeypatch, Leaky())
    assert backend.canary_failure is not None
    assert backend.canary_failure.startswith(
        "the bwrap canary failed: a write outside the workspace landed: "
    )
    skill = backend.inputs.target.repo / backend.inputs.target.skill_path
    for private in (tmp_path / "home" / ".profile", skill):
        assert f"your {private} is readable in the sandbox" in backend.canary_failure
    assert [(t.index, t.activated, t.error_class) for t in trials] == [
        (index, None, ErrorClass.INFRASTRUCTURE) for index in range(3)
    ]
    assert {t.error for t in trials} == {backend.canary_failure}
    assert slots.retried == 0
    assert not (tmp_path / "t" / "deploy-prod").exists()  # no trial ran: no transcript
    assert said == set()


def test_an_agent_that_cannot_run_in_the_sandbox_fails_the_canary_before_any_trial(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, said: set[str]
) -> None:
    """Under real bubblewrap the boundary's probe passes, then the agent's own run does not
    start: the fake agent's Python (under this user's folders) is out of its sight there.
    The canary says so, with the CLI's stderr, and no trial is spent on it."""
    problem = bwrap_problem()
    if problem is not None:
        unavailable("bubblewrap", problem)
    backend, trials, slots = cell(tmp_path, skill_repo, monkeypatch, Bwrap())
    failure = backend.canary_failure
    assert failure is not None
    assert failure.startswith(
        "the bwrap canary failed: the agent did not read the canary's file with its own tool: "
        "its run failed: no events: not a fake agent stream; stderr: "
    )
    assert failure.endswith(f"exec: {sys.executable}: not found")
    assert [(t.index, t.error, t.error_class) for t in trials] == [
        (index, failure, ErrorClass.INFRASTRUCTURE) for index in range(3)
    ]
    assert slots.retried == 0
    assert not (tmp_path / "t" / "deploy-prod").exists()  # no trial ran: no transcript
    assert said == set()


def test_no_canary_and_the_host_run_none_and_say_so(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, said: set[str]
) -> None:
    backend, trials, _ = cell(tmp_path, skill_repo, monkeypatch, Leaky(), canary_on=False)
    assert backend.canary_failure is None
    assert sorted((t.index, t.activated) for t in trials) == [(0, True), (1, True), (2, True)]
    assert said == {canary.SKIPPED}
    said.clear()
    (tmp_path / "host").mkdir()
    backend, _, _ = cell(tmp_path / "host", skill_repo, monkeypatch, sandbox.Host())
    assert backend.canary_failure is None
    assert said == {canary.HOST_UNCHECKED}
