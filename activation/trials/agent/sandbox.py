"""Where an agent run happens (`--sandbox`): the seam every agent CLI run goes through.

The backend lays a run out (the adapter's `Launch`) and hands it to the chosen `Sandbox`,
which wraps it for one trial: `host` starts it as it is (the agent is contained only by its
own permission settings), `bwrap` starts the whole CLI under bubblewrap, `docker` in a
container of its own (sandbox_docker.py).

bwrap: only the system folders a CLI needs are bound read-only (`SYSTEM`: /usr and its
/bin, /lib links, and a few files of /etc), with the CLI's install folder and Node; the
run's own folders (workspace, fresh home, temp) are bound writable and the skill copies
read-only; everything else of the host (the user's home, the repository) does not exist
inside. /tmp is private, and the run has its own user, PID, IPC, UTS, cgroup and network
namespaces (`--unshare-all`): its only way out is the relay to the tool's egress proxy
(sandbox_egress.py), which reaches the model API and nothing else. `--die-with-parent`
and the run's process group (the backend stops it) leave nothing behind.

`auto` is docker where a daemon answers with the image, else bwrap where bubblewrap runs
here, else host with a warning; `docker` or `bwrap` where it cannot run is an input error
before any model call: nothing runs unconfined unless the user asked for `host`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import anyio

from activation._errors import InputError
from activation.trials.agent.adapter import Launch
from activation.trials.agent.sandbox_egress import (
    RELAY,
    THEN,
    Egress,
    Target,
    hosts_file,
    targets,
)

AUTO = "auto"
BWRAP = "bwrap"
DOCKER = "docker"
HOST = "host"
SANDBOXES = (AUTO, DOCKER, BWRAP, HOST)
"""What `--sandbox` takes."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The system folders bound read-only (or made the same links as on the host)."""
SYSTEM_FILES = (
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/ld.so.cache",
)
"""The pieces of /etc a CLI reads (TLS roots, users, time zone, the loader's cache)."""
SOCKETS = "/tmp"
"""Where the egress sockets go: a short path, as a unix socket's is at most 108 bytes
(a run's own folder, under a long TMPDIR, can be longer)."""
HOST_NOTE = (
    "--sandbox host: the agent runs on this machine as you, its reads and writes contained "
    "only by its own settings"
)
_PROBE_TIMEOUT = 10.0
_said: set[str] = set()


@dataclass(frozen=True)
class View:
    """What one run may see: the folders it writes in (its workspace, home and temp), the
    ones it reads (the skill copies, the CLI's install folder) and where it starts."""

    cwd: Path
    writable: tuple[Path, ...]
    readable: tuple[Path, ...]


class Confined(Protocol):
    """One trial inside its sandbox."""

    def wrap(self, launch: Launch) -> Launch:
        """The launch that starts `launch` inside the sandbox."""
        ...

    @property
    def over_budget(self) -> str | None:
        """The trial's error when it sent more requests than its budget."""
        ...

    def never_started(self, returncode: int | None, stderr: str) -> str | None:
        """Why the sandbox never started the run, when how it ended says so (`returncode`,
        None when the tool ended it; its `stderr`): an infrastructure error, retried."""
        ...

    @property
    def node(self) -> str:
        """The Node inside the sandbox, by its path there: what starts a shipped MCP server
        (mcp.py), as the run's agent CLI does."""
        ...


class Sandbox(Protocol):
    name: str

    def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AbstractAsyncContextManager[Confined]:
        """One trial's confinement, for as long as its run goes on: `urls` are the API's
        base URLs (variable -> URL) the run may reach, `budget` its requests, `base` a
        folder of the run's own for the sandbox's files."""
        ...


@dataclass(frozen=True)
class Unconfined:
    """A run on the host, as the adapter laid it out."""

    over_budget: str | None = None

    def wrap(self, launch: Launch) -> Launch:
        return launch

    @property
    def node(self) -> str:
        return str(host_node())

    def never_started(self, returncode: int | None, stderr: str) -> str | None:
        return None


class Host:
    """Today's runs, named: the CLI as its adapter launches it, contained only by its own
    settings."""

    name = HOST

    def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AbstractAsyncContextManager[Confined]:
        return nullcontext(Unconfined())


def host_node() -> Path:
    """This machine's Node by its real path: what bwrap binds, and docker mounts where the
    image has none."""
    return Path(shutil.which("node") or "node").resolve()


def install_folder(executable: Path) -> Path:
    """The folder a CLI was installed in: above its topmost `node_modules` (an npm prefix),
    else the executable's own folder."""
    parts = executable.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules")])
    return executable.parent


def system_binds(paths: Sequence[str] = (*SYSTEM, *SYSTEM_FILES)) -> list[str]:
    """bwrap's arguments for the system folders as this host has them: a link is made the
    same link, a folder or file bound read-only, a missing one left out."""
    binds: list[str] = []
    for path in paths:
        if Path(path).is_symlink():
            binds += ["--symlink", str(Path(path).readlink()), path]
        elif Path(path).exists():
            binds += ["--ro-bind", path, path]
    return binds


def bwrap_argv(
    bwrap: str,
    node: str,
    launch: Sequence[str],
    view: View,
    routes: Sequence[tuple[Target, Path]],
    hosts: Path,
    system: Sequence[str],
) -> list[str]:
    """The command line that runs `launch` (its executable by its real path) under
    bubblewrap, behind the relay to `routes` (each API target and its socket)."""
    argv = [bwrap, "--die-with-parent", "--unshare-all", *system]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for folder in view.readable:
        argv += ["--ro-bind", str(folder), str(folder)]
    for folder in view.writable:
        argv += ["--bind", str(folder), str(folder)]
    for _target, socket in routes:
        argv += ["--bind", str(socket), str(socket)]
    argv += ["--ro-bind", str(hosts), "/etc/hosts", "--chdir", str(view.cwd)]
    if any(target.port < 1024 for target, _socket in routes):
        argv += ["--cap-add", "CAP_NET_BIND_SERVICE"]  # the API's own port, 443
    relay = [f"{target.port}={socket}" for target, socket in routes]
    return [*argv, node, "-e", RELAY, *relay, THEN, *launch]


@dataclass(frozen=True)
class Relayed:
    """One confined trial whose requests go through `egress`, by the relay that Node runs
    in front of the CLI."""

    view: View
    egress: Egress

    @property
    def over_budget(self) -> str | None:
        return self.egress.over_budget

    def never_started(self, returncode: int | None, stderr: str) -> str | None:
        return None

    @property
    def node(self) -> str:
        return str(host_node())

    def located(self, launch: Launch) -> tuple[Path, Path]:
        """The CLI's executable and Node, by their real paths."""
        return Path(launch.argv[0]).resolve(), host_node()

    def seeing(self, *paths: Path) -> View:
        """The trial's view, `paths` readable too."""
        return replace(self.view, readable=tuple(dict.fromkeys((*self.view.readable, *paths))))


@dataclass(frozen=True)
class Bubblewrapped(Relayed):
    """One trial under bubblewrap."""

    hosts: Path

    def wrap(self, launch: Launch) -> Launch:
        executable, node = self.located(launch)
        view = self.seeing(install_folder(executable), node.parent)
        argv = bwrap_argv(
            shutil.which(BWRAP) or BWRAP,
            str(node),
            [str(executable), *launch.argv[1:]],
            view,
            self.egress.routes,
            self.hosts,
            system_binds(),
        )
        return replace(launch, argv=argv)


class Bwrap:
    name = BWRAP

    @asynccontextmanager
    async def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AsyncIterator[Confined]:
        hosts = base / "hosts"
        hosts.write_text(hosts_file(targets(urls)), encoding="utf-8")
        async with serving(urls, budget) as egress:
            yield Bubblewrapped(view, egress, hosts)


def egress_prefix(pid: int) -> str:
    """The name of a trial's socket folder starts with the process's id: whose it is."""
    return f"activation-egress-{pid}-"


@asynccontextmanager
async def serving(urls: Mapping[str, str], budget: int) -> AsyncIterator[Egress]:
    """One trial's egress, listening on a socket per API target (in a folder of this
    process's own) for as long as the trial goes on; the folder goes with it."""
    sockets = Path(tempfile.mkdtemp(prefix=egress_prefix(os.getpid()), dir=SOCKETS))
    try:
        routes = tuple((t, sockets / f"api-{t.port}.sock") for t in targets(urls))
        egress = Egress(routes, budget)
        async with anyio.create_task_group() as group:
            await egress.serve(group)
            try:
                yield egress
            finally:
                group.cancel_scope.cancel()
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


SANDBOX_KINDS: Mapping[str, Sandbox] = {HOST: Host(), BWRAP: Bwrap()}


def sandbox_named(name: str, image: str | None = None) -> Sandbox:
    """The sandbox `name` (a settled one); `image`: the container's (docker's default)."""
    if name == DOCKER:
        from activation.trials.agent.sandbox_docker import IMAGE, Docker

        return Docker(image or IMAGE)
    return SANDBOX_KINDS[name]


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot confine a run here (None: it can): missing, refused by the
    kernel (no user namespaces), or no Node for the relay to the API."""
    found = shutil.which(BWRAP)
    if found is None:
        return "bubblewrap (bwrap) is not on PATH"
    probe = [found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]
    return probed(probe, BWRAP, "bwrap cannot run here")


def probed(probe: list[str], name: str, failing: str) -> str | None:
    """Why a sandbox cannot run (None: it can): its `probe` could not start (`name` cannot
    start), or failed (`failing`, and the last line it said); or no Node for the relay."""
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=_PROBE_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as error:
        return f"{name} cannot start: {error}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"{failing}: {said}"
    if shutil.which("node") is None:
        return "Node (node) is not on PATH, and the sandbox's relay to the API runs on it"
    return None


def settle(asked: str, works: bool, image: str | None = None) -> str:
    """The sandbox a run gets for `--sandbox asked`: `auto` is docker if its daemon answers
    and has the image (`image`, else the default), else bwrap if it runs here, else host
    with a warning; `docker` or `bwrap` that cannot run is an InputError. `works`: the agent
    writes files (Stage C), so a run on the host is said to be contained only by its own
    settings. A run in docker first removes the containers crashed runs left."""
    if asked not in SANDBOXES:
        raise InputError(f"--sandbox must be one of {', '.join(SANDBOXES)}; got {asked!r}")
    if asked == HOST:
        if works:
            say_once(HOST_NOTE)
        return HOST
    problems = []
    if asked in (AUTO, DOCKER):
        from activation.trials.agent.sandbox_docker import IMAGE, docker_problem, reap

        problem = docker_problem(image or IMAGE)
        if problem is None:
            reap()
            return DOCKER
        problems.append(problem)
    if asked in (AUTO, BWRAP):
        problem = bwrap_problem()
        if problem is None:
            return BWRAP
        problems.append(problem)
    if asked != AUTO:
        raise InputError(f"--sandbox {asked}: {problems[-1]}; nothing runs unconfined unless you "
                         "pass --sandbox host")  # fmt: skip
    say_once(f"--sandbox auto: {'; '.join(problems)}, so the agent runs on the host, "
             "contained only by its own settings (pass --sandbox host to choose that)")  # fmt: skip
    return HOST


def say_once(warning: str) -> None:
    """A warning about where runs happen, once per process however many cells say it."""
    if warning not in _said:
        _said.add(warning)
        sys.stderr.write(f"warning: {warning}\n")
