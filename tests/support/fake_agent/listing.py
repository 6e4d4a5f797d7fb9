"""The fake agent's listing: every skill with a string description, as Agent Skills XML
under a heading, in the order given, with no budget (nothing is ever cut)."""

from __future__ import annotations

from dataclasses import replace

from activation._models import Inputs
from activation.trials.listing.model import (
    PROJECT_SKILLS,
    UNBOUNDED,
    Entry,
    ListedSkill,
    Listing,
    Menu,
    xml_entries,
)

HEADING = "Skills you can load:\n<available_skills>"
CLOSING = "\n</available_skills>"
EMPTY = "No skills."


def entry(skill: ListedSkill, location: str) -> Entry:
    """`<skill>` with the name it is loaded by (its frontmatter `name`, else its folder)."""
    name = skill.name if isinstance(skill.name, str) else skill.folder
    line = (
        f"  <skill><name>{name}</name><description>{skill.description}</description>"
        f"<location>{location}</location></skill>"
    )
    return Entry(skill.id, line, "full", skill.source, line, shown=name)


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The skills as project skills under the repository's `.agents/skills/<folder>/`."""
    root = inputs.target.repo / PROJECT_SKILLS
    entries = tuple(
        entry(skill, str(root / skill.folder / "SKILL.md"))
        for skill in skills
        if isinstance(skill.description, str)
    )
    draft = Listing(HEADING, entries, UNBOUNDED, 0, 0, separator="\n", closing=CLOSING,
                    empty=EMPTY, unit="characters")  # fmt: skip
    size = len(draft.text)
    return replace(draft, width=size, full_width=size)


def read_back(text: str) -> Menu | None:
    """Its XML entries, after its heading."""
    return xml_entries(text) if HEADING in text else None


def description_limit(when_to_use: str | None) -> None:
    """The fake agent cuts nothing."""
    return None
