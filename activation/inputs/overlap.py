"""How alike two skills' listing entries are: skills that read alike get confused.

The measure is the Sørensen-Dice coefficient of the two entries' content words (the words
`lint` counts: lower-cased, plural `s` stripped, stop words and the generic vocabulary of
skill descriptions left out): 2 |A ∩ B| / (|A| + |B|), from 0 (no word shared) to 1 (the
same words). It is computed by RapidFuzz as the normalised Indel similarity of the two
sorted word sets, which for sets is exactly Dice. Words rather than characters, because two
descriptions that share their boilerplate and differ in every topic word are not
confusable, while two that name the same products in another order are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from activation._models import Skill
from activation.inputs.words import content_words


def listed_text(skill: Skill) -> str:
    """The words the agent shows for a skill: its description and its `when_to_use`."""
    return " ".join(part for part in (skill.description, skill.when_to_use) if part)


def similarity(one: str, other: str) -> float:
    """The Dice coefficient of the two texts' content words (0 when either has none)."""
    first, second = sorted(content_words(one)), sorted(content_words(other))
    if not first or not second:
        return 0.0
    return float(Indel.normalized_similarity(first, second))


@dataclass(frozen=True)
class Overlap:
    first: str
    second: str
    score: float


def overlaps(ours: Sequence[Skill], others: Sequence[Skill], floor: float) -> list[Overlap]:
    """Every pair of a menu with at least one of `ours` in it scoring `floor` or more,
    most alike first."""
    found = []
    menu = [*ours, *others]
    for i, skill in enumerate(ours):
        for other in menu[i + 1 :]:
            score = similarity(listed_text(skill), listed_text(other))
            if score >= floor:
                found.append(Overlap(skill.name, other.name, score))
    return sorted(found, key=lambda overlap: -overlap.score)
