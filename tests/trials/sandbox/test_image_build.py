"""`activation sandbox build`: an image of the pinned agent CLIs and Node, and runs in it.

Without a daemon: what of a CLI the image packs, its labels read back (a CLI of another
version refused), a container of such an image mounting nothing of the CLI or Node, and
the build refusing a CLI that is not the pinned one. On this machine's daemon (.ci/run
starts one): a real `docker build` of the tool's Dockerfile on the test base image, then
the conformance suite's Stage B and Stage C scenarios run from it, each container watched
as docker started it (its mounts, image and command)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation._config import AGENT
from activation._errors import InputError
from activation.commands.example import BUNDLED_EXAMPLES, EXAMPLES, lay_out
from activation.commands.main import main
from activation.trials.agent.adapter import Launch
from activation.trials.agent.cli import install_hint
from activation.trials.agent.kit import key_variable
from activation.trials.agent.sandbox import View, install_folder
from activation.trials.agent.sandbox_docker import LABEL, Contained, Container
from activation.trials.agent.sandbox_egress import RELAY, Egress
from activation.trials.agent.sandbox_image import (
    NODE,
    TEMPLATE,
    Carried,
    carried,
    default_tag,
    labels,
    packed,
)
from activation.trials.agents import agent_named, known
from activation.trials.providers import provider_named
from tests.support.cli import read_report
from tests.support.skill_repo import SkillRepos
from tests.trials.agents import test_conformance as conformance
from tests.trials.agents.test_conformance import Behaves, behaves
from tests.trials.sandbox.test_real_docker import docker_image

__all__ = ["behaves", "docker_image"]

HELD = "/opt/activation/agents/codex/node_modules/@openai/codex/bin/codex.js"


def test_an_npm_install_is_packed_from_its_node_modules_and_a_lone_binary_from_its_folder() -> None:
    npm = packed("codex", "0.171.0", Path("/p/clis/node_modules/@openai/codex/bin/codex.js"))
    assert (npm.source, npm.executable) == (Path("/p/clis/node_modules"), HELD)
    lone = packed("claude-code", "2.1.332 (Claude Code)", Path("/home/me/.local/bin/claude"))
    assert (lone.source, lone.executable) == (
        Path("/home/me/.local/bin"),
        "/opt/activation/agents/claude-code/bin/claude",
    )
    assert labels([npm, lone]) == {
        "activation.node": "/usr/local/bin/node",
        "activation.agent.codex.version": "0.171.0",
        "activation.agent.codex.executable": HELD,
        "activation.agent.claude-code.version": "2.1.332 (Claude Code)",
        "activation.agent.claude-code.executable": "/opt/activation/agents/claude-code/bin/claude",
    }
    assert default_tag([npm, lone]) == "activation-sandbox:codex-0.171.0-claude-code-2.1.332"


def test_an_images_labels_give_the_pinned_cli_and_refuse_another_version() -> None:
    codex = agent_named("codex")
    found = labels([packed("codex", codex.version, Path("/p/node_modules/a/codex.js"))])
    assert carried("img:1", found, codex) == Carried(
        "/opt/activation/agents/codex/node_modules/a/codex.js", codex.version
    )
    assert carried("img:1", found, agent_named("gemini")) is None
    old = {**found, "activation.agent.codex.version": "0.170.0"}
    with pytest.raises(InputError) as refused:
        carried("img:1", old, codex)
    assert str(refused.value) == (
        f"--image img:1 holds Codex 0.170.0, not the pinned {codex.version}: build it again "
        "with `activation sandbox build --agent codex`"
    )


def test_a_container_of_an_image_holding_the_cli_mounts_neither_it_nor_node(
    tmp_path: Path,
) -> None:
    """The held CLI runs by its path in the image behind the image's Node; a launch of the
    host's Node (the canary's probe) gets the image's; another CLI is still mounted."""
    (tmp_path / "copies").mkdir()
    view = View(tmp_path, (), (tmp_path / "copies",))
    container = Container("activation-7-abc", "img:1", 1000, 1000, {}, NODE, frozenset({HELD}))
    contained = Contained(view, Egress((), 16), container)
    argv = contained.wrap(Launch([HELD, "exec"], {})).argv
    assert [argv[i + 1] for i, word in enumerate(argv) if word == "--mount"] == [
        f"type=bind,src={tmp_path / 'copies'},dst={tmp_path / 'copies'},readonly"
    ]
    assert argv[argv.index("img:1") + 1 :] == [NODE, "-e", RELAY, "then", HELD, "exec"]
    node = str(Path(which("node")).resolve())
    probe = contained.wrap(Launch([node, "-e", "1"], {})).argv
    assert probe[probe.index("img:1") + 1 :] == [NODE, "-e", RELAY, "then", NODE, "-e", "1"]
    assert f"src={node}" not in " ".join(probe)
    other = tmp_path / "clis" / "node_modules" / "x" / "cli.js"
    mounted = contained.wrap(Launch([str(other)], {})).argv
    assert f"type=bind,src={tmp_path / 'clis'},dst={tmp_path / 'clis'},readonly" in mounted
    assert mounted[-2:] == ["then", str(other)]


def which(name: str) -> str:
    found = shutil.which(name)
    assert found is not None, name
    return found


@pytest.mark.parametrize("name", known())
def test_the_build_refuses_a_cli_that_is_not_the_pinned_version(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = agent_named(name)
    fake = tmp_path / agent.command
    fake.write_text("#!/bin/sh\necho 0.0.1\n", encoding="utf-8")
    fake.chmod(0o755)
    code = main(["sandbox", "build", "--agent", name, agent.flag, str(fake)])
    assert (code, capsys.readouterr().err) == (
        2,
        f"activation sandbox: error: {fake} is {agent.label('0.0.1')}, not the pinned "
        f"{agent.version}: {install_hint(agent.package, agent.flag)}\n",
    )


def test_a_run_in_an_image_holding_another_version_is_one_line_and_exit_2(
    docker_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """An image whose labels say it holds the default agent's CLI at another release than
    the pinned one: the run stops before any model call, with what to do."""
    agent = agent_named(AGENT)
    said = f"0.0.1 ({agent.title})"
    tag = "activation-sandbox:test-held-0.0.1"
    found = labels([packed(AGENT, said, Path("/p/node_modules/a/cli.js"))])
    build = ["docker", "build", "-q", *(f"--label={k}={v}" for k, v in found.items())]
    subprocess.run([*build, "-t", tag, "-"], input=f"FROM {docker_image}\n".encode(),
                   capture_output=True, check=True)  # fmt: skip
    lay_out(BUNDLED_EXAMPLES / "billing", tmp_path / "repo", EXAMPLES["billing"])
    provider = provider_named(agent.providers[0])
    monkeypatch.setenv(key_variable(provider), "sk-test")
    monkeypatch.delenv(provider.url_variable or "NONE", raising=False)
    monkeypatch.chdir(tmp_path / "repo")
    code = main(["--real", "--sandbox", "docker", "--image", tag, "--only", "refund-order",
                 "--cases", "cases.json"])  # fmt: skip
    assert (code, capsys.readouterr().err) == (
        2,
        f"activation: error: --image {tag} holds {agent.label(said)}, not the pinned "
        f"{agent.version}: build it again with `activation sandbox build --agent {AGENT}`\n",
    )


@pytest.fixture
def agent_image(docker_image: str, real_agent: str, agent_cli: Path) -> str:
    """The tool's image of the agent's pinned CLI on the test base image, built by
    `activation sandbox build` on first use; tagged by the Dockerfile, the base and the
    agent's pin, so the daemon keeps it between runs."""
    agent = agent_named(real_agent)
    recipe = files("activation.trials.agent").joinpath(TEMPLATE).read_bytes()
    digest = hashlib.sha256(recipe + f"{docker_image} {agent.package}".encode()).hexdigest()
    tag = f"activation-sandbox:test-{real_agent}-{digest[:12]}"
    if subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode:
        built = ["sandbox", "build", "--agent", real_agent, agent.flag, str(agent_cli)]
        assert main([*built, "--base", docker_image, "--tag", tag]) == 0
    return tag


@contextmanager
def watched(started: str) -> Iterator[list[dict[str, Any]]]:
    """Each container docker's events filter `started` matches (`label=...`, `image=...`)
    created while the block runs, as docker inspects it the moment it is created (its
    mounts, image and command)."""
    seen: list[dict[str, Any]] = []
    events = subprocess.Popen(
        ["docker", "events", "--filter", started, "--filter", "event=create",
         "--format", "{{.ID}}"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert events.stdout is not None
    stream = events.stdout

    def inspect() -> None:
        for line in stream:
            done = subprocess.run(["docker", "inspect", line.strip()], capture_output=True)
            if done.returncode == 0:
                seen.extend(orjson.loads(done.stdout))

    reader = threading.Thread(target=inspect)
    reader.start()
    try:
        yield seen
    finally:
        events.terminate()
        reader.join()
        events.wait()


def held_only(seen: list[dict[str, Any]], image: str, agent_cli: Path) -> None:
    """Every container was of `image`, none mounted the host's CLI or Node, and the runs
    started the CLI the image holds, behind its Node."""
    executable = orjson.loads(
        subprocess.run(
            ["docker", "image", "inspect", "--format", "{{json .Config.Labels}}", image],
            capture_output=True,
            check=True,
        ).stdout
    )
    held = [value for name, value in executable.items() if name.endswith(".executable")]
    assert seen
    assert {container["Config"]["Image"] for container in seen} == {image}
    host = (install_folder(agent_cli.resolve()), Path(which("node")).resolve().parent)
    sources = {Path(mount["Source"]) for container in seen for mount in container["Mounts"]}
    assert not [s for s in sources for h in host if s == h or h in s.parents or s in h.parents]
    commands = [container["Config"]["Cmd"] for container in seen]
    assert all(command[0] == NODE for command in commands)
    assert [command for command in commands if held[0] in command]


@pytest.mark.parametrize("real_agent", [AGENT])
def test_stage_b_runs_the_cli_the_built_image_holds_and_reads_as_on_the_host(
    agent_image: str,
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it, each run in a
    container of the built image (the default agent's: the one a user gets without
    --agent): nothing of the CLI or Node mounted, the report naming the image and the
    pinned version."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "docker")
    monkeypatch.setenv("ACTIVATION_IMAGE", agent_image)
    with watched(f"label={LABEL}={os.getpid()}") as seen:
        conformance.test_a_real_run_reads_each_agents_own_loads(
            real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, capsys
        )
    held_only(seen, agent_image, agent_cli)
    agent = read_report(tmp_path / "report.json")["agent"]
    assert (agent["sandbox"], agent["image"]) == ("docker", agent_image)
    assert main(["report", str(tmp_path / "report.json")]) == 0
    label = agent_named(real_agent).label(agent["version"])
    assert f"{label}, in a docker sandbox ({agent_image})" in capsys.readouterr().out


@pytest.mark.parametrize("real_agent", [AGENT])
def test_stage_c_runs_the_cli_the_built_image_holds_and_grades_as_on_the_host(
    agent_image: str, behaves: Behaves, agent_cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conformance suite's Stage C scenario, every assertion of it, with the agent at
    work in containers of the built image: its files graded as on the host, nothing of
    the CLI or Node mounted."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "docker")
    monkeypatch.setenv("ACTIVATION_IMAGE", agent_image)
    with watched(f"label={LABEL}={os.getpid()}") as seen:
        conformance.test_a_body_that_teaches_the_removed_api_regresses_the_case_and_fails_the_gate(
            behaves, monkeypatch
        )
    held_only(seen, agent_image, agent_cli)
    agent = read_report(behaves.tmp_path / "behavior.json")["agent"]
    assert (agent["sandbox"], agent["image"]) == ("docker", agent_image)
