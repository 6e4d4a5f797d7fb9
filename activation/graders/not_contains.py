"""`not_contains`: no file holds the value."""

from __future__ import annotations

from dataclasses import dataclass

from activation.graders.base import Absent
from activation.graders.contains import Contains


@dataclass(frozen=True, kw_only=True)
class NotContains(Absent, Contains):
    type = "not_contains"
    passes = "no file holds `value`"


GRADER = NotContains
