"""Distractor skills for the menu, and where the bundled suite lives.

Asking "would you invoke this skill?" with the target alone on the menu primes a yes and makes
every negative case meaningless, so the target is always listed among other skills. Several
distractors are auth-adjacent on purpose: a near-miss negative then has a correct home to go
to, and only a description that really discriminates keeps the target out of it.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from activation.errors import InputError
from activation.frontmatter import split_document


@dataclass(frozen=True)
class Skill:
    """One menu entry: the agent sees only a skill's name and description."""

    name: str
    description: str


BUNDLED_SUITE: Path = Path(str(importlib.resources.files("activation") / "suite"))
"""The installed suite (package data), wherever the package was installed from."""
BUNDLED_CASES: Path = BUNDLED_SUITE / "cases.json"
BUNDLED_DISTRACTORS: Path = BUNDLED_SUITE / "distractors"
BUNDLED_CALIBRATION: Path = BUNDLED_SUITE / "calibration"


def load_distractors(directory: Path) -> tuple[Skill, ...]:
    """One skill per `*.md` file, sorted by file name so the menu is the same on every machine.

    The name comes from the frontmatter's `name`, else the file stem, matching how a SKILL.md
    is named by its folder when the frontmatter omits it.
    """
    if not directory.is_dir():
        raise InputError(f"distractors folder not found: {directory}")
    files = sorted(path for path in directory.glob("*.md") if path.is_file())
    if not files:
        raise InputError(f"{directory}: no distractor skills (expected one *.md file per skill)")
    skills: list[Skill] = []
    origin: dict[str, Path] = {}
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise InputError(f"cannot read distractor {path}: {reason}") from None
        document = split_document(text, str(path))
        name = (document.name or path.stem).strip()
        if not name:
            raise InputError(f"{path}: the frontmatter 'name' is empty")
        if name in origin:
            raise InputError(
                f"duplicate distractor name {name!r} in {origin[name].name} and {path.name}"
            )
        origin[name] = path
        skills.append(Skill(name=name, description=document.description))
    return tuple(skills)
