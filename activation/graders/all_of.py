"""`all`: every part passes (a part's error is the `all`'s error)."""

from __future__ import annotations

from activation.graders.base import Answers, Checked, Files, Grader, grader_type


@grader_type("all")
class All(Grader):
    """every one of its `graders` passes"""

    graders: tuple[Grader, ...]

    def summary(self) -> str:
        return " and ".join(part.description for part in self.graders)

    @property
    def negative(self) -> bool:
        """Negative when all its parts are."""
        return all(part.negative for part in self.graders)

    def parts(self) -> tuple[Grader, ...]:
        return self.graders

    def check(self, files: Files, answers: Answers) -> Checked:
        checked = [part.check(files, answers) for part in self.graders]
        for outcome in ("error", "failed"):
            for number, (part_outcome, why) in enumerate(checked, 1):
                if part_outcome == outcome:
                    return outcome, f"part {number} ({self.graders[number - 1].type}): {why}"
        return "passed", f"all {len(checked)} parts passed"


GRADER = All
