"""Which distractor skills join the menu, and the note that names the set every output shows.

A skill alone on the menu primes a yes and makes every negative meaningless, so a lone
skill gets company; a set with siblings, or a `--catalog`, already gives each prompt other
homes. The company must be realistic for the skill's field: the bundled `generic` set
(common developer skills tied to no vendor: PDF files, tests, git, review, docs, data,
shell, dependencies) for any skill, the bundled `auth0` set (several auth-adjacent on
purpose) only for the bundled auth0 skill its suite was written for, or when named.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from activation._models import Skill
from activation.inputs.suite import BUNDLED_SKILL, DISTRACTOR_SETS

NO_DISTRACTORS: Literal["none"] = "none"
"""`--distractors none`: the menu lists the set (and the catalog) alone."""
DistractorsChoice = Path | Literal["none"] | None
"""`--distractors`: a folder (a bundled set's name is its folder), `none`, or unset
(decided by the set: `distractors_folder`)."""
SET_WORDS = {
    "auth0": "auth0-adjacent on purpose, written for the bundled auth0 suite",
    "generic": "common developer skills tied to no vendor",
}
"""What each bundled set is, in the note."""


def choose_distractors(value: str) -> Path | Literal["none"]:
    """`--distractors VALUE`: `none`, a bundled set's name (`auth0`, `generic`), else a
    folder (`./auth0` for a folder of your own with a set's name)."""
    if value == NO_DISTRACTORS:
        return NO_DISTRACTORS
    return DISTRACTOR_SETS.get(value, Path(value))


def distractors_folder(
    choice: DistractorsChoice, siblings: bool, catalog: bool, target: str
) -> Path | None:
    """The folder whose skills the menu adds, or None for none. Unset, only a skill that
    would be alone on the menu gets company: the auth0 set for the bundled auth0 skill
    (`target`, its id), the generic set for any other."""
    if choice == NO_DISTRACTORS:
        return None
    if choice is not None:
        return Path(choice)
    if siblings or catalog:
        return None
    return DISTRACTOR_SETS["auth0" if target == BUNDLED_SKILL else "generic"]


def distractors_note(distractors: Sequence[Skill]) -> str | None:
    """Which distractor set the menu adds, said whenever a run lists some: they take
    trials and listing budget from the user's skills."""
    if not distractors:
        return None
    folders = {Path(skill.path).parent for skill in distractors if skill.path}
    count = f"{len(distractors)} distractor skill(s)"
    named = [name for name, folder in DISTRACTOR_SETS.items() if folders == {folder}]
    if named:
        name = named[0]
        others = " or ".join(f"--distractors {other}" for other in DISTRACTOR_SETS if other != name)
        return (
            f"the menu adds {count} from the bundled {name} set ({SET_WORDS[name]}); "
            f"{others}, --distractors DIR for your own, --distractors none for none"
        )
    where = ", ".join(sorted(str(folder) for folder in folders))
    return f"the menu adds {count} from {where} (--distractors; none: --distractors none)"
