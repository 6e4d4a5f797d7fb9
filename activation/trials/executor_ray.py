"""Agent runs as Ray tasks (`--executor ray`): this process stays the orchestrator, each
trial runs on a node of the cluster.

Entered, the backend connects to the cluster and checks every node that offers the agent
(the custom resource `agent:<name>`) before the first trial: the same version of this
package, the agent CLI at the same path and version, and a key for the agent's API in the
node's own environment. A trial is a task that builds the stage's backend on the node from
the spec and inputs (never this process's environment: the node reads its own key), runs
the one trial in the node's sandbox (`--sandbox`, as a local run), and sends back the trial
and its transcript, which is written here where a local run writes it. Only API addresses
(no key, no credentials) travel with a task.

A task that a lost node or worker could not finish is an infrastructure error
(`InfrastructureFailure`): the run's slots run the trial again, on any node left, and only
its last attempt is the trial, so none is lost or counted twice. Ray's own retries are off
for that reason.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

import anyio
import ray
import ray.exceptions
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from activation._errors import InputError
from activation._models import Trial, TrialKey
from activation.trials.agent.backend import AgentBackend, transcript_path
from activation.trials.agent.cli import resolve
from activation.trials.agents import agent_named
from activation.trials.backend import Round, Wrapper
from activation.trials.errors import InfrastructureFailure
from activation.trials.providers import provider_named

TRIAL_CPUS = 1
"""CPUs a trial holds on its node: the agent CLI is one process tree, about one core busy
while it works."""
TRIAL_MEMORY = 512 * 2**20
"""Bytes of memory a trial holds on its node (a Node.js CLI and its tools)."""
CONNECT_SECONDS = 5.0
"""How long the cluster's address may take to accept a connection."""
CHECK_SECONDS = 120.0
"""How long the per-node check may take (each node starts a worker and runs the CLI once)."""
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
    try:
        version = record.adapter().version(resolve(needs.executable))
    except InputError as error:
        return str(error)
    if needs.version is not None and version != needs.version:
        return f"{needs.executable} is {record.title} {version}, not {needs.version}"
    return None


def run_on_node(build: Build, key: TrialKey, urls: Mapping[str, str]) -> tuple[Trial, bytes | None]:
    """One trial on the node that runs this task: the backend built and entered in a
    folder of its own, with the node's environment and the API addresses; the trial and its
    transcript's bytes (None when the run wrote none)."""
    return anyio.run(_run_on_node, build, key, urls)


async def _run_on_node(
    build: Build, key: TrialKey, urls: Mapping[str, str]
) -> tuple[Trial, bytes | None]:
    with tempfile.TemporaryDirectory(prefix="activation-ray-") as folder, addresses(urls):
        async with build(Path(folder), env=dict(os.environ)) as backend:
            trial = await backend.run(key)
        written = Path(trial.transcript) if trial.transcript else None
        transcript = written.read_bytes() if written and written.is_file() else None
    return trial, transcript


@contextmanager
def addresses(urls: Mapping[str, str]) -> Iterator[None]:
    """The API addresses in this worker's environment while its one task runs (the agent's
    run reads them, and so do the clients of a judge), as they were afterwards."""
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


class RayBackend(Wrapper[AgentBackend]):
    """The stage's backend with each trial a Ray task; the inner backend, entered here,
    gives the cache keys and the records of each variant's skills."""

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
        self._remote: Any = None

    async def __aenter__(self) -> Self:
        connect(self.address)
        try:
            await super().__aenter__()
            resource = agent_resource(self.inner.agent.name)
            needs = NodeNeeds(installed_version(), self.inner.agent.name,
                              self.inner.executable, self.inner.settings.version)  # fmt: skip
            check_nodes(self.address, resource, needs)
            self._remote = ray.remote(run_on_node).options(
                num_cpus=TRIAL_CPUS, memory=TRIAL_MEMORY, resources={resource: 1},
                max_retries=0,
            )  # fmt: skip
        except BaseException:
            disconnect()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await super().__aexit__(*exc_info)
        finally:
            disconnect()

    def cache_key(self, key: TrialKey) -> str:
        return self.inner.cache_key(key)

    async def run_round(self, round: Round) -> None:
        await round.each(self.run)

    def arguments(self, key: TrialKey) -> tuple[Build, TrialKey, Mapping[str, str]]:
        """What a trial's task carries to its node: how to build the backend, the trial,
        the API addresses; never a key."""
        return self._build, key, self._urls

    async def run(self, key: TrialKey) -> Trial:
        """The trial as its node ran it, its transcript written here; a lost node or worker
        is an InfrastructureFailure."""
        ref = self._remote.remote(*self.arguments(key))
        try:
            done: tuple[Trial, bytes | None] = await ref
        except anyio.get_cancelled_exc_class():
            ray.cancel(ref)
            raise
        except ray.exceptions.RayTaskError:  # raised in the trial: as it would be here
            raise
        except ray.exceptions.RayError as error:
            raise InfrastructureFailure(f"the Ray task was lost: {type(error).__name__}") from None
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
    reachable(address)
    try:
        ray.init(address=address, namespace="activation", logging_level=logging.ERROR,
                 log_to_driver=False)  # fmt: skip
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InputError(f"could not reach the Ray cluster at {address}: {first}") from None
    _drivers.append(address)


def disconnect() -> None:
    """The last connected backend of this process gone, the connection goes too."""
    _drivers.pop()
    if not _drivers:
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


def check_nodes(address: str, resource: str, needs: NodeNeeds) -> None:
    """Every live node that offers `resource` can run the trials (InputError, one line,
    naming the first node that cannot, or saying that none offers it)."""
    every: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    nodes = [node for node in every if node["Alive"] and node["Resources"].get(resource)]
    if not nodes:
        raise InputError(
            f"no node of the Ray cluster at {address} offers {resource}: start each worker "
            f"with ray start --address=HEAD --resources='{{\"{resource}\": N}}'"
        )
    check = ray.remote(node_problem)
    refs = [
        check.options(
            num_cpus=0,
            max_retries=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
        ).remote(needs)
        for node in nodes
    ]
    try:
        problems = ray.get(refs, timeout=CHECK_SECONDS)
    except ray.exceptions.RayError as error:
        failed = type(error).__name__
        raise InputError(f"could not check the Ray cluster's nodes: {failed}") from None
    places = [f"{node['NodeManagerAddress']} ({node['NodeID'][:8]})" for node in nodes]
    for where, problem in zip(places, problems, strict=True):
        if problem is not None:
            raise InputError(f"the Ray node at {where} cannot run {needs.agent}: {problem}")
