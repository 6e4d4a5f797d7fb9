"""`not_contains_any`: no file holds any of the values."""

from __future__ import annotations

from activation.graders.base import Absent, grader_type
from activation.graders.contains_any import ContainsAny


@grader_type("not_contains_any")
class NotContainsAny(Absent, ContainsAny):
    """no file holds any of `values`"""


GRADER = NotContainsAny
