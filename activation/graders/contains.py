"""`contains`: some file holds the value."""

from __future__ import annotations

from dataclasses import dataclass

from activation.graders.base import Answers, Checked, Files, Grader
from activation.graders.search import presence


@dataclass(frozen=True, kw_only=True)
class Contains(Grader):
    type = "contains"
    passes = "some file holds `value`; case ignored unless `case_sensitive`"

    value: str
    case_sensitive: bool = False

    def summary(self) -> str:
        return f"{self.type} {self.value!r}"

    def check(self, files: Files, answers: Answers) -> Checked:
        return presence((self.value,), files, self.case_sensitive, self.negative)


GRADER = Contains
