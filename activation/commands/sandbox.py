"""`activation sandbox build`: the image of `--sandbox docker` with the pinned agent CLIs
and Node inside (trials/agent/sandbox_image.py), so a run in it mounts nothing of them.

Each CLI is the one its flag names (as a run finds it), asked for its version first: only
the pinned release goes in the image, as only it is what the tool measures.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from activation._errors import InputError
from activation.commands.flags import SANDBOX
from activation.commands.requests import executable_flags
from activation.commands.session import Session
from activation.trials.agent.cli import install_hint, resolve
from activation.trials.agent.sandbox_docker import docker_problem
from activation.trials.agent.sandbox_image import Packed, build, default_tag, packed, release
from activation.trials.agents import agent_named


def pinned_cli(name: str, executable: str) -> Packed:
    """The agent's CLI at `executable`, as the image packs it; InputError when it cannot be
    run or is not the pinned version."""
    agent = agent_named(name)
    version = agent.adapter().version(executable)
    if release(version) != agent.version:
        raise InputError(
            f"{resolve(executable)} is {agent.label(version)}, not the pinned {agent.version}: "
            f"{install_hint(agent.package, agent.flag)}"
        )
    return packed(name, version, Path(resolve(executable)).resolve())


def host_node() -> Path:
    found = shutil.which("node")
    if found is None:
        raise InputError("Node (node) is not on PATH: the image gets this machine's Node")
    return Path(found).resolve()


def main_sandbox(session: Session, argv: list[str]) -> int:
    args = SANDBOX.parse(argv)
    session.debug = session.debug or args.debug
    flags = executable_flags()
    packs = [pinned_cli(name, getattr(args, flags[name])) for name in args.agent]
    node = host_node()
    problem = docker_problem(args.base)
    if problem is not None:
        raise InputError(f"--base {args.base}: {problem}")
    tag = args.tag or default_tag(packs)
    build(packs, args.base, tag, node)
    for pack in packs:
        held = f"{agent_named(pack.agent).label(pack.version)}: {pack.executable}"
        session.err.print(held, markup=False, soft_wrap=True)
    session.out.print(tag, markup=False, soft_wrap=True)
    return 0
