"""`contains`: some file holds the value."""

from __future__ import annotations

from activation.graders.base import Answers, Checked, Files, Grader, grader_type
from activation.graders.search import presence


@grader_type("contains")
class Contains(Grader):
    """some file holds `value`; case ignored unless `case_sensitive`"""

    value: str
    case_sensitive: bool = False

    def summary(self) -> str:
        return f"{self.type} {self.value!r}"

    def check(self, files: Files, answers: Answers) -> Checked:
        return presence((self.value,), files, self.case_sensitive, self.negative)


GRADER = Contains
