"""The skills a Stage B run installs, per variant: the copies (`plugin_copy`) seen skill by
skill, with the name each lists itself by and the nonce its copy carries.

A detector needs both: an agent names a skill it loads by its frontmatter `name` (OpenCode)
or reaches it by its folder (Codex), and a load counts for a skill only when its own copy's
content came back (the nonce). An agent without plugins (OpenCode, Codex) finds every skill
as a project skill, so `install_project_skills` puts each skill's folder under the run's
`<work>/.agents/skills/`, where both look and where Stage A's listing shows them.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from activation._documents import document_of
from activation._errors import InputError
from activation._models import VARIANTS, Inputs, VariantName
from activation.inputs.frontmatter import read_listed
from activation.trials.agent.plugin_copy import CatalogCopy, Copies, mark, set_folders
from activation.trials.listing.model import PROJECT_SKILLS

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class SkillCopy:
    """One skill's folder in the copies."""

    id: str
    """The id the menu and the report use (`<plugin>:<folder>`, or the bare folder)."""
    folder: Path
    name: str | None
    """Its frontmatter `name` when that is a string."""
    nonce: str | None = None
    """The nonce its copy's SKILL.md carries (None: not marked)."""
    absent: bool = False
    """Not installed: Stage C's `none` arm keeps the target's id for the detector (a load
    of it can never be seen) and puts nothing of the set on disk."""
    nested: bool = False
    """A SKILL.md inside another skill's folder, which an agent that walks the whole tree
    loads as a skill of its own: installed with that folder, never on its own."""


@dataclass(frozen=True)
class SkillSet:
    """One variant's skills as its runs install them."""

    root: Path
    """The copy of the set: a plugin's root, or a skills folder."""
    in_plugin: bool
    catalog: CatalogCopy
    skills: tuple[SkillCopy, ...]
    """The set's skills, the measured one first, then the catalog's."""

    @property
    def target(self) -> SkillCopy:
        return self.skills[0]


@dataclass(frozen=True)
class RecordedSkill:
    id: str
    name: str | None
    """The name it lists itself by (its frontmatter `name`)."""
    nonce: str | None
    """The nonce its copy carried (None: not marked)."""


@dataclass(frozen=True, kw_only=True)
class SkillsRecord:
    """What a detector needs of a variant's skills (`activation-skills/1`), kept beside its
    runs' transcripts so `activation detect` can read one again."""

    schema: Literal["activation-skills/1"] = "activation-skills/1"
    skills: tuple[RecordedSkill, ...]
    """The measured skill first, then the rest of the set and the catalog."""


def skills_record(skills: SkillSet) -> SkillsRecord:
    return SkillsRecord(
        skills=tuple(RecordedSkill(skill.id, skill.name, skill.nonce) for skill in skills.skills)
    )


def skills_from_record(data: object, target: str, source: str) -> SkillSet:
    """The skills a saved record lists, `target` first (InputError when it lists no such
    skill or is not such a record)."""
    try:
        record = document_of(data, SkillsRecord)
    except ValueError:
        raise InputError(f"{source}: not the skills record of a Stage B run") from None
    found = [
        SkillCopy(entry.id, Path(entry.id), entry.name, entry.nonce) for entry in record.skills
    ]
    chosen = [skill for skill in found if skill.id == target]
    if not chosen:
        known = ", ".join(skill.id for skill in found)
        raise InputError(f"{source} lists no skill {target!r} (it lists {known})")
    rest = tuple(skill for skill in found if skill.id != target)
    return SkillSet(Path(source), False, CatalogCopy(), (chosen[0], *rest))


def named_only(skill: str) -> SkillSet:
    """Just the skill, by its id: what a detector that reads loads by name needs."""
    return SkillSet(Path(skill), False, CatalogCopy(), (SkillCopy(skill, Path(skill), None),))


def skill_sets(
    inputs: Inputs, copies: Copies, *, marked: bool, nested: bool = False
) -> dict[VariantName, SkillSet]:
    """Each variant's skills in `copies`; with `marked`, every copied SKILL.md gets its
    nonce first (the catalog's copy, which both variants share, once); with `nested`, the
    SKILL.md files inside another skill's folder are skills too, after the set's (the
    agent lists them: `Agent.nested_skills`)."""
    catalog = tuple(_skill(id, folder, marked) for id, folder in copies.catalog.folders)
    sets = {}
    for name in VARIANTS:
        variant, root = inputs.variant(name), copies.sets[name]
        own = set_folders(inputs.target, variant, root)
        inside = set_folders(inputs.target, variant, root, nested=True) if nested else ()
        skills = (
            *(_skill(id, folder, marked) for id, folder in own),
            *(_skill(id, folder, marked, nested=True) for id, folder in inside),
            *catalog,
        )
        sets[name] = SkillSet(root, inputs.target.in_plugin, copies.catalog, skills)
    return sets


def without_set(skills: SkillSet, empty: Path) -> SkillSet:
    """`skills` with nothing of the measured set installed (Stage C's `none` arm): an empty
    `empty` folder as the set's root, the target kept by id only, the catalog as it was."""
    target = SkillCopy(skills.target.id, empty / skills.target.folder.name, None, absent=True)
    catalog_ids = {id for id, _ in skills.catalog.folders}
    catalog = tuple(skill for skill in skills.skills if skill.id in catalog_ids)
    return SkillSet(empty, False, skills.catalog, (target, *catalog))


def _skill(id: str, folder: Path, marked: bool, nested: bool = False) -> SkillCopy:
    skill_file = folder / SKILL_FILE
    nonce = mark(skill_file) if marked else None
    document = read_listed(skill_file.read_text(encoding="utf-8"), str(skill_file))
    return SkillCopy(id, folder, document.name, nonce, nested=nested)


def project_folders(skills: SkillSet) -> Mapping[str, SkillCopy]:
    """Each skill by the folder name it gets under `.agents/skills/`; InputError when two
    skills would share one (an agent without plugins finds both in one folder)."""
    folders: dict[str, SkillCopy] = {}
    for skill in skills.skills:
        if skill.absent or skill.nested:
            continue
        other = folders.setdefault(skill.folder.name, skill)
        if other is not skill:
            raise InputError(
                f"{skill.id} and {other.id} are both in a folder named {skill.folder.name!r}: "
                f"an agent without plugins finds every skill under {PROJECT_SKILLS}/<folder>/, "
                "so it can install only one of them (rename one, or leave it out of --catalog)"
            )
    return folders


def install_project_skills(skills: SkillSet, work: Path) -> Path:
    """Copy every skill's folder to `<work>/.agents/skills/<folder>/`; the skills root."""
    root = work / PROJECT_SKILLS
    for folder, skill in project_folders(skills).items():
        shutil.copytree(skill.folder, root / folder, symlinks=False)
    return root
