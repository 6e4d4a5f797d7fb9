"""What the trajectory graders share: they check what the agent did in the trial (its tool
calls, the shell commands it ran, the files it read, its turns), read from its own event
stream, not the files it left. Each needs the `Trace`, which the run gives in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from activation.graders.base import (
    TRACE,
    Answers,
    Checked,
    CommandResult,
    Did,
    Files,
    Grader,
    Need,
    Votes,
)
from activation.graders.search import glob_matches

LOAD_TOOLS = ("Skill", "skill", "activate_skill")
"""The tools that load a skill: Claude Code's; OpenCode's and Copilot CLI's; Gemini CLI's."""


def loads(skill: str) -> tuple[str, ...]:
    """How an agent without a load tool loads `skill` (Codex reads its SKILL.md with a
    shell command): the commands and the file a load shows in a trajectory."""
    path = f".agents/skills/{skill}/SKILL.md"
    return (f"/bin/bash -lc 'cat {path}'", f"sed -n '1,200p' {path}", path)


@dataclass(frozen=True, kw_only=True)
class Traced(Grader):
    """A grader over the trial's trajectory; a type says what it checks in `judge`. With
    `turn`, over what the agent did after that prompt of the case (`turns`) only."""

    turn: int | None = field(default=None, metadata={"shape": "a turn, from 1"})

    def passes_on_load(self, skill: str) -> bool:
        """Whether loading `skill` alone passes it: it would check the load, which every
        trial records already, not that the body was followed (lint refuses it)."""
        return False

    def own_needs(self) -> tuple[Need, ...]:
        return (TRACE,)

    def check(self, files: Files, answers: Answers) -> Checked:
        did = answers.get(TRACE)
        if did is None or isinstance(did, Votes | CommandResult):
            raise ValueError(f"no trajectory given for the grader {self.description!r}")
        return self.judge(did if self.turn is None else did.in_turn(self.turn))

    def where(self) -> str:
        """The turn it looks at, in words for its results."""
        return "" if self.turn is None else f" in turn {self.turn}"

    def judge(self, did: Did) -> Checked:
        raise NotImplementedError


def pattern_problems(pattern: str | None, key: str) -> tuple[str, ...]:
    """A regular expression that does not compile, in words naming its key."""
    if pattern is None:
        return ()
    try:
        re.compile(pattern)
    except re.error as error:
        return (f"{key} /{pattern}/ does not compile: {error}",)
    return ()


def count_problems(at_least: int, at_most: int | None) -> tuple[str, ...]:
    """A count range that no number of calls meets."""
    if at_most is not None and at_most < at_least:
        return (f"max_count {at_most} is below min_count {at_least}",)
    return ()


def read_matches(glob: str, path: str) -> bool:
    """Whether a file the agent read matches `glob`, from the right: `references/*.md`
    matches a path relative to the workspace and one inside the skill's copy alike."""
    glob = glob.removeprefix("./")
    return glob_matches(glob, path) or ("/" in glob and fnmatchcase(path, f"*/{glob}"))


def first_found(found: list[str], verb: str, among: int, what: str) -> Checked:
    """Passed on the first of `found` (what the agent `verb`, "ran" or "read"), else failed
    saying how many of `what` ("commands", "files") it did."""
    if found:
        return "passed", f"{verb} {quoted(found, 1)}"
    if among:
        return "failed", f"none of the {among} {what} it {verb} matches"
    return "failed", f"it {verb} no {what.removesuffix('s')}"


def times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def quoted(texts: list[str], limit: int = 3) -> str:
    """A few of `texts`, quoted, and how many more."""
    shown = ", ".join(repr(text[:120]) for text in texts[:limit])
    more = len(texts) - limit
    return shown + (f" (+{more} more)" if more > 0 else "")
