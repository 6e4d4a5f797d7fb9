"""A grader that passes on the scaffold alone cannot tell the agent's work from the files it
started with: `lint` reports it as an error, found by grading the scaffold itself.

Only the positive graders checked from the files alone are graded (`Grader.static`: one that
needs a model's answer or a command's run is not; a negative passing on the scaffold is what
it should do). The scaffold is seen as the graders would see it (workspace.py's rules: no
lockfiles, no binaries).
"""

from __future__ import annotations

from collections.abc import Iterable

from activation._behavior import BehaviorCase
from activation.inputs.lint import Finding
from activation.trials.behavior.graders import grade
from activation.trials.behavior.workspace import workspace_of


def scaffold_findings(cases: Iterable[BehaviorCase]) -> list[Finding]:
    """An error per grader that already passes on its case's scaffold, in case order."""
    findings: list[Finding] = []
    for case in cases:
        numbered = [
            (number, grader)
            for number, grader in enumerate(case.graders, 1)
            if not grader.negative and grader.static
        ]
        grading = grade([grader for _, grader in numbered], workspace_of(case.scaffold), {})
        findings += [
            Finding(
                "error",
                case.id,
                f"grader {number} ({grader.description}) passes on the scaffold alone "
                f"({result.why}): it cannot tell the agent's work from the starting files",
            )
            for (number, grader), result in zip(numbered, grading.results, strict=True)
            if result.outcome == "passed"
        ]
    return findings
