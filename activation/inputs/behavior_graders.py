"""A case's graders as the seeds write them (a JSON or YAML list of objects), each read by
its registered type (activation/graders/), every problem one line naming file and case."""

from __future__ import annotations

from collections.abc import Mapping

from activation._behavior import Grader
from activation._errors import InputError
from activation.graders import GraderError
from activation.graders import parse_graders as parse_registered


def parse_graders(data: object, where: str) -> tuple[Grader, ...]:
    """A case's graders from parsed JSON or YAML: a list, or an object with a `graders` list.
    `where` names the file and case in every error."""
    if isinstance(data, Mapping):
        data = data.get("graders")
    if not isinstance(data, list):
        raise InputError(f"{where}: the graders must be a list")
    try:
        return parse_registered(data)
    except GraderError as problem:
        raise InputError(f"{where}: {problem}") from None
