"""The grader types: one module each (its record, reading, checks and grading), one line
each in `REGISTRY`.

Adding a grader type is a module holding `GRADER`, a subclass of `base.Grader` declared by
`@grader_type(name)`, and its line here; the loader (parse.py), lint, the run and the docs' grader
table all read the registry. `tests/commands/test_registered_grader.py` registers a type
inside a test and runs it through lint, a Stage C run and every output.
"""

from __future__ import annotations

from collections.abc import Sequence

from activation.graders import (
    all_of,
    command,
    command_not_ran,
    command_ran,
    contains,
    contains_any,
    file_contains,
    file_read,
    judge,
    matches,
    max_tool_calls,
    max_turns,
    not_contains,
    not_contains_any,
    not_contains_in_source,
    not_matches,
    tool_not_used,
    tool_used,
)
from activation.graders.base import Grader
from activation.graders.parse import GraderError, parse_grader

REGISTRY: dict[str, type[Grader]] = {
    module.GRADER.type: module.GRADER
    for module in (
        contains,
        contains_any,
        not_contains,
        not_contains_any,
        not_contains_in_source,
        matches,
        not_matches,
        file_contains,
        all_of,
        command,
        judge,
        tool_used,
        tool_not_used,
        command_ran,
        command_not_ran,
        file_read,
        max_turns,
        max_tool_calls,
    )
}
"""Type name -> its class, in the order the docs list them."""


def parse_graders(data: Sequence[object]) -> tuple[Grader, ...]:
    """Graders from parsed JSON or YAML, numbered from 1; a GraderError naming the first bad
    one."""
    return tuple(parse_grader(raw, str(number), REGISTRY) for number, raw in enumerate(data, 1))


__all__ = ["REGISTRY", "Grader", "GraderError", "parse_graders"]
