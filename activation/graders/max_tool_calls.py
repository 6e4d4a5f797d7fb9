"""`max_tool_calls`: the agent made at most so many tool calls."""

from __future__ import annotations

from dataclasses import field

from activation.graders.base import Absent, Checked, Did, grader_type
from activation.graders.trajectory import Traced


@grader_type("max_tool_calls")
class MaxToolCalls(Absent, Traced):
    """the agent made at most `max` tool calls"""

    max: int = field(metadata={"shape": "a count, from 1"})

    def summary(self) -> str:
        return f"at most {self.max} tool calls"

    def judge(self, did: Did) -> Checked:
        count = len(did.tool_calls)
        said = f"{count} tool calls"
        return ("passed", said) if count <= self.max else ("failed", f"{said}, over {self.max}")


GRADER = MaxToolCalls
