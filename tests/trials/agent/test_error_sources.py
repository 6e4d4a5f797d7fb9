"""Whose an agent trial's error is, given where the fact is known: a sandbox that cannot start
is infrastructure (retried, bounded, counted), a request budget the sandbox's proxy enforced
is a budget error, never a vote. Through the fake agent's real CLI (tests/support/fake_agent)
in a sandbox that a test controls."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from activation._config import INFRASTRUCTURE_RETRIES
from activation._models import AgentSettings, ErrorClass, RunSpec, Trial, TrialKey
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.sandbox import Confined, Sandbox, Unconfined, View
from activation.trials.agents import REGISTRY
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots
from tests.support.fake_agent import write_shim
from tests.support.skill_repo import SkillRepos
from tests.trials.agent.test_backend import case, deploy_target, inputs_for

OVER = "request budget: the agent sent more than 16 requests to the API in one trial (3 more were not forwarded)"  # noqa: E501


@dataclass
class Scripted:
    """A sandbox that fails to start `failures` times, then confines nothing, reporting
    `over_budget` for every run it let start."""

    name: str = "bwrap"
    failures: int = 0
    over_budget: str | None = None
    entered: int = 0

    @asynccontextmanager
    async def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AsyncIterator[Confined]:
        self.entered += 1
        if self.entered <= self.failures:
            raise OSError(98, "Address already in use")
        yield Unconfined(self.over_budget)


def fake_agent_in(
    box: Sandbox,
    tmp_path: Path,
    skill_repo: SkillRepos,
    monkeypatch: pytest.MonkeyPatch,
    canary_on: bool = True,
) -> AgentBackend:
    """A backend of the fake agent's real CLI (its shim in `tmp_path/bin`) whose runs go
    through `box`."""
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")
    (tmp_path / "bin").mkdir()
    shim = write_shim(tmp_path / "bin")
    settings = AgentSettings(3, 60.0, canary=canary_on, executables={"fake": str(shim)})
    spec = RunSpec(stage="B", agent=settings, coding_agent="fake")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    backend = AgentBackend(spec, inputs_for(deploy_target(skill_repo)), tmp_path / "t", env=env)
    backend.sandbox = box
    return backend


def run_one(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox
) -> tuple[Trial | None, int]:
    """One trial of the fake agent through the run's slots: the trial and how many attempts
    were retried. No canary: each entry of the sandbox is then a trial's own attempt."""
    backend = fake_agent_in(sandbox, tmp_path, skill_repo, monkeypatch, canary_on=False)
    slots = RunSlots(Limiter(1))

    async def main() -> Trial | None:
        async with backend:
            return await slots.run(TrialKey(case("deploy the app"), "candidate", 0), backend.run)

    return anyio.run(main), slots.retried


def test_a_sandbox_that_cannot_start_is_infrastructure_retried_then_the_run_goes_on(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = Scripted(failures=1)
    trial, retried = run_one(tmp_path, skill_repo, monkeypatch, sandbox)
    assert (sandbox.entered, retried) == (2, 1)
    assert trial is not None
    assert trial.error is None
    assert trial.activated is True  # the prompt names the deploy skill: the fake agent loads it


def test_a_sandbox_that_never_starts_is_one_infrastructure_error_after_the_retries(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = Scripted(failures=99)
    trial, retried = run_one(tmp_path, skill_repo, monkeypatch, sandbox)
    assert (sandbox.entered, retried) == (INFRASTRUCTURE_RETRIES + 1, INFRASTRUCTURE_RETRIES)
    assert trial is not None
    assert trial.activated is None
    assert trial.error_class is ErrorClass.INFRASTRUCTURE
    assert trial.error == (
        "the bwrap sandbox did not start: OSError: [Errno 98] Address already in use"
    )


def test_a_trial_over_its_request_budget_is_a_budget_error_not_a_vote(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = Scripted(over_budget=OVER)
    trial, retried = run_one(tmp_path, skill_repo, monkeypatch, sandbox)
    assert (sandbox.entered, retried) == (1, 0)
    assert trial is not None
    assert trial.activated is None
    assert trial.correct is None
    assert trial.error == OVER
    assert trial.error_class is ErrorClass.BUDGET
