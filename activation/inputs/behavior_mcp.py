"""A behavior case's `mcp_servers`, the same in a case file (a JSON object) and in an eval
folder's PROMPT.md frontmatter (YAML): `{<name>: {command, args, env}}`.

A name is lower-case letters and digits: every agent joins a server's name and a tool's
into one tool name with its own separator (`mcp__<server>__<tool>`, `<server>_<tool>`,
...), and such a name reads back as `<server>.<tool>`, the one form graders use, on every
agent. `command` is an executable, or `{mcp:<name>}`: a scripted server shipped with this
tool (activation/mcp/<name>.mjs), run by the Node that runs the agent CLI. `env` names
variables of the user's environment the server gets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib.resources import files

from activation._behavior import BUNDLED_FOLDER, BUNDLED_SERVER, SERVER_NAME, McpServer
from activation._errors import InputError

SERVER_KEYS = frozenset({"command", "args", "env"})
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def bundled_servers() -> tuple[str, ...]:
    """The names of the scripted servers shipped in the package."""
    folder = files("activation").joinpath(BUNDLED_FOLDER)
    return tuple(sorted(entry.name.removesuffix(".mjs") for entry in folder.iterdir()
                        if entry.name.endswith(".mjs")))  # fmt: skip


def parse_mcp_servers(raw: object, where: str) -> tuple[McpServer, ...]:
    """The servers of a case's `mcp_servers` (None: none); InputError naming `where`."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping) or not raw:
        raise InputError(f"{where}: 'mcp_servers' must be an object of {{name: {{command}}}}")
    return tuple(_server(name, spec, where) for name, spec in raw.items())


def _server(name: object, spec: object, where: str) -> McpServer:
    if not isinstance(name, str) or not SERVER_NAME.match(name):
        raise InputError(
            f"{where}: the MCP server name {name!r} must be lower-case letters and digits, "
            "starting with a letter (each agent joins it to its tools' names)"
        )
    here = f"{where}: MCP server {name!r}"
    if not isinstance(spec, Mapping):
        raise InputError(f"{here} must be an object with a 'command'")
    unknown = sorted(str(key) for key in spec if key not in SERVER_KEYS)
    if unknown:
        raise InputError(f"{here}: unknown key {unknown[0]!r} (it takes command, args and env)")
    command = spec.get("command")
    if not isinstance(command, str) or not command.strip():
        raise InputError(f"{here}: 'command' must be non-empty text")
    bundled = BUNDLED_SERVER.match(command)
    if bundled is not None and bundled.group(1) not in bundled_servers():
        shipped = ", ".join(f"{{mcp:{server}}}" for server in bundled_servers())
        raise InputError(f"{here}: no server {command} is shipped (there is {shipped})")
    args = spec.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise InputError(f"{here}: 'args' must be a list of text")
    env = spec.get("env", [])
    if not isinstance(env, list) or not all(isinstance(v, str) and ENV_NAME.match(v) for v in env):
        raise InputError(f"{here}: 'env' must be a list of environment variable names")
    return McpServer(name, command, tuple(args), tuple(env))


def tool_name_problem(name: str, servers: Sequence[str]) -> str | None:
    """Why a trajectory grader's tool `name` cannot match an MCP tool of the case's
    `servers`: `<server>.<tool>` of a server the case does not give, or an agent's own form
    of a server's tool (`mcp__invoices__lookup_invoice`), which a trajectory never holds."""
    server, dot, tool = name.partition(".")
    if dot and SERVER_NAME.match(server) and tool:
        if server in servers:
            return None
        return f"names the MCP tool {name!r}, but the case gives no MCP server {server!r}"
    for given in servers:
        for own in (f"mcp__{given}__", f"mcp_{given}_", f"{given}_", f"{given}-"):
            if name.startswith(own) and len(name) > len(own):
                return (
                    f"names {name!r}: name an MCP tool {given}.{name[len(own) :]}, on every agent"
                )
    return None
