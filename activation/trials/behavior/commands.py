"""Running a shell command in a workspace: a `command` grader's check, a case's setup.

A grader's command runs with no network: in a new network namespace (`unshare -rn`, an
unprivileged user namespace) where the machine allows one, else with every proxy variable
pointing at a closed local port (a weaker fence, said in `FENCE`). A setup command (an
install, as the seeds' suites use it) keeps the network. Either runs in its own process
group, stopped whole at its time limit (process_group.py: SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import anyio

from activation.graders.base import CommandResult
from activation.trials.agent.env import allowlisted
from activation.trials.agent.process_group import start_group, stop_group

OUTPUT_LIMIT = 2000
"""Characters of a command's output kept (its end)."""
CLOSED_PROXY = "http://127.0.0.1:9"
"""Where a command is sent for the network when no namespace can be made: the discard port."""
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                   "ALL_PROXY")  # fmt: skip
PASSTHROUGH = frozenset({"PATH", "LANG", "LC_ALL", "TERM"})


@cache
def can_unshare() -> bool:
    """Whether this machine lets a process take a network namespace of its own."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        done = subprocess.run([unshare, "-rn", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def fence() -> str:
    """How a grader's command is kept off the network here, in words."""
    if can_unshare():
        return "no network (a network namespace of its own)"
    return "no network through proxies (no network namespace on this machine)"


def command_env(parent: Mapping[str, str], home: Path, network: bool) -> dict[str, str]:
    env = {**allowlisted(parent, PASSTHROUGH, ()), "HOME": str(home), "TMPDIR": str(home)}
    if not network and not can_unshare():
        env.update(dict.fromkeys(PROXY_VARIABLES, CLOSED_PROXY))
    return env


async def run_command(
    command: str,
    cwd: Path,
    limit: float,
    *,
    network: bool = False,
    parent: Mapping[str, str] | None = None,
) -> CommandResult:
    """Run `command` with bash in `cwd`; how it ended. It could not be run at all:
    `exit_code` None."""
    home = cwd.parent / f".home-{cwd.name}"
    home.mkdir(exist_ok=True)
    argv = ["bash", "-c", command]
    if not network and can_unshare():
        argv = ["unshare", "-rn", *argv]
    env = command_env(os.environ if parent is None else parent, home, network)
    try:
        process = await start_group(argv, cwd, env, subprocess.DEVNULL, subprocess.STDOUT)
    except OSError as error:
        return CommandResult(None, output=f"could not start bash: {error}")
    output = bytearray()
    try:
        with anyio.move_on_after(limit) as deadline:
            assert process.stdout is not None
            async for chunk in process.stdout:
                output += chunk
                del output[: max(0, len(output) - 4 * OUTPUT_LIMIT)]
            await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await stop_group(process)
            await process.aclose()
        shutil.rmtree(home, ignore_errors=True)
    text = output.decode("utf-8", "replace")[-OUTPUT_LIMIT:]
    if deadline.cancelled_caught:
        return CommandResult(None, timed_out=True, output=text)
    return CommandResult(process.returncode, output=text)
