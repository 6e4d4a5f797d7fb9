"""Stopping a run's processes: SIGTERM to the group first, SIGKILL for what is left.

Stand-in processes written here trap or ignore SIGTERM and note what they got, so each test
sees what the agent would: the signals, in order, and that nothing of the group outlives
the stop.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from activation._models import AgentSettings, RunSpec, TrialKey
from activation.trials.agent import backend as backend_module
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.process_group import start_group, stop_group
from activation.trials.agents import REGISTRY
from tests.support.cli import wait_until
from tests.support.npm_cli import processes_using
from tests.support.skill_repo import SkillRepos
from tests.trials.agent.test_backend import case, deploy_target, inputs_for

TRAPS_TERM = """
trap 'echo TERM >> "$RECORD"; exit 143' TERM
(trap '' TERM; exec sleep 300) &
echo started >> "$RECORD"
while true; do sleep 0.05; done
"""
"""Notes SIGTERM and exits; its child ignores SIGTERM, so only SIGKILL ends it."""
IGNORES_TERM = """
trap '' TERM
echo started >> "$RECORD"
while true; do sleep 0.05; done
"""


async def started_group(script: str, record: Path, marker: Path) -> anyio.abc.Process:
    """`script` in a process group of its own, once it has said it started; `marker` is in
    every process's environment, to find what is left of the group."""
    process = await anyio.open_process(
        ["bash", "-c", script],
        env={**os.environ, "RECORD": str(record), "MARKER": str(marker)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    await anyio.to_thread.run_sync(wait_until, lambda: started(record))
    return process


def gone(folder: Path) -> None:
    """No process naming `folder` is left: SIGKILL cannot be trapped, but a loaded machine
    may take a moment to end a killed process."""
    wait_until(lambda: processes_using(str(folder)) == [], 10, f"the processes of {folder}")


def started(record: Path) -> bool:
    return record.exists() and "started" in record.read_text()


def test_the_group_gets_sigterm_then_sigkill_for_what_outlives_it(tmp_path: Path) -> None:
    """The leader notes SIGTERM and exits at once; its child, which ignores SIGTERM, does
    not outlive the stop (SIGKILL), and the stop does not wait out the grace."""
    record = tmp_path / "record"

    async def main() -> tuple[int | None, float]:
        process = await started_group(TRAPS_TERM, record, tmp_path)
        assert len(processes_using(str(tmp_path))) >= 2  # the leader and its child
        began = time.monotonic()
        await stop_group(process, grace=10)
        return process.returncode, time.monotonic() - began

    code, took = anyio.run(main)
    assert record.read_text() == "started\nTERM\n"
    assert code == 143
    assert took < 5
    gone(tmp_path)


def test_a_group_cancelled_as_it_starts_still_gets_sigterm_first(tmp_path: Path) -> None:
    """A user's Ctrl-C that lands while the CLI is starting: the start completes (asyncio
    would otherwise SIGKILL the leader alone and leave its children running), and the
    cancelled caller's stop gives the whole group SIGTERM first."""
    record = tmp_path / "record"

    async def main() -> anyio.abc.Process:
        env = {**os.environ, "RECORD": str(record), "MARKER": str(tmp_path)}
        with anyio.CancelScope() as scope:
            scope.cancel()
            process = await start_group(["bash", "-c", TRAPS_TERM], tmp_path, env,
                                        subprocess.DEVNULL, subprocess.DEVNULL)  # fmt: skip
            await anyio.lowlevel.checkpoint()  # where the cancellation reaches the caller
        assert scope.cancelled_caught
        await anyio.to_thread.run_sync(wait_until, lambda: started(record))
        await stop_group(process, grace=10)
        await process.aclose()
        return process

    process = anyio.run(main)
    assert record.read_text() == "started\nTERM\n"
    assert process.returncode == 143
    gone(tmp_path)


def test_a_leader_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    record = tmp_path / "record"

    async def main() -> tuple[int | None, float]:
        process = await started_group(IGNORES_TERM, record, tmp_path)
        began = time.monotonic()
        await stop_group(process, grace=0.5)
        return process.returncode, time.monotonic() - began

    code, took = anyio.run(main)
    assert code == -9
    assert 0.5 <= took < 5
    assert record.read_text() == "started\n"
    gone(tmp_path)


STAND_IN_AGENT = """#!/bin/bash
if [ "$1" = "--version" ]; then echo "fake-agent 1.0.0"; exit 0; fi
trap 'echo TERM >> {record}; exit 143' TERM
(trap '' TERM; exec sleep 300) &
echo started >> {record}
while true; do sleep 0.05; done
"""
"""Stage B's agent as a user's Ctrl-C finds it: at work, its child ignoring SIGTERM."""


def test_an_interrupted_stage_b_run_sends_the_agent_sigterm_and_leaves_nothing(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")
    # SIGTERM comes first whatever the grace; a long one keeps a loaded machine (where the
    # stand-in may wait seconds for a core to run its trap) from turning this into SIGKILL.
    monkeypatch.setattr(backend_module, "stop_group", partial(stop_group, grace=30.0))
    systemp = tmp_path / "systemp"
    systemp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systemp))
    record = tmp_path / "record"
    agent = tmp_path / "stand-in-agent"
    agent.write_text(STAND_IN_AGENT.format(record=record))
    agent.chmod(0o755)
    settings = AgentSettings(3, 60.0, executables={"fake": str(agent)})
    spec = RunSpec(stage="B", agent=settings, coding_agent="fake")
    target = deploy_target(skill_repo)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    backend = AgentBackend(spec, inputs_for(target), tmp_path / "transcripts", env=env)

    async def main() -> None:
        async with backend, anyio.create_task_group() as group:
            group.start_soon(backend.run, TrialKey(case(), "baseline", 0))
            await anyio.to_thread.run_sync(wait_until, lambda: started(record))
            assert len(processes_using(str(systemp))) >= 2
            group.cancel_scope.cancel()

    anyio.run(main)
    assert record.read_text() == "started\nTERM\n"
    gone(systemp)
    assert list(systemp.iterdir()) == []  # the run's folders and the copies are gone
