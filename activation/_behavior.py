"""Stage C's inputs: a behavior case (a task for the agent and the graders of what it wrote).

Two on-disk shapes are read into these types (behavior_cases.py, behavior_evals.py): the
seeds' case files (one JSON file per case) and their eval folders (PROMPT.md, scaffold/,
graders.json or graders.yaml). Both share one grader vocabulary: the registered types of
activation/graders/.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from activation._models import Case, RunInputs
from activation.graders.base import LEVEL_NAMES, LEVELS, Grader, Level

ScaffoldFile = tuple[str, bytes | str]
"""A file laid into the agent's workspace before it starts: its relative POSIX path and its
content (text from a case file, bytes from an eval folder's scaffold/)."""


SERVER_NAME = re.compile(r"^[a-z][a-z0-9]{0,31}$")
"""An MCP server's name in a case: one every agent's tool names read back unambiguously."""
BUNDLED_SERVER = re.compile(r"^\{mcp:([a-z][a-z0-9]*)\}$")
"""A server command naming a scripted server shipped with this tool."""
BUNDLED_FOLDER = "mcp"
"""The package's folder of scripted MCP servers (`<name>.mjs`)."""


@dataclass(frozen=True)
class McpServer:
    """An MCP server a case gives the agent: a stdio command the agent CLI starts itself, per
    trial, inside the trial's sandbox (docs/behavior.md "MCP servers"). `env` names variables
    of the user's environment handed to the server (their values never reach a cache key)."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[str, ...] = ()


@dataclass(frozen=True)
class BehaviorCase:
    """One task for the agent and how to grade what it leaves behind.

    `system` is the seed's `## System` section, the system prompt of the one-call `llm` arm;
    `agent_system` its `## Agent System` (None: the agent's own). `skills` names the skills
    the case is about (eval folders' frontmatter). A case with no graders is `manual`: its
    expectations are for a person reading the transcript; it is neither graded nor gated.
    """

    id: str
    name: str
    prompt: str
    source: str
    expectations: tuple[str, ...] = ()
    graders: tuple[Grader, ...] = ()
    scaffold: tuple[ScaffoldFile, ...] = ()
    setup_command: str | None = None
    system: str | None = None
    agent_system: str | None = None
    skills: tuple[str, ...] = ()
    category: str | None = None
    origin_skill: str | None = None
    unread: tuple[str, ...] = ()
    """Keys of the case's file this tool does not use (lint warns about each, by name)."""
    mcp_servers: tuple[McpServer, ...] = ()
    """The MCP servers the agent gets in this case's trials, by name."""
    turns: tuple[str, ...] = ()
    """The prompts sent after `prompt`, in order, each once the agent's previous turn
    ended, in the same session (the agent's own resume); the graders run after the last."""

    @property
    def prompts(self) -> tuple[str, ...]:
        """Every prompt the agent is sent: `prompt`, then its `turns`."""
        return (self.prompt, *self.turns)

    @property
    def manual(self) -> bool:
        return not self.graders

    @property
    def tags(self) -> tuple[str, ...]:
        """Its category, what reports group it by."""
        return (self.category,) if self.category else ()

    @property
    def group(self) -> str:
        return self.reported.group

    @property
    def reported(self) -> Case:
        """Its entry in a report, in the fields every report's case has: it should load the
        skill, and why is what its expectations say."""
        why = "; ".join(self.expectations) or self.name
        return Case(self.id, self.prompt, True, why, tags=self.tags)

    def is_right(self, chose: Sequence[str], target: str) -> bool:
        """Never by what fired: a task is right when its graders pass, once the agent is
        done (trials/behavior/backend.py grades the trial)."""
        return False

    def settled(self, chose: Sequence[str], target: str) -> bool:
        """Never: the agent finishes its task whatever it loaded."""
        return False

    @property
    def scaffold_digest(self) -> str:
        """SHA-256 of what the workspace holds before the agent starts: the scaffold's paths
        and contents (text as UTF-8) and the setup command. A cache key's part, and the key
        of a setup command's result, which is made once per scaffold and copied per trial."""
        digest = hashlib.sha256()
        for path, content in sorted(self.scaffold):
            raw = content.encode() if isinstance(content, str) else content
            digest.update(f"{path}\0{len(raw)}\0".encode())
            digest.update(raw)
        digest.update(f"setup\0{self.setup_command or ''}".encode())
        return digest.hexdigest()

    def all_graders(self) -> Iterator[Grader]:
        """Every grader of the case, those inside an `all` included."""
        for grader in self.graders:
            yield from grader.walk()


@dataclass(frozen=True)
class BehaviorSuite:
    """The behavior cases read from one path (a folder, a case file or an eval folder)."""

    source: str
    cases: tuple[BehaviorCase, ...]
    skipped: tuple[str, ...] = ()
    """Files in the suite's folder that hold no behavior cases, which a run names and skips."""

    @property
    def graded(self) -> tuple[BehaviorCase, ...]:
        """The cases a run grades and gates: those that are not manual."""
        return tuple(case for case in self.cases if not case.manual)


BehaviorRunInputs: TypeAlias = RunInputs[BehaviorCase]
"""A Stage C run's inputs: its cases are behavior cases."""

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "BehaviorCase",
    "BehaviorRunInputs",
    "BehaviorSuite",
    "Grader",
    "Level",
    "McpServer",
]
