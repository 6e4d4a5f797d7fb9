"""The scripted stand-ins' side of the agent canary (activation/trials/agent/canary.py): each
API stand-in answers the canary's prompt itself, before its script, with its agent's own
tool that reads the file the prompt names, then a plain text once the tool's result is in,
so no test script has to know about the canary. Those requests are kept apart
(`StandIn.canary_requests`), out of `requests`. A stand-in with `answers_canary` False
hands the prompt to its script: the tests of a canary the agent fails."""

from __future__ import annotations

import re
from typing import Protocol

from activation.trials.agent.canary import ASK

ASKED = re.compile(re.escape(ASK).replace(re.escape("{path}"), r"(?P<path>\S+)"))
"""The canary's prompt, the path of the file it asks to read caught."""

READERS = {"Read": "file_path", "read": "filePath", "view": "path", "read_file": "file_path"}
"""Each agent's tool that reads a file, by the name its requests offer it under, and the
argument that names the file: Claude Code's, OpenCode's, Copilot CLI's, Gemini CLI's (Codex
reads with its shell)."""


class Answering(Protocol):
    """A stand-in that may answer the canary itself (tests/support/local_server.py)."""

    answers_canary: bool


def asked_file(prompt: str) -> str | None:
    """The file a canary's prompt asks the agent to read (None: not the canary's prompt)."""
    found = ASKED.search(prompt)
    return None if found is None else found["path"]


def canary_file(stand_in: Answering, prompt: str) -> str | None:
    """The file of a canary's prompt a stand-in answers itself (None: not the canary's
    prompt, or a stand-in that hands it to its script)."""
    return asked_file(prompt) if stand_in.answers_canary else None


def reading_call(tool_names: list[str], path: str) -> tuple[str, dict[str, str]] | None:
    """The call of the first offered tool that reads a file, on `path` (None: none offered)."""
    name = next((name for name in tool_names if name in READERS), None)
    return None if name is None else (name, {READERS[name]: path})
