"""`command`: the command exits 0 in the workspace (with no network, within `timeout`)."""

from __future__ import annotations

from activation._config import BEHAVIOR_COMMAND_TIMEOUT
from activation.graders.base import (
    Answers,
    Checked,
    CommandResult,
    Files,
    Grader,
    Need,
    Run,
    grader_type,
)


@grader_type("command")
class Command(Grader):
    """`command` exits 0 in the workspace, within its `timeout` (seconds), with no network; a
    command that cannot start is an error"""

    command: str
    timeout: float = BEHAVIOR_COMMAND_TIMEOUT

    def summary(self) -> str:
        return f"`{self.command}` exits 0"

    def own_needs(self) -> tuple[Need, ...]:
        return (Run(self.command, self.timeout),)

    def check(self, files: Files, answers: Answers) -> Checked:
        result = answers.get(Run(self.command, self.timeout))
        if not isinstance(result, CommandResult):
            raise ValueError(f"no result given for the command {self.command!r}")
        tail = _last_line(result.output)
        if result.timed_out:
            return "failed", f"timed out after {self.timeout:g} s"
        if result.exit_code is None:
            return "error", "could not be run" + (f": {tail}" if tail else "")
        if result.exit_code == 0:
            return "passed", "exited 0"
        return "failed", f"exited {result.exit_code}" + (f": {tail}" if tail else "")


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


GRADER = Command
