"""What every format's reader shares: the parsed file, how well it fits a format, and the
small readers of the fields the formats have in common (a prompt, a reason, a skill)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from activation.inputs.cases import Problem

Kind = Literal["json", "jsonl", "yaml"]


@dataclass(frozen=True)
class Document:
    """A case file as read: its path, its content parsed (JSON Lines as the list of its
    rows), how it was parsed, and `folder_skill`, the skill whose folder (the one holding a
    SKILL.md) the file lies in, if any: how a file that does not name its skill is named."""

    path: str
    data: object
    kind: Kind = "json"
    folder_skill: str | None = None

    @property
    def stem(self) -> str:
        return PurePath(self.path).stem

    @property
    def name(self) -> str:
        return PurePath(self.path).name


@dataclass(frozen=True)
class Fit:
    """How a document fits a format: `lacks` is None when it does; else what it lacks, and
    `score`, how much of the format's shape it has (the nearest format scores highest)."""

    format: str
    lacks: str | None
    score: int = 0


def text(raw: Mapping[str, object], *keys: str) -> str | None:
    """The first of `keys` holding non-blank text, stripped at the ends."""
    for key in keys:
        value = raw.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def reason(raw: Mapping[str, object]) -> str:
    """The reason the file gives for the case (`why` or `reason`), or "" when it has none:
    a reason is never invented."""
    return text(raw, "why", "reason") or ""


def skill_named(raw: Mapping[str, object], *keys: str) -> str | None:
    """The skill a file names at its top level (`skill`, `skill_name`)."""
    return text(raw, *keys)


def owner(value: object, where: str) -> tuple[str, ...] | Problem:
    """A skill a case belongs to: a name, or null or "" for no skill at all."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ()
    if isinstance(value, str):
        return (value.strip(),)
    return Problem(None, f'{where}: must be a skill name, "" or null')


def rows(data: object) -> list[Mapping[str, object]] | None:
    """`data` as a list of objects, or None when it is not one."""
    if isinstance(data, list) and data and all(isinstance(row, Mapping) for row in data):
        return list(data)
    return None


def share(found: int, of: int) -> int:
    """A fit's score: how many of the `of` marks of a format a document shows, out of 100."""
    return 100 * found // of if of else 0
