"""`not_contains`: no file holds the value."""

from __future__ import annotations

from activation.graders.base import Absent, grader_type
from activation.graders.contains import Contains


@grader_type("not_contains")
class NotContains(Absent, Contains):
    """no file holds `value`"""


GRADER = NotContains
