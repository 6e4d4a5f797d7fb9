"""Plain-text prompt files (obra/superpowers' `tests/explicit-skill-requests/prompts/`):
which skill a file is about, whether it is a positive, and the folder it is read with."""

from __future__ import annotations

import pytest

from activation._models import Case
from activation.inputs.formats.prompt_text import folder_of, is_negative, read, skill_of

SKILLS = {"brainstorming", "systematic-debugging", "subagent-driven-development", "debugging"}


@pytest.mark.parametrize(
    ("path", "skill"),
    [
        ("tests/x/prompts/please-use-brainstorming.txt", "brainstorming"),
        ("tests/x/prompts/use-systematic-debugging.txt", "systematic-debugging"),  # the longest
        ("tests/x/prompts/subagent_driven_development_please.txt", "subagent-driven-development"),
        ("tests/brainstorming/prompts/ask.txt", "brainstorming"),  # its folder, first
        ("tests/brainstorming/prompts/use-debugging.txt", "brainstorming"),
        ("tests/x/prompts/action-oriented.txt", None),
        ("tests/x/prompts/brainstormingx.txt", None),  # whole words only
    ],
)
def test_a_prompt_file_is_named_by_its_folder_else_its_name(path: str, skill: str | None) -> None:
    assert skill_of(path, SKILLS) == skill


def test_a_negative_folder_makes_negatives_read_with_their_prompts_folder() -> None:
    path = "tests/x/prompts/negative/debugging-haiku.txt"
    assert (is_negative(path), folder_of(path)) == (True, "tests/x/prompts")
    assert (is_negative("tests/x/prompts/a.txt"), folder_of("a/b.txt")) == (False, "a")
    checked = read(path, "  a haiku about bugs\n", "debugging")
    assert checked.cases == (
        Case("debugging-haiku", "a haiku about bugs", False, "", ("negative",)),
    )
    assert (checked.written_for, checked.format, checked.problems) == (
        "debugging",
        "prompt-text",
        (),
    )
    empty = read("tests/x/prompts/a.txt", "\n", None)
    assert [problem.message for problem in empty.problems] == ["the prompt file is empty"]
