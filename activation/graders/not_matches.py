"""`not_matches`: the regular expression matches in no file."""

from __future__ import annotations

from activation.graders.base import Absent, grader_type
from activation.graders.matches import Matches


@grader_type("not_matches")
class NotMatches(Absent, Matches):
    """`pattern` matches in no file"""


GRADER = NotMatches
