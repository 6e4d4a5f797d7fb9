"""Agent runs on a Ray cluster (`--executor ray`): this process stays the orchestrator, each
trial runs on a node of the cluster.

Entered, the backend connects to the cluster and checks every node that offers the agent
(the custom resource `agent:<name>`) before the first trial: the same version of this
package, the agent CLI at the same path and version, a key for the agent's API in the
node's own environment, and the run's sandbox (bubblewrap runs there, or the docker daemon
answers and has the image). A run in docker that starts the CLI its image holds
(sandbox_image.py) needs no CLI on the node: the node's image holds that CLI, by its
labels. Then each node gets one actor for the run's cell, which builds the stage's backend
there once from the spec and inputs (never this process's environment: the node reads its
own key) and keeps it, entered, until the cell ends: a trial is one call to a node's
actor, which runs it in the node's sandbox (`--sandbox`, as a local run) and sends back the
trial and its transcript, written here where a local run writes it. Only API addresses (no
key, no credentials) travel to a node.

This process spreads the trials over the nodes, at most a node's `agent:<name>` count at
once (shared by every cell of the run). A call that a lost node or actor could not finish
is an infrastructure error (`InfrastructureFailure`): the node takes no more trials, and the
run's slots run the trial again, on a node left, and only its last attempt is the trial, so
none is lost or counted twice. Ray's own retries are off for that reason.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, replace
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

import anyio
import ray
import ray.exceptions
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from activation._config import DISTRIBUTION, SANDBOX_IMAGE
from activation._errors import InputError
from activation._models import ErrorClass, Trial, TrialKey
from activation.trials.agent.backend import AgentBackend, transcript_path
from activation.trials.agent.cli import resolve
from activation.trials.agent.sandbox import BWRAP, DOCKER, bwrap_problem
from activation.trials.agent.sandbox_image import carried, from_image, image_labels
from activation.trials.agents import agent_named
from activation.trials.backend import Round, Wrapper
from activation.trials.errors import InfrastructureFailure
from activation.trials.providers import provider_named

if TYPE_CHECKING:
    from activation.trials.agents.record import Agent

CONNECT_SECONDS = 5.0
"""How long the cluster's address may take to accept a connection."""
CHECK_SECONDS = 120.0
"""How long the per-node check may take (each node starts a worker and runs the CLI once)."""
OPEN_SECONDS = 600.0
"""How long a node's actor may take to build and enter its backend (copies, the canary)."""
Build = Callable[..., AgentBackend]
"""How a node builds the stage's backend: `build(transcripts_dir, env=...)`."""


def agent_resource(agent: str) -> str:
    """The custom resource a node declares for each agent CLI it has (`ray start
    --resources '{"agent:claude-code": 4}'`): how many of its runs the node takes at once."""
    return f"agent:{agent}"


@dataclass(frozen=True)
class NodeNeeds:
    """What a node must have to run the agent's trials, as this machine has it."""

    package: str
    agent: str
    executable: str
    version: str | None
    sandbox: str
    image: str | None = None
    held: bool = False
    """The run starts the CLI its image holds (sandbox_image.py), not a CLI of the node's."""


@dataclass(frozen=True)
class Node:
    """A live node that offers the agent: Ray's id, where it is, its runs at once."""

    id: str
    where: str
    slots: int


def installed_version() -> str:
    """This package's version, read from its root module, which is loaded before any of its
    modules (not imported from it: the root's lazy names reach the commands layer)."""
    version: str = sys.modules["activation"].__version__
    return version


def node_problem(needs: NodeNeeds) -> str | None:
    """What this node lacks (None: it can run the trials). Runs on the node."""
    if installed_version() != needs.package:
        return f"activation {installed_version()} is installed, not {needs.package}"
    record = agent_named(needs.agent)
    variables = [name for p in record.providers for name in provider_named(p).key_variables]
    if not any(os.environ.get(name) for name in variables):
        return f"no key in its environment ({' or '.join(variables)})"
    if needs.held:
        return sandbox_problem(needs.sandbox, needs.image) or held_problem(needs, record)
    try:
        version = record.adapter().version(resolve(needs.executable))
    except InputError as error:
        return str(error)
    if needs.version is not None and version != needs.version:
        return f"{needs.executable} is {record.title} {version}, not {needs.version}"
    return sandbox_problem(needs.sandbox, needs.image)


def sandbox_problem(sandbox: str, image: str | None) -> str | None:
    """Why the run's sandbox cannot confine a run on this node (None: it can, or the run
    is on the host), as `--sandbox` says it of this machine."""
    if sandbox == BWRAP:
        problem = bwrap_problem()
    elif sandbox == DOCKER:
        from activation.trials.agent.sandbox_docker import docker_problem

        problem = docker_problem(image or SANDBOX_IMAGE)
    else:
        return None
    return None if problem is None else f"--sandbox {sandbox}: {problem}"


def held_problem(needs: NodeNeeds, record: Agent) -> str | None:
    """Why the node's image does not hold the CLI the run starts, by its labels on the
    node's daemon (None: it holds that one, at that path and version)."""
    image = needs.image or SANDBOX_IMAGE
    try:
        held = carried(image, image_labels(image), record)
    except InputError as error:
        return str(error)
    if held is None:
        return f"--image {image} holds no {record.title} CLI there"
    if (held.executable, held.version) != (needs.executable, needs.version):
        return (
            f"--image {image} holds {record.label(held.version)} at {held.executable} there, "
            f"not {record.label(needs.version)} at {needs.executable}"
        )
    return None


@contextmanager
def addresses(urls: Mapping[str, str]) -> Iterator[None]:
    """The API addresses in this process's environment while it serves the run (the
    agent's runs read them, and so do the clients of a judge), as they were afterwards."""
    before = {name: os.environ.get(name) for name in urls}
    os.environ.update(urls)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class NodeRunner:
    """A Ray actor on one node for one cell of a run: the stage's backend, built and
    entered there once (`open`), in a folder of its own, with the node's environment and
    the API addresses; it runs the trials it is sent, as many at once as it is sent, and
    leaves the backend (its copies, its folder) at `close`."""

    def __init__(self, build: Build, urls: Mapping[str, str]) -> None:
        self._build = build
        self._urls = dict(urls)
        self._stack = AsyncExitStack()
        self._backend: AgentBackend | None = None
        self._running = 0
        self._idle: anyio.Event | None = None
        """Set while no run is here (made in the actor's event loop, at `open`)."""

    async def open(self) -> None:
        self._idle = anyio.Event()
        self._idle.set()
        folder = Path(tempfile.mkdtemp(prefix="activation-ray-"))
        self._stack.callback(shutil.rmtree, folder, ignore_errors=True)
        self._stack.enter_context(addresses(self._urls))
        backend = self._build(folder, env=dict(os.environ))
        self._backend = await self._stack.enter_async_context(backend)

    async def run(self, key: TrialKey) -> tuple[Trial, bytes | None]:
        """The trial and its transcript's bytes (None when the run wrote none); every
        trial the infrastructure error when the node's canary failed, as a local run's."""
        assert self._backend is not None and self._idle is not None
        failure = self._backend.canary_failure
        if failure is not None:
            return key.failed(failure, kind=ErrorClass.INFRASTRUCTURE), None
        if not self._running:
            self._idle = anyio.Event()
        self._running += 1
        try:
            trial = await self._backend.run(key)
        finally:
            self._running -= 1
            if not self._running:
                self._idle.set()
        written = Path(trial.transcript) if trial.transcript else None
        if written is None or not written.is_file():
            return trial, None
        transcript = written.read_bytes()
        written.unlink()
        return trial, transcript

    async def close(self) -> None:
        """Once the runs still here have ended (a cancelled one cleans up: its container,
        its folders), the backend is left."""
        if self._idle is not None:
            await self._idle.wait()
        await self._stack.aclose()


class NodeSlots:
    """The runs at once each node takes, shared by every backend (cell) of this process on
    the cluster: a trial takes a slot of the node with the most free, and waits when none
    is; a lost node takes no more."""

    def __init__(self) -> None:
        self.free: dict[str, int] = {}
        self.lost: set[str] = set()
        self._changed = anyio.Condition()

    def add(self, node: Node) -> None:
        self.free.setdefault(node.id, node.slots)

    async def take(self, nodes: Mapping[str, Any]) -> str:
        """A free slot of one of `nodes` (InfrastructureFailure: none of them is left)."""
        async with self._changed:
            while True:
                live = {node: self.free[node] for node in nodes if node not in self.lost}
                if not live:
                    raise InfrastructureFailure("no node of the Ray cluster is left")
                node = max(live, key=live.__getitem__)
                if live[node] > 0:
                    self.free[node] -= 1
                    return node
                await self._changed.wait()

    async def give(self, node: str, lost: bool = False) -> None:
        async with self._changed:
            self.free[node] += 1
            if lost:
                self.lost.add(node)
            self._changed.notify_all()


_slots: dict[str, NodeSlots] = {}
"""Per agent resource, its nodes' slots, while this process is connected."""


class RayBackend(Wrapper[AgentBackend]):
    """The stage's backend with each trial a call to a node's actor; the inner backend,
    entered here, gives the cache keys and the records of each variant's skills."""

    def __init__(self, inner: AgentBackend, address: str) -> None:
        super().__init__(inner)
        self.address = address
        self._build = inner.remote()
        self._urls = inner.api_urls()
        if any(urlsplit(url).username or urlsplit(url).password for url in self._urls.values()):
            raise InputError(
                "an API address with credentials in it never travels to a Ray node: set it "
                "in each node's own environment and leave it out of this one"
            )
        self._actors: dict[str, Any] = {}
        self._slots: NodeSlots | None = None

    async def __aenter__(self) -> Self:
        connect(self.address)
        try:
            resource = agent_resource(self.inner.agent.name)
            settings = self.inner.settings
            held = from_image(settings, self.inner.agent) is not None
            needs = NodeNeeds(installed_version(), self.inner.agent.name, self.inner.executable,
                              settings.version, settings.sandbox, settings.image, held)  # fmt: skip
            nodes = live_nodes(self.address, resource)
            check_nodes(nodes, needs)
            await super().__aenter__()
        except BaseException:
            disconnect()
            raise
        try:
            self._slots = _slots.setdefault(resource, NodeSlots())
            for node in nodes:
                self._slots.add(node)
            await self._open(nodes)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def _open(self, nodes: list[Node]) -> None:
        """Each node's actor, its backend built and entered there (InputError naming the
        first node where that failed)."""
        runner = ray.remote(NodeRunner)
        for node in nodes:
            self._actors[node.id] = runner.options(
                num_cpus=0, max_restarts=0, max_task_retries=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node.id, soft=False),
            ).remote(*self.opening())  # fmt: skip
        opened = [self._actors[node.id].open.remote() for node in nodes]
        for node, ref in zip(nodes, opened, strict=True):
            try:
                with anyio.fail_after(OPEN_SECONDS):
                    await ref
            except ray.exceptions.RayTaskError as error:
                said = str(error.cause).strip().splitlines() or [type(error.cause).__name__]
                raise InputError(f"the Ray node at {node.where} could not prepare the runs: "
                                 f"{said[0]}") from None  # fmt: skip
            except (ray.exceptions.RayError, TimeoutError) as error:
                raise InputError(f"the Ray node at {node.where} could not prepare the runs: "
                                 f"{type(error).__name__}") from None  # fmt: skip

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self._close()
            await super().__aexit__(*exc_info)
        finally:
            disconnect()

    async def _close(self) -> None:
        """Each actor's backend left on its node (its copies and folder gone), the actor
        ended; a lost one has nothing left to leave."""
        actors, self._actors = self._actors, {}
        for actor in actors.values():
            try:
                with anyio.move_on_after(OPEN_SECONDS, shield=True):
                    await actor.close.remote()
            except ray.exceptions.RayError:
                pass
            ray.kill(actor)

    def cache_key(self, key: TrialKey) -> str:
        return self.inner.cache_key(key)

    async def run_round(self, round: Round) -> None:
        await round.each(self.run)

    def opening(self) -> tuple[Build, Mapping[str, str]]:
        """What each node's actor is given: how to build the backend and the API
        addresses; never a key."""
        return self._build, self._urls

    def arguments(self, key: TrialKey) -> tuple[TrialKey]:
        """What a trial's call carries to its node: the trial alone."""
        return (key,)

    async def run(self, key: TrialKey) -> Trial:
        """The trial as a node ran it, its transcript written here; a lost node or actor
        is an InfrastructureFailure, and the node takes no more trials."""
        assert self._slots is not None
        node = await self._slots.take(self._actors)
        lost = False
        try:
            ref = self._actors[node].run.remote(*self.arguments(key))
            try:
                done: tuple[Trial, bytes | None] = await ref
            except anyio.get_cancelled_exc_class():
                ray.cancel(ref)
                raise
            except ray.exceptions.RayTaskError:  # raised in the trial: as it would be here
                raise
            except ray.exceptions.RayError as error:
                lost = True
                raise InfrastructureFailure(
                    f"the Ray node's actor was lost: {type(error).__name__}"
                ) from None
        finally:
            await self._slots.give(node, lost)
        trial, transcript = done
        if transcript is None:
            return replace(trial, transcript=None)
        local = transcript_path(self.inner.transcripts_dir, key)
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(transcript)
        return replace(trial, transcript=str(local))


_drivers: list[str] = []
"""The cluster address of each backend of this process that is connected (a run of several
cells enters one backend a cell, and they share the one connection)."""


def connect(address: str) -> None:
    """This process as the cluster's driver, quietly; InputError when none answers (a
    `HOST:PORT` is tried first: Ray itself would retry a dead address for a minute)."""
    if _drivers:
        if address != _drivers[0]:
            raise InputError(f"one run uses one Ray cluster, not {_drivers[0]} and {address}")
        _drivers.append(address)
        return
    if address.startswith("ray://") and find_spec("grpc") is None:
        raise InputError(
            f"--executor {address} needs Ray Client on this machine: "
            f"pip install '{DISTRIBUTION}[ray]'"
        )
    reachable(address)
    try:
        ray.init(address=address, namespace="activation", logging_level=logging.ERROR,
                 log_to_driver=False)  # fmt: skip
    except (ConnectionError, RuntimeError, ValueError) as error:
        ray.shutdown()  # a half-made Ray Client connection would break this process's next run
        raise InputError(f"could not reach the Ray cluster at {address}: {reason(error)}") from None
    _drivers.append(address)


def reason(error: Exception) -> str:
    """Why a connection failed, in a line: its first line and, for a server's traceback (Ray
    Client's "Initialization failure from server:"), the exception it ends with."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} {lines[-1]}"


def disconnect() -> None:
    """The last connected backend of this process gone, the connection goes too."""
    _drivers.pop()
    if not _drivers:
        _slots.clear()
        ray.shutdown()


def reachable(address: str) -> None:
    """InputError unless something listens at the address's HOST:PORT (`auto` has none)."""
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.hostname is None or port is None:
        return
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise InputError(f"could not reach the Ray cluster at {address}: {error}") from None


def live_nodes(address: str, resource: str) -> list[Node]:
    """Every live node that offers `resource` (InputError, one line, when none does)."""
    every: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    nodes = [
        Node(
            node["NodeID"],
            f"{node['NodeManagerAddress']} ({node['NodeID'][:8]})",
            int(node["Resources"][resource]),
        )
        for node in every
        if node["Alive"] and node["Resources"].get(resource, 0) >= 1
    ]
    if not nodes:
        raise InputError(
            f"no node of the Ray cluster at {address} offers {resource}: start each worker "
            f"with ray start --address=HEAD --resources='{{\"{resource}\": N}}'"
        )
    return nodes


def check_nodes(nodes: list[Node], needs: NodeNeeds) -> None:
    """Every node can run the trials (InputError, one line, naming the first that cannot)."""
    check = ray.remote(node_problem)
    refs = [
        check.options(
            num_cpus=0,
            max_retries=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node.id, soft=False),
        ).remote(needs)
        for node in nodes
    ]
    try:
        problems = ray.get(refs, timeout=CHECK_SECONDS)
    except ray.exceptions.RayError as error:
        failed = type(error).__name__
        raise InputError(f"could not check the Ray cluster's nodes: {failed}") from None
    for node, problem in zip(nodes, problems, strict=True):
        if problem is not None:
            raise InputError(f"the Ray node at {node.where} cannot run {needs.agent}: {problem}")
