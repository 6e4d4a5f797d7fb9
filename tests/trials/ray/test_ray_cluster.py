"""Agent runs as tasks on a real Ray cluster (`--executor ray`) through the real pinned
Claude Code CLI at its stand-in: Stage B and Stage C read exactly as their local runs do
(the conformance scenarios, every assertion of them), no key travels with a task or shows
in Ray's files, and a worker node killed mid-run costs a retry, never a trial."""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from ray import cloudpickle

from activation.commands.main import main
from activation.trials.agent.sandbox_docker import LABEL
from activation.trials.agent.sandbox_image import image_labels, version_label
from activation.trials.agents import agent_named
from activation.trials.executor_ray import RayBackend
from tests.support.cli import read_report, wait_until
from tests.support.ray_cluster import RayCluster
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import SKILL_PATH, SkillRepos, case, write_cases
from tests.trials.agents import test_conformance as conformance
from tests.trials.ray.conftest import AGENT
from tests.trials.sandbox.test_image_build import agent_image, docker_image, held_only, watched

__all__ = ["agent_image", "docker_image"]

ROW = REAL_AGENTS[AGENT]


@dataclass
class Sent:
    """What went to the cluster, as Ray pickles it: each node actor's arguments (one actor
    a node and cell) and each trial's call."""

    actors: list[bytes] = field(default_factory=list)
    trials: list[bytes] = field(default_factory=list)


@pytest.fixture
def on_cluster(ray_cluster: RayCluster, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sent]:
    """Every run of the test on the cluster; gives what each actor and each trial's call
    was sent, and checks after the test that no key is in it nor in any file Ray wrote."""
    monkeypatch.setenv("ACTIVATION_EXECUTOR", "ray")
    monkeypatch.setenv("RAY_ADDRESS", ray_cluster.address)
    sent = Sent()
    opening, arguments = RayBackend.opening, RayBackend.arguments

    def opened(self: RayBackend) -> Any:
        given = opening(self)
        sent.actors.append(cloudpickle.dumps(given))  # type: ignore[no-untyped-call]
        return given

    def called(self: RayBackend, key: Any) -> Any:
        given = arguments(self, key)
        sent.trials.append(cloudpickle.dumps(given))  # type: ignore[no-untyped-call]
        return given

    monkeypatch.setattr(RayBackend, "opening", opened)
    monkeypatch.setattr(RayBackend, "arguments", called)
    yield sent
    assert sent.actors and sent.trials
    assert not [task for task in sent.actors + sent.trials if ROW.key.encode() in task]
    assert not [path for path in ray_cluster.logs() if ROW.key.encode() in path.read_bytes()]


def test_stage_b_through_ray_client_reads_as_the_local_run(
    on_cluster: Sent,
    ray_cluster: RayCluster,
    claude: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it (the statuses, the
    loads, the error, the transcripts, which `detect` reads back), each run on a node, in
    the node's own sandbox (bubblewrap, as the conformance runs ask): one call to the
    node's actor a trial; this process a Ray Client of the head (`--executor
    ray://HOST:PORT`)."""
    monkeypatch.setenv("ACTIVATION_EXECUTOR", ray_cluster.client_address)
    monkeypatch.setenv("ACTIVATION_SANDBOX", "bwrap")
    conformance.test_a_real_run_reads_each_agents_own_loads(
        AGENT, claude, skill_repo, tmp_path, monkeypatch, capsys
    )
    report = read_report(tmp_path / "report.json")
    assert report["agent"]["executor"] == ray_cluster.client_address
    trials = [trial for entry in report["cases"] for trial in entry["trials"]]
    assert len(on_cluster.trials) == len(trials) == 10
    assert len(on_cluster.actors) == 2  # one backend a node, built once
    assert all(Path(trial["transcript"]).is_relative_to(tmp_path) for trial in trials)


@pytest.fixture
def real_agent() -> str:
    """The agent of the image the sandbox tests build (`agent_image`): the cluster's."""
    return AGENT


@pytest.fixture
def agent_cli(claude: Path) -> Path:
    return claude


def test_stage_b_in_the_image_holding_the_cli_reads_as_the_local_run(
    on_cluster: Sent,
    agent_image: str,
    claude: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it, each run on a node
    in a container of the image `activation sandbox build` made (tests/trials/sandbox/):
    the nodes start the CLI the image holds, mounting nothing of the host's CLI or Node,
    and the report names the image and the version it holds."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "docker")
    monkeypatch.setenv("ACTIVATION_IMAGE", agent_image)
    with watched(f"image={agent_image}") as seen:
        conformance.test_a_real_run_reads_each_agents_own_loads(
            AGENT, claude, skill_repo, tmp_path, monkeypatch, capsys
        )
    held_only(seen, agent_image, claude)
    started = {container["Config"]["Labels"][LABEL] for container in seen}
    assert len(started - {str(os.getpid())}) == 2  # each node's actor, not only this canary
    agent = read_report(tmp_path / "report.json")["agent"]
    assert (agent["executor"], agent["sandbox"], agent["image"]) == ("ray", "docker", agent_image)
    assert agent["version"] == image_labels(agent_image)[version_label(AGENT)]
    assert len(on_cluster.trials) == 10
    assert len(on_cluster.actors) == 2


def test_stage_c_on_the_cluster_grades_as_the_local_run(
    on_cluster: Sent,
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage C scenario (an unchanged body passes, the skill lifts
    over no skill), every assertion of it, each agent at work on a node: the workspaces are
    laid out, the agent writes, the graders and the judge run there."""
    for variable in conformance.PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    with ROW.api(ROW.at_work.task) as api:
        for variable, value in ROW.variables(api.base_url, ROW.key).items():
            monkeypatch.setenv(variable, value)
        behaves = conformance.Behaves(AGENT, claude, api, tmp_path)
        conformance.unchanged_body_passes(behaves, monkeypatch, capsys)
    report = read_report(tmp_path / "behavior.json")
    assert report["agent"]["executor"] == "ray"
    assert len(on_cluster.trials) == 9  # three arms, three trials each
    assert len(on_cluster.actors) == 2


LOADS = 2


def test_a_node_killed_mid_run_costs_a_retry_and_no_trial(
    on_cluster: Sent,
    ray_cluster: RayCluster,
    skill_repo: SkillRepos,
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two trials at once, one a node; once both nodes' agents have asked the model (each
    answer takes 3 s), one node is killed whole. Its trial is an infrastructure error, run
    again on the node left: every trial is there once, the statuses are the local run's,
    the report counts the retry."""
    repo = skill_repo("Use when issuing refunds.", candidate="Use when issuing refunds.")
    monkeypatch.chdir(repo.root)
    write_cases(tmp_path / "cases.json", [case("first", "refund order 1", True),
                                          case("second", "refund order 2", True)])  # fmt: skip
    script = ROW.script(lambda request: "refunds")
    try:
        with ROW.api(script, latency=3.0) as api:
            for variable, value in ROW.variables(api.base_url, ROW.key).items():
                monkeypatch.setenv(variable, value)

            def kill_when_both_ask() -> None:
                wait_until(lambda: len([r for r in api.requests if ROW.in_loop(r)]) >= LOADS)
                ray_cluster.kill(1)

            killer = threading.Thread(target=kill_when_both_ask, daemon=True)
            killer.start()
            code = main([
                "--real", "--agent", AGENT, "--claude", str(claude), "--cases",
                str(tmp_path / "cases.json"), "--skill-path", SKILL_PATH, "--only", "first,second",
                "--trials", "1",
                "--max-trials", "1", "--concurrency", "2", "--timeout", "120",
                "--json", str(tmp_path / "report.json"), "--full-record",
            ])  # fmt: skip
            killer.join(timeout=5)
    finally:
        if ray_cluster.nodes[1].poll() is not None:
            ray_cluster.nodes.pop(1)
            ray_cluster.add_worker()  # the session's cluster has its two nodes again
    err = capsys.readouterr().err
    report = read_report(tmp_path / "report.json")
    assert code == 0, err
    assert {entry["id"]: entry["status"] for entry in report["cases"]} == {
        "first": "PASS",
        "second": "PASS",
    }
    trials = sorted((e["id"], t["variant"], t["index"], t["reading"])
                    for e in report["cases"] for t in e["trials"])  # fmt: skip
    assert trials == [
        ("first", "baseline", 0, "activated"),
        ("first", "candidate", 0, "activated"),
        ("second", "baseline", 0, "activated"),
        ("second", "candidate", 0, "activated"),
    ]
    assert report["retried"] == 1
    assert len(on_cluster.trials) == 5  # four trials, one of them sent twice
    assert len(on_cluster.actors) == 2


REFUSED = (
    "bwrap: No permissions to create new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces"
)


NODE_LINE = (
    r"activation: error: the Ray node at [0-9.]+ \([0-9a-f]{8}\) cannot run claude-code: (.*)"
)


def refused_by_a_third_node(
    ray_cluster: RayCluster,
    first_on_path: dict[str, str],
    flags: list[str],
    skill_repo: SkillRepos,
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """A one-trial run with `flags` while a third node has the scripts `first_on_path`
    (name: shell) first on its PATH: exit 2 before any model call, with one line naming
    that node; what the node lacks, as that line says it."""
    folder = tmp_path / "first-on-path"
    folder.mkdir()
    for name, script in first_on_path.items():
        (folder / name).write_text(f"#!/bin/sh\n{script}\n")
        (folder / name).chmod(0o755)
    monkeypatch.setenv("RAY_ADDRESS", ray_cluster.address)
    repo = skill_repo("Use when issuing refunds.", candidate="Use for refunds.")
    monkeypatch.chdir(repo.root)
    write_cases(tmp_path / "cases.json", [case("first", "refund order 1", True)])
    ray_cluster.add_worker({"PATH": f"{folder}:{os.environ['PATH']}"})
    try:
        with ROW.api(ROW.script(lambda request: "refunds")) as api:
            for variable, value in ROW.variables(api.base_url, ROW.key).items():
                monkeypatch.setenv(variable, value)
            code = main([
                "--real", "--agent", AGENT, "--claude", str(claude), "--cases",
                str(tmp_path / "cases.json"), "--skill-path", SKILL_PATH, "--only", "first",
                "--trials", "1", "--max-trials", "1", *flags, "--executor", "ray",
            ])  # fmt: skip
    finally:
        ray_cluster.remove_worker(2)
    err = capsys.readouterr().err
    assert code == 2, err
    assert api.requests == []
    said = re.fullmatch(NODE_LINE, err.splitlines()[-1])
    assert said is not None, err
    return said[1]


def test_a_node_whose_sandbox_cannot_run_stops_the_run_naming_it(
    ray_cluster: RayCluster,
    skill_repo: SkillRepos,
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A third node whose kernel refuses bubblewrap's namespaces (a bwrap first on its
    PATH says so, as bwrap does there) while this machine's runs it: a run in bwrap stops
    before any trial with one line naming that node, exit 2, no model asked."""
    refusing = {"bwrap": f"echo '{REFUSED}' >&2\nexit 1"}
    said = refused_by_a_third_node(ray_cluster, refusing, ["--sandbox", "bwrap"], skill_repo,
                                   claude, tmp_path, monkeypatch, capsys)  # fmt: skip
    assert said == f"--sandbox bwrap: bwrap cannot run here: {REFUSED}"


def test_a_node_whose_image_holds_another_cli_stops_the_run_naming_it(
    ray_cluster: RayCluster,
    agent_image: str,
    skill_repo: SkillRepos,
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A third node whose daemon's image of that name holds an older Claude Code (a docker
    first on its PATH gives those labels, as docker would): a run in that image stops
    before any trial with one line naming that node, exit 2, no model asked."""
    older = {**image_labels(agent_image), version_label(AGENT): "2.1.0 (Claude Code)"}
    docker = (
        f"case \"$4\" in *json*) echo '{orjson.dumps(older).decode()}'; exit 0;; esac\n"
        f'exec {shutil.which("docker")} "$@"'
    )
    flags = ["--sandbox", "docker", "--image", agent_image]
    said = refused_by_a_third_node(ray_cluster, {"docker": docker}, flags, skill_repo, claude,
                                   tmp_path, monkeypatch, capsys)  # fmt: skip
    assert said == (
        f"--image {agent_image} holds Claude Code 2.1.0 (Claude Code), not the pinned "
        f"{agent_named(AGENT).version}: build it again with "
        "`activation sandbox build --agent claude-code`"
    )
