"""`not_contains_any`: no file holds any of the values."""

from __future__ import annotations

from dataclasses import dataclass

from activation.graders.base import Absent
from activation.graders.contains_any import ContainsAny


@dataclass(frozen=True, kw_only=True)
class NotContainsAny(Absent, ContainsAny):
    type = "not_contains_any"
    passes = "no file holds any of `values`"


GRADER = NotContainsAny
