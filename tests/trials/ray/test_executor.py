"""`--executor` without a cluster: how the flag reads, which cluster it names, and the one
line a run gets for a cluster it cannot use (no Ray, no cluster, a node that lacks the key
or the agent CLI) before any trial."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import orjson
import pytest
import ray

import activation
from activation._errors import InputError
from activation._models import Case, TrialKey
from activation.commands.main import main
from activation.trials import executor_ray
from activation.trials.agent.backend import AgentBackend
from activation.trials.agents import agent_named
from activation.trials.errors import InfrastructureFailure
from activation.trials.executor import cluster_address, on_executor, parse_executor
from activation.trials.executor_ray import (
    Node,
    NodeNeeds,
    NodeSlots,
    RayBackend,
    addresses,
    connect,
    node_problem,
    sandbox_problem,
)


@pytest.mark.parametrize("value", ["local", "ray", "ray://10.0.0.5:10001"])
def test_the_executor_is_local_ray_or_a_client_address(value: str) -> None:
    assert parse_executor(value) == value


@pytest.mark.parametrize(
    "value", ["docker", "ray://", "ray://head", "ray://head:port", "ray://head:10001/x", ""]
)
def test_any_other_executor_is_refused(value: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse_executor(value)
    assert str(refused.value) == f"must be local, ray or ray://HOST:PORT, got {value!r}"


def test_the_cluster_is_the_flags_else_ray_address_else_this_machines() -> None:
    assert cluster_address("ray://head:10001", {"RAY_ADDRESS": "other:6379"}) == "ray://head:10001"
    assert cluster_address("ray", {"RAY_ADDRESS": "10.0.0.5:6379"}) == "10.0.0.5:6379"
    assert cluster_address("ray", {}) == "auto"


def test_a_local_run_is_the_backend_itself() -> None:
    backend = object.__new__(AgentBackend)
    assert on_executor(backend, "local", {}) is backend


def test_the_executor_is_for_agent_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--executor", "ray"]) == 2
    assert capsys.readouterr().err == (
        "activation: error: --executor starts agent runs elsewhere: it needs --real\n"
    )


def test_without_ray_installed_the_run_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "activation.trials.executor_ray", None)
    with pytest.raises(InputError) as refused:
        on_executor(object.__new__(AgentBackend), "ray", {})
    assert str(refused.value) == (
        "--executor ray needs Ray on this machine: pip install 'skill-activation[ray]'"
    )


def test_a_cluster_nobody_answers_at_is_one_line_at_once() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(InputError) as refused:
        connect(f"127.0.0.1:{port}")
    assert str(refused.value) == (
        f"could not reach the Ray cluster at 127.0.0.1:{port}: [Errno 111] Connection refused"
    )


def test_a_failed_handshake_leaves_no_half_made_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Something listens but Ray Client's handshake fails (a server still starting): the
    run is one line, and the connection Ray half-made is shut, or the next run of this
    process (the Python API, a test) would crash on it."""
    calls: list[str] = []

    def refused_init(**_settings: object) -> None:
        calls.append("init")
        raise ConnectionError(
            "Initialization failure from server:\nTraceback (most recent call last):\n"
            '  File "proxier.py", line 779, in Datapath\n'
            "RuntimeError: Proxy failed to Connect to backend! Check `ray_client_server.err`\n"
        )

    monkeypatch.setattr(executor_ray, "reachable", lambda _address: None)
    monkeypatch.setattr(ray, "init", refused_init)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    with pytest.raises(InputError) as refused:
        connect("ray://127.0.0.1:10001")
    assert str(refused.value) == (
        "could not reach the Ray cluster at ray://127.0.0.1:10001: Initialization failure "
        "from server: RuntimeError: Proxy failed to Connect to backend! Check "
        "`ray_client_server.err`"
    )
    assert calls == ["init", "shutdown"]


def test_a_ray_client_address_without_ray_client_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(executor_ray, "find_spec", {"grpc": None}.get)
    with pytest.raises(InputError) as refused:
        connect("ray://10.0.0.5:10001")
    assert str(refused.value) == (
        "--executor ray://10.0.0.5:10001 needs Ray Client on this machine: "
        "pip install 'skill-activation[ray]'"
    )


NEEDS = NodeNeeds(activation.__version__, "claude-code", "/nonexistent/claude", "2.1.0", "host")


def test_a_node_without_a_key_says_which_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    assert node_problem(NEEDS) == (
        "no key in its environment (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN)"
    )


def test_a_node_without_the_cli_or_this_package_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-node-own")
    problem = node_problem(NEEDS)
    assert problem is not None
    assert problem.startswith("cannot find the Claude Code CLI '/nonexistent/claude': install")
    other = NodeNeeds("0.0.1", "claude-code", "/nonexistent/claude", None, "host")
    assert node_problem(other) == f"activation {activation.__version__} is installed, not 0.0.1"


def test_a_tasks_addresses_are_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker runs task after task: the API addresses one task brings are gone after it,
    and a variable it replaced is back."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://node-own:1")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    urls = {"ANTHROPIC_BASE_URL": "http://api:2", "OPENAI_BASE_URL": "http://api:3"}
    with addresses(urls):
        assert {name: os.environ[name] for name in urls} == urls
    assert os.environ["ANTHROPIC_BASE_URL"] == "http://node-own:1"
    assert "OPENAI_BASE_URL" not in os.environ


def test_the_cells_of_a_run_share_one_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of several cells enters one backend a cell: the first connects, the others
    join it, the last to leave closes it; another cluster in the same run is refused."""
    drivers = ["10.0.0.5:6379"]
    monkeypatch.setattr(executor_ray, "_drivers", drivers)
    with pytest.raises(InputError) as refused:
        connect("10.0.0.6:6379")
    assert str(refused.value) == "one run uses one Ray cluster, not 10.0.0.5:6379 and 10.0.0.6:6379"
    connect("10.0.0.5:6379")
    assert drivers == ["10.0.0.5:6379", "10.0.0.5:6379"]
    executor_ray.disconnect()
    executor_ray.disconnect()
    assert drivers == []


class Addressed(AgentBackend):
    """A backend that says only where its API is."""

    def __init__(self, url: str) -> None:
        self.url = url

    def remote(self) -> Callable[..., AgentBackend]:
        return Addressed

    def api_urls(self) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": self.url}


def test_an_api_address_with_credentials_never_travels() -> None:
    with pytest.raises(InputError) as refused:
        RayBackend(Addressed("https://user:SECRET@proxy.example:8443/v1"), "auto")
    assert str(refused.value) == (
        "an API address with credentials in it never travels to a Ray node: set it in each "
        "node's own environment and leave it out of this one"
    )
    backend = RayBackend(Addressed("https://proxy.example:8443/v1"), "auto")
    assert backend.opening() == (Addressed, {"ANTHROPIC_BASE_URL": "https://proxy.example:8443/v1"})
    key = TrialKey(Case("refund", "refund order 1", True, "w"), "baseline", 0)
    assert backend.arguments(key) == (key,)


def test_a_node_without_the_runs_sandbox_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The node's own PATH decides: no bwrap there, or no docker, is the line that names
    the flag; a run on the host needs neither."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert sandbox_problem("bwrap", None) == "--sandbox bwrap: bubblewrap (bwrap) is not on PATH"
    assert sandbox_problem("docker", "activation-sandbox:x") == (
        "--sandbox docker: docker is not on PATH"
    )
    assert sandbox_problem("host", None) is None


def test_a_docker_node_without_the_image_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A daemon that answers but lacks the image: the node's docker says which."""
    docker = tmp_path / "docker"
    docker.write_text("#!/bin/sh\necho 'Error: No such image: activation-sandbox:x' >&2\nexit 1\n")
    docker.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert sandbox_problem("docker", "activation-sandbox:x") == (
        "--sandbox docker: docker cannot run activation-sandbox:x: "
        "Error: No such image: activation-sandbox:x"
    )


NODES = {"a": None, "b": None}


def test_trials_take_the_freest_node_and_wait_for_a_slot() -> None:
    """Two nodes of two and one runs at once: the third trial waits until one is given
    back; a lost node takes no more, and with none left the trial is an infrastructure
    error (run again by the run's slots, never a vote)."""

    async def scenario() -> list[str]:
        slots = NodeSlots()
        slots.add(Node("a", "10.0.0.5 (a)", 2))
        slots.add(Node("b", "10.0.0.6 (b)", 1))
        taken = [await slots.take(NODES) for _ in range(3)]
        with anyio.move_on_after(0.2) as waited:
            await slots.take(NODES)
        assert waited.cancelled_caught
        await slots.give("b", lost=True)
        await slots.give("a")
        taken.append(await slots.take(NODES))
        await slots.give("a", lost=True)
        with pytest.raises(InfrastructureFailure) as none:
            await slots.take(NODES)
        assert str(none.value) == "no node of the Ray cluster is left"
        return taken

    assert anyio.run(scenario) == ["a", "a", "b", "a"]


PINNED = agent_named("claude-code").version
IN_IMAGE = "/opt/activation/agents/claude-code/node_modules/@anthropic-ai/claude-code/cli.js"
HELD = NodeNeeds(activation.__version__, "claude-code", IN_IMAGE, f"{PINNED} (Claude Code)",
                 "docker", "activation-sandbox:held", held=True)  # fmt: skip


def daemon(folder: Path, labels: dict[str, str] | None) -> None:
    """A `docker` first on PATH whose daemon has an image of `labels` (None: no such
    image), and a `node` beside it for the relay."""
    answer = (
        "echo 'Error: No such image: activation-sandbox:held' >&2; exit 1"
        if labels is None
        else f"case \"$4\" in *json*) echo '{orjson.dumps(labels).decode()}';; *) echo 1;; esac"
    )
    folder.mkdir()
    (folder / "docker").write_text(f"#!/bin/sh\n{answer}\n")
    (folder / "node").write_text("#!/bin/sh\n")
    for tool in ("docker", "node"):
        (folder / tool).chmod(0o755)


def image_of(version: str, executable: str = IN_IMAGE) -> dict[str, str]:
    return {"activation.agent.claude-code.version": version,
            "activation.agent.claude-code.executable": executable}  # fmt: skip


def test_a_node_running_the_images_cli_needs_the_image_not_a_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No CLI at the image's path on the node: its daemon's image holding that CLI, at that
    version, is all it needs."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-node-own")
    daemon(tmp_path / "bin", image_of(f"{PINNED} (Claude Code)"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert not Path(IN_IMAGE).exists()
    assert node_problem(HELD) is None


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        (None, "--sandbox docker: docker cannot run activation-sandbox:held: "
               "Error: No such image: activation-sandbox:held"),
        ({"activation.node": "/usr/local/bin/node"},
         "--image activation-sandbox:held holds no Claude Code CLI there"),
        (image_of("2.0.1 (Claude Code)"),
         f"--image activation-sandbox:held holds Claude Code 2.0.1 (Claude Code), not the "
         f"pinned {PINNED}: build it again with `activation sandbox build --agent claude-code`"),
        (image_of(f"{PINNED} (Claude Code)", "/opt/claude"),
         f"--image activation-sandbox:held holds Claude Code {PINNED} (Claude Code) at "
         f"/opt/claude there, not Claude Code {PINNED} (Claude Code) at {IN_IMAGE}"),
    ],
)  # fmt: skip
def test_a_node_whose_image_lacks_the_runs_cli_says_what_it_holds(
    labels: dict[str, str] | None, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The image missing on the node's daemon, holding no CLI of the agent, another
    version, or the CLI elsewhere: one line each."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-node-own")
    daemon(tmp_path / "bin", labels)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert node_problem(HELD) == problem
