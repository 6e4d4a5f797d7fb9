"""`not_matches`: the regular expression matches in no file."""

from __future__ import annotations

from dataclasses import dataclass

from activation.graders.base import Absent
from activation.graders.matches import Matches


@dataclass(frozen=True, kw_only=True)
class NotMatches(Absent, Matches):
    type = "not_matches"
    passes = "`pattern` matches in no file"


GRADER = NotMatches
