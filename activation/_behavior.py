"""Stage C's inputs: a behavior case (a task for the agent and the graders of what it wrote).

Two on-disk shapes are read into these types (behavior_cases.py, behavior_evals.py): the
seeds' case files (one JSON file per case) and their eval folders (PROMPT.md, scaffold/,
graders.json or graders.yaml). Both share one grader vocabulary, described on `Grader`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, get_args

Level = Literal["L1", "L2", "L3", "L4", "L5"]
"""L1 presence (required symbols exist), L2 hallucination (no invented packages or APIs),
L3 security (no hard-coded secrets, no insecure storage), L4 structure (correctly wired),
L5 version (the current API, not a removed one)."""
LEVELS: tuple[Level, ...] = get_args(Level)
LEVEL_NAMES: dict[Level, str] = {
    "L1": "presence",
    "L2": "hallucination",
    "L3": "security",
    "L4": "structure",
    "L5": "version",
}

GraderType = Literal[
    "contains",
    "contains_any",
    "not_contains",
    "not_contains_any",
    "not_contains_in_source",
    "matches",
    "not_matches",
    "file_contains",
    "all",
    "command",
    "judge",
]
GRADER_TYPES: tuple[GraderType, ...] = get_args(GraderType)

REGEX_FLAGS: dict[str, re.RegexFlag] = {
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
    "u": re.NOFLAG,
    "g": re.NOFLAG,
}
"""The flags a pattern may carry, JavaScript's letters (the seeds' graders are JavaScript):
`m` is always on, `i` is on unless the grader is case-sensitive, `u` and `g` change nothing
here; `x` is Python's verbose mode."""

ScaffoldFile = tuple[str, bytes | str]
"""A file laid into the agent's workspace before it starts: its relative POSIX path and its
content (text from a case file, bytes from an eval folder's scaffold/)."""


@dataclass(frozen=True)
class Grader:
    """One check on the files the agent left in its workspace.

    Only the fields of its `type` are set: `value` (contains, not_contains,
    not_contains_in_source, file_contains), `values` (contains_any, not_contains_any),
    `pattern` and `flags` (matches, not_matches), `file_pattern` (file_contains), `graders`
    (all), `command` and `timeout` in seconds (command), `question` and `examples` (judge).
    `case_sensitive` applies to every text and regex grader (they ignore case by default).
    """

    type: GraderType
    description: str
    level: Level | None = None
    value: str | None = None
    values: tuple[str, ...] = ()
    pattern: str | None = None
    flags: str = ""
    file_pattern: str | None = None
    case_sensitive: bool = False
    graders: tuple[Grader, ...] = ()
    command: str | None = None
    timeout: float | None = None
    question: str | None = None
    examples: str | None = None

    @property
    def negative(self) -> bool:
        """A check that something is absent: void in a trial where nothing positive passed
        (else an empty workspace would pass it). An `all` is negative when all its parts are."""
        if self.type == "all":
            return all(part.negative for part in self.graders)
        return self.type.startswith("not_")

    def regex(self) -> re.Pattern[str]:
        """The compiled `pattern`: multiline, ignoring case unless `case_sensitive` (as the
        seeds' graders do); raises re.error for a pattern that does not compile."""
        flags = re.MULTILINE if self.case_sensitive else re.MULTILINE | re.IGNORECASE
        for letter in self.flags:
            flags |= REGEX_FLAGS[letter]
        return re.compile(self.pattern or "", flags)

    def walk(self) -> Iterator[Grader]:
        """This grader and, for an `all`, every grader inside it."""
        yield self
        for part in self.graders:
            yield from part.walk()


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

    @property
    def manual(self) -> bool:
        return not self.graders

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

    @property
    def graded(self) -> tuple[BehaviorCase, ...]:
        """The cases a run grades and gates: those that are not manual."""
        return tuple(case for case in self.cases if not case.manual)
