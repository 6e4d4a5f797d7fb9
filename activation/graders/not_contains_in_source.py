"""`not_contains_in_source`: no source file holds the value (configuration may hold a
client id, code may not)."""

from __future__ import annotations

from activation.graders.base import Absent, Answers, Checked, Files, grader_type
from activation.graders.contains import Contains
from activation.graders.search import is_source, presence


@grader_type("not_contains_in_source")
class NotContainsInSource(Absent, Contains):
    """no source file holds `value` (`.env*`, `.json`, `.plist`, `*.config.*` and other
    configuration are skipped)"""

    def check(self, files: Files, answers: Answers) -> Checked:
        source = [(path, text) for path, text in files if is_source(path)]
        return presence((self.value,), source, self.case_sensitive, True, "source ")


GRADER = NotContainsInSource
