"""A container per trial (`--sandbox docker`): the whole agent CLI in a throwaway container.

The image gives the system (a Debian userland with its TLS roots, curl and ripgrep, built
once by .ci/sandbox-image as docs/sandboxes.md says, or any image `--image` names); the
run's own folders, the skill copies, the CLI's install folder and Node are mounted at their
host paths, so the adapter's command line runs unchanged (the install folder also at the
path the CLI was named by, when that goes through a link: a CLI's own settings may name its
files that way), unless the image holds them (`activation sandbox build`, sandbox_image.py):
then the CLI and Node inside run, and nothing of theirs is mounted. Each trial's container
has no network (`--network none`: no address of the host's, no route out), a non-root user,
no capabilities, no new privileges, a read-only root filesystem but the mounted workspace,
fresh home and temp, and CPU, memory and PID limits. Its only way out is the same relay as
bwrap's, to the tool's egress proxy over a mounted unix socket (sandbox_egress.py). Inside,
an agent's own sandbox is off where it cannot start (Codex's): the container is the boundary.

Every container is labelled with the id of the process that started it: stopping a trial
removes its container (`docker rm -f`, also after a signal), and a run that starts removes
the containers of processes that are gone (a crash, a SIGKILL).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import anyio

from activation._config import SANDBOX_IMAGE
from activation._errors import InputError
from activation.trials.agent.adapter import Launch
from activation.trials.agent.sandbox import (
    AUTO,
    DOCKER,
    Confined,
    Relayed,
    View,
    install_folder,
    probed,
    serving,
)
from activation.trials.agent.sandbox_egress import RELAY, THEN, Target, hosts_file, targets
from activation.trials.agent.sandbox_image import NODE_LABEL, executables, image_labels

IMAGE = SANDBOX_IMAGE
"""The image `--sandbox docker` runs by default (.ci/sandbox-image builds it)."""
LABEL = "activation.pid"
"""The label each container carries: the id of the process that started it."""
AGENT_UID = 1000
"""The container's user when the tool runs as root (Claude Code refuses some modes as
root); otherwise the container runs as the tool's own user, who owns the run's folders."""
CPUS = "2"
MEMORY = "4g"
PIDS = 512
NOT_STARTED = (125, 126, 127)
"""`docker run`'s own exit codes: docker could not run the container (no daemon, a mount
or an image it refused), or the command in it could not be run or found."""
DOCKERFILE = "Dockerfile"
"""A suite's own image: this file in the suite's folder, built FROM the base image (its
build argument BASE) and used for that suite's runs in docker."""
SUITE_IMAGE = "activation-suite"
"""The name of a suite's built images, each tagged by the digest of what it is built from."""
CLIENT_VARIABLES = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
                    "DOCKER_TLS_VERIFY")  # fmt: skip
"""What tells the docker client which daemon to ask (a rootless or remote one): the run's
`docker run` gets them from the tool's environment, as the probes did; the container not."""
_PROBE_TIMEOUT = 20.0


@dataclass(frozen=True)
class Container:
    """One trial's container: its name, image and user, the files it gets as /etc's hosts,
    passwd and group, and what the image holds (`activation sandbox build`): its Node
    (None: the host's is mounted) and the agent CLIs' executables."""

    name: str
    image: str
    uid: int
    gid: int
    etc: Mapping[str, Path]
    node: str | None = None
    carried: frozenset[str] = frozenset()


def docker_argv(
    docker: str,
    container: Container,
    pid: int,
    node: str,
    launch: Sequence[str],
    view: View,
    routes: Sequence[tuple[Target, Path]],
    env: Iterable[str],
    aliases: Iterable[tuple[Path, Path]] = (),
) -> list[str]:
    """The command line that runs `launch` (its executable by its real path) in a container
    of its own, behind the relay to `routes`; the environment's variables are passed by
    name only (`-e NAME`: their values, keys among them, never on a command line).
    `aliases`: folders also mounted read-only at another path (real path, path)."""
    argv = [docker, "run", "--rm", "-i", "--name", container.name, "--label", f"{LABEL}={pid}"]
    argv += ["--network", "none", "--user", f"{container.uid}:{container.gid}"]
    argv += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only"]
    argv += ["--tmpfs", "/tmp", "--cpus", CPUS, "--memory", MEMORY, "--pids-limit", str(PIDS)]
    for source, folder in (*((f, f) for f in view.readable), *aliases):
        argv += ["--mount", f"type=bind,src={source},dst={folder},readonly"]
    for folder in view.writable:
        argv += ["--mount", f"type=bind,src={folder},dst={folder}"]
    for _target, socket in routes:
        argv += ["--mount", f"type=bind,src={socket},dst={socket}"]
    for name, file in container.etc.items():
        argv += ["--mount", f"type=bind,src={file},dst=/etc/{name},readonly"]
    for variable in env:
        argv += ["-e", variable]
    relay = [f"{target.port}={socket}" for target, socket in routes]
    argv += ["--workdir", str(view.cwd), container.image]
    return [*argv, node, "-e", RELAY, *relay, THEN, *launch]


def client_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The docker client's own variables of `environ` (CLIENT_VARIABLES)."""
    return {name: environ[name] for name in CLIENT_VARIABLES if name in environ}


def users(uid: int, gid: int, home: Path) -> dict[str, str]:
    """The container's /etc/passwd and /etc/group: root, and the run's user at its home."""
    return {
        "passwd": f"root:x:0:0:root:/root:/bin/bash\nagent:x:{uid}:{gid}:agent:{home}:/bin/bash\n",
        "group": f"root:x:0:\nagent:x:{gid}:\n",
    }


def hand_over(view: View, sockets: Iterable[Path], uid: int, gid: int) -> None:
    """Let the container's user (when it is not the tool's) write its folders and reach its
    sockets, and read the skill copies' folder (a temp folder of the tool's, 0700)."""
    if (uid, gid) == (os.getuid(), os.getgid()):
        return
    for folder in view.writable:
        for path in (folder, *folder.rglob("*")):
            os.chown(path, uid, gid, follow_symlinks=False)
    for socket in sockets:
        os.chown(socket, uid, gid)
    for folder in view.readable:
        folder.chmod(folder.stat().st_mode | 0o055)


@dataclass(frozen=True)
class Contained(Relayed):
    """One trial in its container."""

    container: Container

    @property
    def node(self) -> str:
        """The image's Node where it has one (the host's is then not mounted), else the
        host's, mounted at its own path."""
        return self.container.node or super().node

    def wrap(self, launch: Launch) -> Launch:
        view, node, command, aliases = self.mounted(launch)
        uid, gid = self.container.uid, self.container.gid
        hand_over(self.view, (socket for _t, socket in self.egress.routes), uid, gid)
        argv = docker_argv(
            shutil.which(DOCKER) or DOCKER,
            self.container,
            os.getpid(),
            node,
            [command, *launch.argv[1:]],
            view,
            self.egress.routes,
            launch.env,
            aliases,
        )
        return replace(launch, argv=argv, env={**launch.env, **client_env(os.environ)})

    def mounted(self, launch: Launch) -> tuple[View, str, str, list[tuple[Path, Path]]]:
        """The trial's view, the Node of its relay, the command it starts and the folders
        also mounted at another path. A CLI the image holds runs as it is, and the host's
        Node is the image's: nothing of theirs is mounted. Any other CLI's install folder is
        mounted (also at the path it was named by, when that goes through a link), and the
        host's Node when the image has none."""
        inside = self.container.node
        executable, node = self.located(launch)
        if inside is not None and launch.argv[0] in self.container.carried:
            return self.view, inside, launch.argv[0], []
        if inside is not None and executable == node:
            return self.view, inside, inside, []
        installed = install_folder(executable)
        named = install_folder(Path(launch.argv[0]).absolute())
        aliases = [] if named == installed else [(installed, named)]
        view = self.seeing(installed) if inside else self.seeing(installed, node)
        return view, inside or str(node), str(executable), aliases

    def never_started(self, returncode: int | None, stderr: str) -> str | None:
        """A container that did not start, in docker's own words: its `docker:` line, else
        the last line it said."""
        if returncode not in NOT_STARTED:
            return None
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        said = [line for line in lines if line.startswith("docker: ")] or lines or ["no output"]
        return f"the docker sandbox did not start: docker run exited {returncode}: {said[-1]}"


class Docker:
    name = DOCKER

    def __init__(self, image: str = IMAGE) -> None:
        self.image = image

    @cached_property
    def labels(self) -> dict[str, str]:
        """The image's labels, asked once: what of the CLIs and Node it holds."""
        return image_labels(self.image)

    @asynccontextmanager
    async def confined(
        self, view: View, urls: Mapping[str, str], budget: int, base: Path
    ) -> AsyncIterator[Confined]:
        uid, gid = (os.getuid(), os.getgid()) if os.getuid() else (AGENT_UID, AGENT_UID)
        home = next((f for f in view.writable if f.name == "home"), view.cwd)
        files = {"hosts": hosts_file(targets(urls)), **users(uid, gid, home)}
        for name, text in files.items():
            (base / name).write_text(text, encoding="utf-8")
        name = f"activation-{os.getpid()}-{secrets.token_hex(6)}"
        node, carried = self.labels.get(NODE_LABEL), executables(self.labels)
        container = Container(name, self.image, uid, gid, {n: base / n for n in files}, node,
                              carried)  # fmt: skip
        try:
            async with serving(urls, budget) as egress:
                yield Contained(view, egress, container)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.run_process([DOCKER, "rm", "-f", name], check=False)


def docker_problem(image: str) -> str | None:
    """Why a container cannot hold a run here (None: it can): no docker, no daemon that
    answers, no `image` on it, or no Node for the relay to the API."""
    found = shutil.which(DOCKER)
    if found is None:
        return "docker is not on PATH"
    probe = [found, "image", "inspect", "--format", "{{.Id}}", image]
    return probed(probe, DOCKER, f"docker cannot run {image}")


def orphans(listed: str, alive: Callable[[int], bool]) -> list[str]:
    """The containers of `docker ps` lines (`ID PID`) whose process is gone."""
    return [
        container
        for container, pid in (line.split() for line in listed.splitlines() if line.strip())
        if not alive(int(pid))
    ]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap() -> list[str]:
    """Remove the labelled containers whose process is gone; the ones removed."""
    listing = [DOCKER, "ps", "-a", "--filter", f"label={LABEL}"]
    listing += ["--format", f'{{{{.ID}}}} {{{{.Label "{LABEL}"}}}}']
    listed = subprocess.run(listing, capture_output=True, text=True, timeout=_PROBE_TIMEOUT)
    gone = orphans(listed.stdout, alive)
    if gone:
        subprocess.run([DOCKER, "rm", "-f", *gone], capture_output=True, timeout=_PROBE_TIMEOUT)
    return gone


def suite_image(suite: Path, sandbox: str, image: str) -> str:
    """The image a suite's runs get: `image`, or where the suite's folder has a Dockerfile
    and the runs may go to docker (`auto` or `docker`, a daemon answering with `image`), the
    image built from it FROM `image`, once per Dockerfile, context and base (its tag is
    their digest). A Dockerfile that does not build is an InputError, before any model call."""
    folder = suite if suite.is_dir() else suite.parent
    dockerfile = folder / DOCKERFILE
    if sandbox not in (AUTO, DOCKER) or not dockerfile.is_file() or docker_problem(image):
        return image
    tag = f"{SUITE_IMAGE}:{context_digest(folder, image)}"
    if docker_problem(tag) is None:
        return tag
    build = [DOCKER, "build", "-q", "--build-arg", f"BASE={image}", "-t", tag, str(folder)]
    done = subprocess.run(build, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise InputError(f"{dockerfile} did not build FROM {image}: {said}")
    return tag


def context_digest(folder: Path, base: str) -> str:
    """What a suite's image is built from, as a digest: the base image's name and each file
    of the build context (the suite's folder), by its path and bytes."""
    digest = hashlib.sha256(base.encode())
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(b"\0" + path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
