"""Agent runs in a container each (`--sandbox docker`), through the real pinned CLIs at their
stand-ins, on the Docker daemon of this machine (.ci/run starts one) and the image
.ci/sandbox-image builds (once: the daemon keeps it between runs)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from activation.trials.agent.sandbox_docker import LABEL, context_digest, docker_problem, reap
from tests.support import responses_api
from tests.support.behavior_repo import example_repo
from tests.support.cli import Spawn, read_report
from tests.support.needs import unavailable
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import SkillRepos
from tests.trials.agents import test_conformance as conformance
from tests.trials.agents.test_conformance import Behaves, behaves
from tests.trials.sandbox import test_real_bwrap as bwrap

__all__ = ["behaves"]

BUILD = Path(__file__).parents[3] / ".ci" / "sandbox-image"
IMAGE = f"activation-sandbox:test-{hashlib.sha256(BUILD.read_bytes()).hexdigest()[:12]}"
"""Tagged by its recipe: a changed recipe is a new image."""


@pytest.fixture(scope="session")
def docker_image() -> str:
    """The sandbox image, built on first use: skipped outside CI where it cannot be had (no
    daemon, not root, no debootstrap), failed in CI."""
    built = subprocess.run([str(BUILD), IMAGE], capture_output=True, text=True)
    problem = docker_problem(IMAGE)
    if built.returncode != 0 or problem is not None:
        said = (built.stderr.strip().splitlines() or [""])[-1]
        unavailable(f"the docker sandbox's image ({IMAGE})", problem or said)
    return IMAGE


@pytest.fixture
def in_docker(docker_image: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every run of the test in a container; none of this process's is left after it."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "docker")
    monkeypatch.setenv("ACTIVATION_IMAGE", docker_image)
    yield
    assert containers(os.getpid()) == []


def containers(pid: int) -> list[str]:
    """The containers labelled as started by the process `pid`, running or not."""
    listing = ["docker", "ps", "-aq", "--filter", f"label={LABEL}={pid}"]
    return subprocess.run(listing, capture_output=True, text=True, check=True).stdout.split()


def test_stage_b_in_docker_reads_the_same_as_on_the_host(
    in_docker: None,
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it, with each run in a
    container: the same statuses, loads and errors; the report says where runs happened."""
    conformance.test_a_real_run_reads_each_agents_own_loads(
        real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, capsys
    )
    assert read_report(tmp_path / "report.json")["agent"]["sandbox"] == "docker"


def test_stage_c_in_docker_grades_the_same_as_on_the_host(
    in_docker: None, behaves: Behaves, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conformance suite's Stage C scenario (a body that teaches the removed API), every
    assertion of it, with each agent at work in a container: the files it wrote in its
    mounted workspace are graded as on the host."""
    conformance.test_a_body_that_teaches_the_removed_api_regresses_the_case_and_fails_the_gate(
        behaves, monkeypatch
    )
    assert read_report(behaves.tmp_path / "behavior.json")["agent"]["sandbox"] == "docker"


@pytest.mark.real_cli
@pytest.mark.parametrize("real_agent", sorted(bwrap.ESCAPES))
def test_a_scripted_agent_cannot_read_the_users_home_or_repo_in_a_container(
    in_docker: None,
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """bwrap's escape scenario in a container: the planted key and the repository's file do
    not exist for the agent, no write lands beside the key, the host's port is out of
    reach, and no nonce is in a request, an output or a transcript."""
    bwrap.test_a_scripted_agent_reads_the_users_home_and_repo_only_on_the_host(
        real_agent, agent_cli, "docker", skill_repo, tmp_path, monkeypatch, capsys
    )


@pytest.mark.parametrize("real_agent", ["claude-code", "codex"])
def test_sigterm_leaves_no_container_process_or_socket_behind(
    in_docker: None,
    agent_cli: Path,
    real_agent: str,
    skill_repo: SkillRepos,
    tmp_path: Path,
    spawn_activation: Spawn,
) -> None:
    """The conformance suite's SIGTERM during `--real`, every run in a container: no
    process, run folder or socket is left (bwrap's test), and no container of that
    process."""
    spawned: list[subprocess.Popen[bytes]] = []

    def spawn(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        spawned.append(spawn_activation(*args, **kwargs))
        return spawned[-1]

    conformance.test_sigterm_kills_every_run_removes_the_copies_and_keeps_a_partial_report(
        real_agent, agent_cli, skill_repo, tmp_path, spawn
    )
    (process,) = spawned
    assert containers(process.pid) == []
    assert read_report(tmp_path / "partial.json")["agent"]["sandbox"] == "docker"


def test_the_reaper_removes_the_containers_of_gone_processes_only(docker_image: str) -> None:
    """A container whose process is gone (a crash, a SIGKILL) is removed; one of a live
    process (this one) is not."""
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    started = {}
    for pid in (dead.pid, os.getpid()):
        run = ["docker", "run", "-d", "--network", "none", "--label", f"{LABEL}={pid}"]
        started[pid] = subprocess.run(
            [*run, docker_image, "sleep", "600"], capture_output=True, text=True, check=True
        ).stdout.strip()[:12]
    try:
        assert reap() == [started[dead.pid]]
        assert containers(dead.pid) == []
        assert containers(os.getpid()) == [started[os.getpid()]]
    finally:
        subprocess.run(["docker", "rm", "-f", *started.values()], capture_output=True)


SUITE_NONCE = "added-by-the-suites-own-image-8e41c0"
SUITE_DOCKERFILE = "ARG BASE\nFROM ${BASE}\nCOPY greeting.txt /opt/suite/greeting.txt\n"
"""A suite's own Dockerfile: the base image, and a file its runs can read."""


@pytest.mark.parametrize("real_agent", ["codex"])
def test_a_suites_own_dockerfile_is_built_and_its_runs_read_what_it_adds(
    in_docker: None,
    docker_image: str,
    real_agent: str,
    agent_cli: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Dockerfile in the suite's folder (FROM the base image, adding a file): the run
    builds it, tagged by its digest, and every run's container is of it: the scripted
    agent's shell reads the file the image added, which is nowhere on the host's paths."""
    row = REAL_AGENTS[real_agent]
    for variable in conformance.PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    repo = example_repo(tmp_path / "repo")
    suite = repo / "evals"
    (suite / "Dockerfile").write_text(SUITE_DOCKERFILE, encoding="utf-8")
    (suite / "greeting.txt").write_text(SUITE_NONCE, encoding="utf-8")
    monkeypatch.chdir(repo)
    report = tmp_path / "behavior.json"

    def reads_the_images_file(request: Any) -> Any:
        if request.is_responses and request.tool_names and request.turn == 0:
            return responses_api.Shell("cat /opt/suite/greeting.txt")
        return responses_api.Text("Done.")

    with row.api(reads_the_images_file) as api:
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        code = main([
            "behavior", "--agent", real_agent, "--codex", str(agent_cli), *row.model,
            *row.at_work.judge, "--baseline", "git:HEAD", "--only", "welcome_banner",
            "--no-control", "--trials", "1", "--max-trials", "1", "--timeout", "120",
            "--json", str(report), "--no-canary",
        ])  # fmt: skip
        said = [out for r in api.requests if r.is_responses for out in r.tool_outputs]
    built = f"activation-suite:{context_digest(suite, docker_image)}"
    assert (
        subprocess.run(["docker", "image", "inspect", built], capture_output=True).returncode == 0
    )
    assert read_report(report)["agent"]["image"] == built
    assert code == 3  # the stand-in plays no judge: grader errors, the cell is not judged
    assert len(said) == 2  # the baseline's run and the candidate's
    assert all(SUITE_NONCE in output for output in said), said
    assert not Path("/opt/suite/greeting.txt").exists()
