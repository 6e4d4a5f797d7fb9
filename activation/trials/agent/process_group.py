"""Starting and stopping a run's process group: the agent CLI (or a grader's command) and
everything it started, in a session and group of their own.

SIGTERM goes to the whole group first, so the agent can end its own children and remove
what it wrote outside the run's folders (as it does on a user's Ctrl-C); once its leader
has exited, or after STOP_GRACE seconds, SIGKILL goes to whatever is left of the group, so
nothing outlives the run, whatever it traps or ignores.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO

import anyio
from anyio.abc import Process

STOP_GRACE = 2.0
"""Seconds a process group has to end on SIGTERM before SIGKILL."""


async def start_group(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    stdin: int | IO[bytes],
    stderr: int,
) -> Process:
    """`argv` started in a session (and group) of its own, its stdout a pipe. The start is
    shielded from cancellation: cancelled half-way, asyncio would SIGKILL the leader alone
    (no SIGTERM, its children left running); shielded, the cancellation reaches the caller
    once the process is its to stop with `stop_group`."""
    with anyio.CancelScope(shield=True):
        process = await anyio.open_process(list(argv), stdin=stdin, stdout=subprocess.PIPE,
                                           stderr=stderr, cwd=cwd, env=env,
                                           start_new_session=True)  # fmt: skip
    return process


def signal_group(process: Process, number: signal.Signals) -> None:
    """`number` to every process of the group (none left: nothing to do)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, number)


async def stop_group(process: Process, grace: float = STOP_GRACE) -> None:
    """SIGTERM to the group while its leader runs, up to `grace` seconds for the leader to
    exit, then SIGKILL to the group; returns once the leader is reaped. Call it shielded
    from cancellation: an interrupted run still waits for its processes to go."""
    if process.returncode is None:
        signal_group(process, signal.SIGTERM)
        with anyio.move_on_after(grace):
            await process.wait()
    signal_group(process, signal.SIGKILL)
    await process.wait()
