"""`command_not_ran`: the agent ran no shell command matching a regular expression."""

from __future__ import annotations

from activation.graders.base import Absent, Checked, Did, grader_type
from activation.graders.command_ran import CommandRan
from activation.graders.trajectory import quoted


@grader_type("command_not_ran")
class CommandNotRan(Absent, CommandRan):
    """no shell command the agent ran matches the regular expression `pattern`"""

    def passes_on_load(self, skill: str) -> bool:
        return False

    def judge(self, did: Did) -> Checked:
        found = self.matching(did)
        if found:
            return "failed", f"ran {quoted(found)}"
        return "passed", f"none of the {len(did.commands)} commands it ran matches"


GRADER = CommandNotRan
