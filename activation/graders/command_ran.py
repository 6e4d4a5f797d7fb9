"""`command_ran`: the agent ran a shell command matching a regular expression."""

from __future__ import annotations

import re

from activation.graders.base import Checked, Did, grader_type
from activation.graders.trajectory import Traced, first_found, loads, pattern_problems


@grader_type("command_ran")
class CommandRan(Traced):
    """some shell command the agent ran matches the regular expression `pattern` (as its
    stream gives the command: Codex's with its `bash -lc` wrapper)"""

    pattern: str

    def summary(self) -> str:
        return f"{self.type} /{self.pattern}/"

    def problems(self) -> tuple[str, ...]:
        return pattern_problems(self.pattern, "pattern")

    def matching(self, did: Did) -> list[str]:
        pattern = re.compile(self.pattern)
        return [command for command in did.commands if pattern.search(command)]

    def passes_on_load(self, skill: str) -> bool:
        return any(re.search(self.pattern, shown) for shown in loads(skill)[:2])

    def judge(self, did: Did) -> Checked:
        return first_found(self.matching(did), "ran", len(did.commands), "commands")


GRADER = CommandRan
