"""`file_contains`: some file matching the glob holds the value."""

from __future__ import annotations

from activation.graders.base import Answers, Checked, Files, Grader, grader_type
from activation.graders.search import glob_matches, presence


@grader_type("file_contains")
class FileContains(Grader):
    """some file matching the glob `file_pattern` holds `value` (fails when no file matches)"""

    file_pattern: str
    value: str
    case_sensitive: bool = False

    def summary(self) -> str:
        return f"{self.file_pattern} contains {self.value!r}"

    def check(self, files: Files, answers: Answers) -> Checked:
        matching = [(path, text) for path, text in files if glob_matches(self.file_pattern, path)]
        if not matching:
            return "failed", f"no file matches {self.file_pattern!r}"
        return presence((self.value,), matching, self.case_sensitive, False)


GRADER = FileContains
