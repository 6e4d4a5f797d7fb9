"""The skill menu, in the agent's own listing format, shuffled per trial.

The permutation depends only on the seed, the case and the trial index, never on the
variant, so both variants of a trial see the same order and position bias cancels out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

HEADING = "The following skills are available for use with the Skill tool:"


@dataclass(frozen=True)
class MenuEntry:
    name: str
    description: str


def one_line(text: str) -> str:
    return " ".join(text.split())


def permutation(seed: int, case_id: str, trial: int, size: int) -> tuple[int, ...]:
    order = list(range(size))
    random.Random(f"{seed}\x00{case_id}\x00{trial}").shuffle(order)
    return tuple(order)


def build_menu(
    target: MenuEntry, distractors: Sequence[MenuEntry], order: Sequence[int]
) -> tuple[MenuEntry, ...]:
    """The target first, then the distractors, then reordered by `order`."""
    entries = (target, *distractors)
    return tuple(entries[i] for i in order)


def render_menu(entries: Sequence[MenuEntry]) -> str:
    lines = [HEADING, ""]
    lines += [f"- {entry.name}: {one_line(entry.description)}" for entry in entries]
    return "\n".join(lines)
