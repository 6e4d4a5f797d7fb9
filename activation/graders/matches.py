"""`matches`: the regular expression matches in some file."""

from __future__ import annotations

import re

from activation.graders.base import Answers, Checked, Files, Grader, grader_type
from activation.graders.search import compiled, matching, regex_problems


@grader_type("matches")
class Matches(Grader):
    """the regular expression `pattern` (multi-line; `flags`: JavaScript's letters) matches in some
    file"""

    pattern: str
    flags: str = ""
    case_sensitive: bool = False

    def summary(self) -> str:
        return f"{self.type} /{self.pattern}/"

    def regex(self) -> re.Pattern[str]:
        """The compiled pattern; raises re.error for one that does not compile."""
        return compiled(self.pattern, self.flags, self.case_sensitive)

    def problems(self) -> tuple[str, ...]:
        return regex_problems(self.pattern, self.flags, self.case_sensitive)

    def check(self, files: Files, answers: Answers) -> Checked:
        return matching(self.regex(), files, self.negative)


GRADER = Matches
