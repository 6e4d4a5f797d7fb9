"""`contains_any`: some file holds one of the values."""

from __future__ import annotations

from activation.graders.base import Answers, Checked, Files, Grader, grader_type
from activation.graders.search import presence


@grader_type("contains_any")
class ContainsAny(Grader):
    """some file holds one of `values`; case ignored unless `case_sensitive`"""

    values: tuple[str, ...]
    case_sensitive: bool = False

    def summary(self) -> str:
        return f"{self.type} {', '.join(map(repr, self.values))}"

    def check(self, files: Files, answers: Answers) -> Checked:
        return presence(self.values, files, self.case_sensitive, self.negative)


GRADER = ContainsAny
