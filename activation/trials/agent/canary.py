"""A canary per cell: before any measured trial, one probe in the cell's sandbox proves its
boundary, so a sandbox that leaks or cannot run fails the cell before a trial is spent.

The probe is a few lines of Node (`PROBE`, which every sandbox already runs for its relay to
the API) started in the sandbox exactly as a trial's CLI is, in a run's own folders: it
writes a nonce in its workspace (that write must land), writes outside it (beside the
workspace, and in the skill copies, which are bound read-only: neither may land), reads a
file of the user's home and the measured SKILL.md of the repository (neither may be
visible; files, as a folder can show up as the parent of a bound one) and connects to a
listener this process opens on the host's loopback (no connection may arrive: the sandbox
reaches the model API and nothing else). What landed and what connected is checked here,
on the host, not taken from the probe's word. A failed canary makes every trial of the cell
an infrastructure ERROR (`AgentBackend.run_round`), never a vote.

Then the agent's own tool (`agent_problem`): the canary lays a file holding a fresh nonce
in a run's workspace (never in the prompt or the config) and asks the agent CLI, in the
same sandbox with the same config as the cell's trials (Stage B's tools that look around,
Stage C's work tools), to read it (`ask`). It passes only when the agent's stream, as its
own reader reads it (`Reading.returned`), shows a tool call whose result holds the nonce:
an agent that only writes text cannot pass, whatever it guesses (an agent whose stream
shows no read's content, Gemini CLI's, passes on its file tool's successful read of that
file). One such run serves every cell that shares its agent, sandbox and config in a
process (`AGENT_RUNS`).

On the host there is no boundary to prove: no canary runs, and the run says what that
leaves unchecked. `--no-canary` skips it, and the run says so.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import SocketAttribute, SocketStream

from activation._models import AgentSettings
from activation.trials.agent.adapter import Launch
from activation.trials.agent.reading import Reading
from activation.trials.agent.sandbox import HOST, Sandbox, View

INSIDE = "canary.txt"
"""The file the probe writes in its workspace."""
OUTSIDE = "canary-outside.txt"
"""The name of each file the probe tries to write outside its workspace."""
PROBE_TIMEOUT = 30.0
"""Seconds the probe may take, its sandbox's start included."""
CONNECT_TIMEOUT_MS = 3000
"""How long the probe waits for a connection to be refused (nothing inside answers)."""
HOST_UNCHECKED = (
    "--sandbox host: no canary runs, as nothing on the host stops an agent's write outside its "
    "workspace, its reads of your home and repository or its connections to other hosts"
)
SKIPPED = "--no-canary: the sandbox's boundary is not checked before the trials"
NONCE_FILE = "canary-nonce.txt"
"""The file in the agent's workspace whose nonce the agent's tool must return."""
STDERR_TAIL = 300
"""Characters of a failed canary run's stderr quoted."""
ASK = "Use a tool to read the file {path} and answer with its content only."
"""The agent's canary prompt, with the nonce file's absolute path."""

PROBE = f"""
const fs = require("fs"), net = require("net");
const [nonce, inside, port, ...tries] = process.argv.slice(1);
fs.writeFileSync(inside, nonce);
for (const found of tries) {{
  const [how, path] = [found.slice(0, 2), found.slice(2)];
  try {{
    if (how === "w:") fs.writeFileSync(path, nonce);
    else fs.readFileSync(path);
    console.log((how === "w:" ? "wrote " : "read ") + path);
  }} catch (error) {{}}
}}
const socket = net.connect({{ host: "127.0.0.1", port: Number(port) }});
socket.on("connect", () => {{ console.log("connected"); process.exit(0); }});
socket.on("error", () => process.exit(0));
setTimeout(() => {{ console.log("connection hung"); process.exit(0); }}, {CONNECT_TIMEOUT_MS});
"""
"""`node -e PROBE NONCE INSIDE PORT w:PATH... r:PATH...`: writes NONCE to INSIDE, tries each
write (w:) and read (r:), says which succeeded, then tries 127.0.0.1:PORT."""


@dataclass(frozen=True)
class Probe:
    """One canary's plan: the nonce, where it must land, what must stay out of reach."""

    nonce: str
    inside: Path
    writes: tuple[Path, ...]
    reads: tuple[Path, ...]

    def argv(self, node: str, port: int) -> list[str]:
        tries = [f"w:{path}" for path in self.writes] + [f"r:{path}" for path in self.reads]
        return [node, "-e", PROBE, self.nonce, str(self.inside), str(port), *tries]


@dataclass(frozen=True)
class Seen:
    """What the probe's run left: its exit code and output, the workspace file's text (None:
    not there), which outside writes landed, and connections that reached the host."""

    returncode: int | None
    said: str
    landed: str | None
    escaped: tuple[Path, ...]
    connections: int


def probe_for(view: View, nonce: str, base: Path, reads: Sequence[Path]) -> Probe:
    """The probe of a run laid out as `view` in `base`: beside the workspace and in each
    read-only folder it sees, and the user's files (`reads`) it must not read."""
    writes = (base / OUTSIDE, *(folder / OUTSIDE for folder in view.readable))
    return Probe(nonce, view.cwd / INSIDE, writes, tuple(reads))


def problems(probe: Probe, seen: Seen) -> tuple[str, ...]:
    """What the canary found wrong, in the order a person fixes them (empty: it passed)."""
    if seen.returncode != 0:
        said = " ".join(seen.said.split())[-300:] or "no output"
        return (f"the probe did not run in the sandbox (exit code {seen.returncode}): {said}",)
    found = []
    if seen.landed != probe.nonce:
        found.append(f"a write in the workspace did not land ({probe.inside.name})")
    found += [f"a write outside the workspace landed: {path}" for path in seen.escaped]
    found += [
        f"your {path} is readable in the sandbox"
        for path in probe.reads
        if f"read {path}" in seen.said.splitlines()
    ]
    if seen.connections or "connected" in seen.said.splitlines():
        found.append("a connection to a host other than the model API got through")
    return tuple(found)


async def run_probe(
    sandbox: Sandbox,
    view: View,
    urls: Mapping[str, str],
    base: Path,
    reads: Sequence[Path],
    env: Mapping[str, str],
) -> tuple[str, ...]:
    """Run the canary in `sandbox` with a run's folders `view` (made here, under `base`),
    and what it found wrong."""
    for folder in view.writable:
        folder.mkdir(parents=True, exist_ok=True)
    probe = probe_for(view, secrets.token_hex(16), base, reads)
    connections = 0

    async def count(stream: SocketStream) -> None:
        nonlocal connections
        connections += 1
        await stream.aclose()

    node = shutil.which("node") or "node"
    done: subprocess.CompletedProcess[bytes] | None = None
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, count)
        async with sandbox.confined(view, urls, 1, base) as confined:
            launch = confined.wrap(Launch(probe.argv(node, port), dict(env)))
            with anyio.move_on_after(PROBE_TIMEOUT):
                done = await anyio.run_process(
                    launch.argv, env=launch.env, cwd=view.cwd, check=False,
                    stdin=subprocess.DEVNULL, start_new_session=True,
                )  # fmt: skip
        group.cancel_scope.cancel()
    escaped = tuple(path for path in probe.writes if path.exists())
    for path in escaped:
        path.unlink()
    if done is None:
        return problems(probe, Seen(None, f"no answer in {PROBE_TIMEOUT:g} s", None, (), 0))
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    return problems(probe, Seen(done.returncode, said, _text(probe.inside), escaped, connections))


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def ask(path: Path) -> str:
    """The prompt that asks the agent to read the nonce file at `path` with its tool."""
    return ASK.format(path=path)


def agent_problem(reading: Reading, nonce: str, path: Path, stderr: str = "") -> str | None:
    """What the agent did instead of returning the nonce through a tool (None: a tool's
    result held it, or, for an agent whose stream shows no read's content, its file tool
    read `path`), with the tail of its `stderr` when its run failed. Only what the CLI
    says its tools did counts: the model's prose is never read."""
    if any(nonce in text for _tool, text in reading.returned):
        return None
    if not reading.reads_shown and str(path) in reading.trajectory.files_read:
        return None
    calls = tuple(dict.fromkeys(call.name for call in reading.trajectory.tool_calls))
    if reading.outcome == "error":
        said = " ".join(stderr.split())[-STDERR_TAIL:]
        did = f"its run failed: {reading.reason}" + (f"; stderr: {said}" if said else "")
    elif not calls:
        did = "it called no tool (an answer in prose alone proves nothing)"
    else:
        did = f"it called {', '.join(calls)}, and no result held the file's nonce"
    return f"the agent did not read the canary's file with its own tool: {did}"


def plan(settings: AgentSettings) -> str:
    """A dry run's line on the canary: what it costs before the first trial, or why none."""
    if not settings.canary:
        return "canary: none (--no-canary)"
    if settings.sandbox == HOST:
        return "canary: none on the host"
    return (
        f"canary: before the first trial, a probe of the {settings.sandbox} sandbox (about "
        "0.2 s, no model call) and one agent run that reads a file with its own tool (a few "
        "model calls, about 2-20 s), shared by every cell of this agent, sandbox and config"
    )


AGENT_RUNS: dict[str, str | None] = {}
"""The agent canary's outcome (None: it passed) per agent, sandbox and config, in this
process: one run serves every cell that shares them."""
