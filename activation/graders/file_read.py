"""`file_read`: the agent read a file matching a glob (with a file tool or a shell reader)."""

from __future__ import annotations

from activation.graders.base import Checked, Did, grader_type
from activation.graders.trajectory import Traced, first_found, loads, read_matches


@grader_type("file_read")
class FileRead(Traced):
    """the agent read a file matching the glob `file_pattern`, matched from the right so
    that `references/*.md` is the skill's references wherever its copy is (a file tool's
    read, or `cat`, `sed`, `head` and the like in a shell command)"""

    file_pattern: str

    def summary(self) -> str:
        return f"{self.type} {self.file_pattern}"

    def passes_on_load(self, skill: str) -> bool:
        return read_matches(self.file_pattern, loads(skill)[2])

    def judge(self, did: Did) -> Checked:
        found = [path for path in did.files_read if read_matches(self.file_pattern, path)]
        return first_found(found, "read", len(did.files_read), "files")


GRADER = FileRead
