"""An image that holds the pinned agent CLIs and Node (`activation sandbox build`), and how a
run in docker finds them in it.

The build needs no registry: its context is made here from what this machine already runs
(each CLI's files, found from the executable its flag names, and this machine's Node),
with the tool's own Dockerfile (`agents.Dockerfile`, package data) FROM the base image.
The image's labels say what it holds: Node's path in it, and per agent its CLI's version
(what the CLI said to `--version` when it was built, the pinned one) and executable. A run
with `--image` of such an image starts that executable and that Node inside the container
and mounts nothing of the host's CLI or Node; a CLI of another version than the pinned one
is refused before any model call.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import orjson

from activation._errors import InputError
from activation._models import AgentSettings
from activation.trials.agent.sandbox import DOCKER, install_folder

if TYPE_CHECKING:
    from activation.trials.agents.record import Agent

TEMPLATE = "agents.Dockerfile"
"""The tool's Dockerfile (in this package): the base image, Node and the CLIs' folders."""
NODE = "/usr/local/bin/node"
"""Node in the image: on its PATH, so a CLI's `#!/usr/bin/env node` finds it."""
AGENTS = PurePosixPath("/opt/activation/agents")
"""Each agent's CLI in the image, in a folder of its name."""
NODE_LABEL = "activation.node"
EXECUTABLE = ".executable"
TAG = "activation-sandbox"
"""The name of a built image; its tag names the agents and versions it holds."""
_TIMEOUT = 20.0


def release(version: str) -> str:
    """The release in what a CLI's `--version` said ("2.1.332 (Claude Code)": 2.1.332)."""
    return version.partition(" ")[0]


def version_label(agent: str) -> str:
    return f"activation.agent.{agent}.version"


def executable_label(agent: str) -> str:
    return f"activation.agent.{agent}{EXECUTABLE}"


def executables(found: Mapping[str, str]) -> frozenset[str]:
    """The CLIs' executables an image's labels `found` name."""
    return frozenset(value for name, value in found.items() if name.endswith(EXECUTABLE))


@dataclass(frozen=True)
class Packed:
    """One agent's CLI as the build packs it: the host folder copied (`source`, to `AGENTS /
    agent / source.name`) and the executable's path in the image."""

    agent: str
    version: str
    source: Path
    executable: str


def packed(agent: str, version: str, executable: Path) -> Packed:
    """What of a CLI the image needs: for an npm install, the `node_modules` folder above
    its executable (the package and its dependencies); else the executable's own folder."""
    installed = install_folder(executable)
    source = installed / "node_modules" if installed != executable.parent else installed
    inside = AGENTS / agent / source.name / executable.relative_to(source)
    return Packed(agent, version, source, str(inside))


def labels(packs: Iterable[Packed]) -> dict[str, str]:
    """The image's labels: Node's path, and each agent's CLI version and executable."""
    found = {NODE_LABEL: NODE}
    for pack in packs:
        found[version_label(pack.agent)] = pack.version
        found[executable_label(pack.agent)] = pack.executable
    return found


def default_tag(packs: Sequence[Packed]) -> str:
    """`activation-sandbox:codex-0.171.0`: the agents and versions the image holds."""
    return f"{TAG}:" + "-".join(f"{pack.agent}-{release(pack.version)}" for pack in packs)


def build_argv(
    docker: str, base: str, tag: str, found: Mapping[str, str], context: Path
) -> list[str]:
    argv = [docker, "build", "-q", "--build-arg", f"BASE={base}", "-t", tag]
    for name, value in found.items():
        argv += ["--label", f"{name}={value}"]
    return [*argv, str(context)]


def linked(source: str, target: str) -> None:
    """A file of the context: a hard link where the filesystem allows (a CLI is hundreds of
    MB), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def lay_out(context: Path, packs: Iterable[Packed], node: Path) -> None:
    """The build context: the Dockerfile, Node and each CLI's folder (links kept as links)."""
    (context / "Dockerfile").write_bytes(files(__package__).joinpath(TEMPLATE).read_bytes())
    linked(str(node), str(context / "node"))
    for pack in packs:
        target = context / "agents" / pack.agent / pack.source.name
        shutil.copytree(pack.source, target, symlinks=True, copy_function=linked)


def build(packs: Sequence[Packed], base: str, tag: str, node: Path) -> None:
    """Build `tag` FROM `base` with `packs` and `node`; InputError with docker's last line
    when it does not build."""
    docker = shutil.which(DOCKER)
    if docker is None:
        raise InputError("docker is not on PATH: the image is built by a Docker daemon")
    with tempfile.TemporaryDirectory(prefix="activation-image-") as folder:
        context = Path(folder)
        lay_out(context, packs, node)
        argv = build_argv(docker, base, tag, labels(packs), context)
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise InputError(f"the image {tag} did not build FROM {base}: {said}")


@dataclass(frozen=True)
class Carried:
    """An agent CLI an image holds: its executable there and the version it said."""

    executable: str
    version: str


def carried(image: str, found: Mapping[str, str], agent: Agent) -> Carried | None:
    """`agent`'s CLI by the labels `found` of `image` (None: the image does not hold it);
    InputError when it is not the pinned version."""
    version = found.get(version_label(agent.name))
    executable = found.get(executable_label(agent.name))
    if version is None or executable is None:
        return None
    if release(version) != agent.version:
        raise InputError(
            f"--image {image} holds {agent.label(version)}, not the pinned {agent.version}: "
            f"build it again with `activation sandbox build --agent {agent.name}`"
        )
    return Carried(executable, version)


def from_image(settings: AgentSettings, agent: Agent) -> AgentSettings | None:
    """The settings of runs that start `agent`'s CLI held by the image (`--image`), with its
    version; None when the runs are not in docker or the image does not hold it (the
    host's CLI is then mounted, or runs on the host)."""
    if settings.sandbox != DOCKER:
        return None
    held = carried(settings.image, image_labels(settings.image), agent)
    if held is None:
        return None
    named = {**settings.executables, agent.name: held.executable}
    return replace(settings, executables=named, version=held.version)


def image_labels(image: str) -> dict[str, str]:
    """The labels of `image` on the daemon (none when it cannot say)."""
    probe = [DOCKER, "image", "inspect", "--format", "{{json .Config.Labels}}", image]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode != 0:
        return {}
    found = orjson.loads(done.stdout or "null")
    return {str(name): str(value) for name, value in (found or {}).items()}
