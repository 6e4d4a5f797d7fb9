"""SKILL.md frontmatter, read with a real YAML parser (never a regex)."""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from activation._errors import InputError


@dataclass(frozen=True)
class SkillDocument:
    """A SKILL.md split into its parsed frontmatter and its body."""

    frontmatter: dict[str, object]
    frontmatter_text: str
    body: str

    @property
    def name(self) -> str | None:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else None

    @property
    def description(self) -> str:
        """Stripped: a block scalar's trailing newline is not part of what the agent shows."""
        return str(self.frontmatter["description"]).strip()


def split_document(text: str, source: str) -> SkillDocument:
    """Parse a SKILL.md's text; BOM and CRLF are normalised away first."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise InputError(f"{source}: no YAML frontmatter (the file must start with '---')")
    closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if closing is None:
        raise InputError(f"{source}: the YAML frontmatter is not closed by a '---' line")
    frontmatter_text = "\n".join(lines[1:closing])
    try:
        data = yaml.safe_load(frontmatter_text)
    except yaml.YAMLError as error:
        first_line = str(error).splitlines()[0]
        raise InputError(f"{source}: the frontmatter is not valid YAML ({first_line})") from None
    if not isinstance(data, dict):
        raise InputError(f"{source}: the frontmatter is not a YAML mapping")
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        kind = type(description).__name__
        raise InputError(f"{source}: the frontmatter's 'description' is not text (a YAML {kind})")
    if description is None:
        raise InputError(f"{source}: the frontmatter has no 'description'")
    if not description.strip():
        raise InputError(f"{source}: the description is empty")
    return SkillDocument(data, frontmatter_text, "\n".join(lines[closing + 1 :]))


def read_description(text: str, source: str) -> str:
    return split_document(text, source).description
