"""Stage A's request: the skill menu in the agent's own listing format, and the question.

The menu is shuffled per trial; the permutation depends only on the seed, the case and the
trial index, never on the variant, so both variants of a trial see the same order and
position bias cancels out in the comparison.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from activation._models import Skill

HEADING = "The following skills are available for use with the Skill tool:"

INSTRUCTIONS = """\
You are the skill router of an AI coding agent. The agent has skills: packaged instructions \
it loads with the Skill tool when a user's request matches what a skill says it is for. \
The user's request follows. Decide which skills the agent would invoke with the Skill tool \
before doing anything else for this request: only skills whose description fits the \
request, possibly none. Answer with the names exactly as listed.

{menu}"""


def one_line(text: str) -> str:
    return " ".join(text.split())


def permutation(seed: int, case_id: str, trial: int, size: int) -> tuple[int, ...]:
    order = list(range(size))
    random.Random(f"{seed}\x00{case_id}\x00{trial}").shuffle(order)
    return tuple(order)


def build_menu(
    target: Skill, distractors: Sequence[Skill], order: Sequence[int]
) -> tuple[Skill, ...]:
    """The target first, then the distractors, then reordered by `order`."""
    entries = (target, *distractors)
    return tuple(entries[i] for i in order)


def render_menu(entries: Sequence[Skill]) -> str:
    lines = [HEADING, ""]
    lines += [f"- {entry.name}: {one_line(entry.description)}" for entry in entries]
    return "\n".join(lines)


def system_prompt(menu: Sequence[Skill]) -> str:
    return INSTRUCTIONS.format(menu=render_menu(menu))


def answer_schema(names: Sequence[str]) -> dict[str, object]:
    """The structured answer: the chosen names, from the menu only (none is an answer too)."""
    return {
        "type": "object",
        "properties": {
            "skills": {"type": "array", "items": {"type": "string", "enum": sorted(set(names))}}
        },
        "required": ["skills"],
        "additionalProperties": False,
    }
