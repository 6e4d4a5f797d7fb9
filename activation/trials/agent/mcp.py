"""A Stage C case's MCP servers in one run: laid out for the agent CLI to start, and their
tool calls named the same on every agent.

The agent CLI starts each server itself, from the config its adapter writes, so a server
runs where the agent does: in the trial's sandbox, its network off. A scripted server
shipped with this tool (`{mcp:<name>}`, activation/mcp/<name>.mjs) is copied into the run's
home and run by the Node the sandbox already gives the CLI. Every agent names an MCP tool
its own way (`mcp__invoices__lookup_invoice`, `invoices_lookup_invoice`, ...); a trajectory
names it `invoices.lookup_invoice` (the agent record's `mcp_tools`), which graders match.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from importlib.resources import as_file, files
from pathlib import Path

from activation._behavior import BUNDLED_FOLDER, BUNDLED_SERVER, McpServer
from activation._errors import InputError
from activation._models import Trajectory
from activation.trials.agent.adapter import McpLaunch

SERVERS_DIR = ".activation-mcp"
"""The folder of the run's home that holds its copies of the shipped servers."""


def unset_variables(servers: Sequence[McpServer], parent: Mapping[str, str]) -> tuple[str, ...]:
    """The variables the servers take from the environment that `parent` does not set."""
    return tuple(dict.fromkeys(name for s in servers for name in s.env if name not in parent))


def check_environment(servers: Sequence[McpServer], parent: Mapping[str, str], case: str) -> None:
    """InputError, before any run, for a variable a case's server needs that is not set."""
    unset = unset_variables(servers, parent)
    if unset:
        raise InputError(f"case {case!r}: its MCP servers need {', '.join(unset)} set")


def laid_out(
    servers: Sequence[McpServer], home: Path, parent: Mapping[str, str], node: str
) -> tuple[McpLaunch, ...]:
    """The servers as the run starts them: a shipped one copied into `home` and run by
    `node` (the sandbox's: `Confined.node`), each with its variables' values from
    `parent`."""
    launched = []
    for server in servers:
        env = tuple((name, parent[name]) for name in server.env)
        bundled = BUNDLED_SERVER.match(server.command)
        if bundled is None:
            launched.append(McpLaunch(server.name, server.command, server.args, env))
            continue
        script = home / SERVERS_DIR / f"{bundled.group(1)}.mjs"
        script.parent.mkdir(parents=True, exist_ok=True)
        with as_file(files("activation").joinpath(BUNDLED_FOLDER, script.name)) as shipped:
            shutil.copyfile(shipped, script)
        launched.append(McpLaunch(server.name, node, (str(script), *server.args), env))
    return tuple(launched)


def asked(servers: Sequence[McpServer]) -> dict[str, object]:
    """The servers as a cache key holds them: as the case writes them (variables by name)."""
    if not servers:
        return {}
    return {"mcp_servers": [[s.name, s.command, list(s.args), list(s.env)] for s in servers]}


def named(
    trajectory: Trajectory, servers: Sequence[McpServer], prefix: Callable[[str], str]
) -> Trajectory:
    """The trajectory with each call of a server's tool named `<server>.<tool>`: `prefix`
    gives how the agent's own names of the server's tools begin."""
    starts = [(prefix(server.name), server.name) for server in servers]

    def name(called: str) -> str:
        for start, server in starts:
            if called.startswith(start) and len(called) > len(start):
                return f"{server}.{called[len(start) :]}"
        return called

    calls = tuple(replace(call, name=name(call.name)) for call in trajectory.tool_calls)
    return replace(trajectory, tool_calls=calls)
