"""`tool_not_used`: the agent never called a tool (with a matching input, in a turn)."""

from __future__ import annotations

from activation.graders.base import Absent, Checked, Did, grader_type
from activation.graders.tool_used import ToolCalls
from activation.graders.trajectory import quoted, times


@grader_type("tool_not_used")
class ToolNotUsed(Absent, ToolCalls):
    """the agent never called the tool `name` (with its input JSON matching `input`; in
    `turn`)"""

    def judge(self, did: Did) -> Checked:
        calls = self.calls(did)
        if calls:
            inputs = quoted([call.input for call in calls])
            return "failed", f"{self.name} called {times(len(calls))}{self.where()}: {inputs}"
        return "passed", f"{self.name} never called{self.where()}"


GRADER = ToolNotUsed
