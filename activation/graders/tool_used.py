"""`tool_used`: the agent called a tool by name (an input pattern, a count range, a turn)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from activation.graders.base import CalledTool, Checked, Did, grader_type
from activation.graders.trajectory import (
    LOAD_TOOLS,
    Traced,
    count_problems,
    pattern_problems,
    times,
)


@dataclass(frozen=True, kw_only=True)
class ToolCalls(Traced):
    """The calls of one tool, by its name as the agent's stream gives it (`Bash`, `bash`,
    `run_shell_command`, an MCP tool's), whose input JSON `input` matches."""

    name: str
    input: str | None = field(default=None, metadata={"shape": "a regular expression"})

    def summary(self) -> str:
        matching = f" with input /{self.input}/" if self.input else ""
        return f"{self.type} {self.name}{matching}"

    def problems(self) -> tuple[str, ...]:
        return pattern_problems(self.input, "input")

    def calls(self, did: Did) -> list[CalledTool]:
        pattern = None if self.input is None else re.compile(self.input)
        return [
            call
            for call in did.tool_calls
            if call.name == self.name and (pattern is None or pattern.search(call.input))
        ]


@grader_type("tool_used")
class ToolUsed(ToolCalls):
    """the agent called the tool `name` (its input JSON matching the regular expression
    `input`; in `turn`) at least `min_count` and at most `max_count` times"""

    min_count: int = field(default=1, metadata={"shape": "a count, from 1"})
    max_count: int | None = field(default=None, metadata={"shape": "a count"})

    def problems(self) -> tuple[str, ...]:
        return super().problems() + count_problems(self.min_count, self.max_count)

    def passes_on_load(self, skill: str) -> bool:
        inputs = (f'{{"skill":"{skill}"}}', f'{{"name":"{skill}"}}')
        return self.name in LOAD_TOOLS and (
            self.input is None or any(re.search(self.input, given) for given in inputs)
        )

    def judge(self, did: Did) -> Checked:
        count = len(self.calls(did))
        said = f"{self.name} called {times(count)}{self.where()}"
        if count < self.min_count:
            return "failed", f"{said}, fewer than {self.min_count}"
        if self.max_count is not None and count > self.max_count:
            return "failed", f"{said}, more than {self.max_count}"
        return "passed", said


GRADER = ToolUsed
