"""The files a changed skill's SKILL.md refers to that the change leaves missing: lint's
reference check (references.py) run over both versions of the skill, so `activation changed`
fails a change that deletes or moves a file the body still names (or that adds a link to a
file that is not there), and names the references that were broken before it as not its
doing. Pure: both versions come in as path -> bytes trees (changes.py).

A path outside the places skills are read from (a file of the user's project beside a
`.claude/skills/` skill) is not in the trees: it is taken to be there, and `lint` checks it
on disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath

from activation._errors import InputError
from activation.inputs.changes import (
    SkillChange,
    SkillPlace,
    Tree,
    marketplace_of,
    skills_in,
    tree_filter,
)
from activation.inputs.frontmatter import read_sibling
from activation.inputs.references import Around, missing_reference_lines
from activation.inputs.target import (
    MANIFEST,
    MARKETPLACE,
    ROOT_SKILL,
    MarketplacePlugin,
    fallback_plugin_root,
    nested_skills_folder,
    set_root,
)
from activation.inputs.variants import decode_skill
from activation.inputs.words import named_lines


@dataclass(frozen=True)
class ReferenceBreaks:
    """A changed skill's references the agent will not find at the head."""

    caused: tuple[str, ...] = ()
    """Broken by the change: a file it deleted or moved, or a link it added to no file."""
    before: tuple[str, ...] = ()
    """Links that were broken at the base already and still are."""


@dataclass(frozen=True)
class _Tree:
    """One version of the repo's skill files, indexed once for every skill's lookups: its
    files and the folders that hold them, its skills, and its marketplace's plugins."""

    files: Tree
    paths: frozenset[str]
    skills: Mapping[str, SkillPlace]
    served: Sequence[MarketplacePlugin]
    read: Callable[[str], bool]
    """Whether a path lies where the tree was read from (`changes.tree_filter`)."""

    @classmethod
    def of(cls, tree: Tree, folder: str) -> _Tree:
        folders = {parent.as_posix() for path in tree for parent in PurePosixPath(path).parents}
        served = marketplace_of(tree.get(MARKETPLACE.as_posix()))
        paths = frozenset({*tree, *folders})
        return cls(tree, paths, skills_in(tree, folder), served, tree_filter(served))

    def has(self, path: str) -> bool:
        """A file of the tree, or a folder holding one, or a path where no tree reads (a
        file of the user's project: taken to be there)."""
        return path in self.paths or not self.read(path)


@dataclass(frozen=True)
class _Version:
    """One version of a skill: its files (relative to its folder), what lies around it, and
    its body with the line the body starts after."""

    files: tuple[str, ...]
    around: Around
    body: str
    offset: int


def reference_breaks(
    changes: Sequence[SkillChange], base: Tree, head: Tree, folder: str = ""
) -> dict[str, ReferenceBreaks]:
    """What each change does to the files its skill refers to, by SKILL.md path (`folder`:
    the repo's name, a root skill's id when its SKILL.md names none)."""
    before, after = _Tree.of(base, folder), _Tree.of(head, folder)
    return {change.place.path: _breaks(change, before, after) for change in changes}


def _breaks(change: SkillChange, base: _Tree, head: _Tree) -> ReferenceBreaks:
    """Nothing for a skill that is not at both versions, or whose SKILL.md does not parse
    at either."""
    if change.status not in ("modified", "renamed"):
        return ReferenceBreaks()
    before = _version(base, change.renamed_from or change.place)
    after = _version(head, change.place)
    if before is None or after is None:
        return ReferenceBreaks()
    found = missing_reference_lines(after.body, after.files, after.around)
    with_old_files = {
        ref.path for ref in missing_reference_lines(after.body, before.files, before.around)
    }
    at_base = {
        ref.path for ref in missing_reference_lines(before.body, before.files, before.around)
    }
    caused = [
        (ref.line, f"names {ref.path}, which this change removes")
        for ref in found
        if ref.path not in with_old_files
    ]
    caused += [
        (ref.line, f"refers to {ref.path}, which the skill lacks")
        for ref in found
        if ref.path in with_old_files and ref.certain and ref.path not in at_base
    ]
    said = {ref.path.lower() for ref in found}
    gone = [path for path in before.files if path not in after.files and path.lower() not in said]
    caused += [
        (line, f"names {name}, which this change removes")
        for name, line in named_lines(after.body, gone)
    ]
    shown = f"{change.place.path}:"
    return ReferenceBreaks(
        tuple(
            f"{shown}{after.offset + line} {what}: the agent will not find it"
            for line, what in sorted(caused)
        ),
        tuple(
            f"{shown}{after.offset + ref.line} refers to {ref.path}, which the skill lacks"
            for ref in found
            if ref.certain and ref.path in at_base
        ),
    )


def _version(tree: _Tree, place: SkillPlace) -> _Version | None:
    """The skill at `place` (None: not there, or its SKILL.md does not parse)."""
    if place.path not in tree.files:
        return None
    try:
        text = decode_skill(tree.files[place.path], place.path)
        document = read_sibling(text, place.path)
    except InputError:
        return None
    prefix = f"{place.folder}/" if place.folder != "." else ""
    files = tuple(path.removeprefix(prefix) for path in tree.files if path.startswith(prefix))
    offset = len(text.splitlines()) - len(document.body.splitlines())
    return _Version(files, _around(tree, place), document.body, offset)


def _around(tree: _Tree, place: SkillPlace) -> Around:
    """Where else the agent finds a path the skill names: its plugin's root, its project's
    root (a skill of a project's skills folder), another skill of its set."""
    if PurePosixPath(place.path) == ROOT_SKILL:
        return Around()
    skill = PurePosixPath(place.path)
    found = set_root(
        skill, lambda: tree.served, lambda folder: tree.has((folder / MANIFEST).as_posix())
    )
    nested = nested_skills_folder(skill)
    plugin = found.root if found.plugin else None if nested else fallback_plugin_root(skill)
    project = found.root.parent.parent if nested else None
    others = [
        other.folder
        for other in tree.skills.values()
        if other.set_root == place.set_root and other.folder != place.folder
    ]
    return Around(
        plugin=_under(tree, plugin),
        project=_under(tree, project),
        sibling=lambda path: any(f"{folder}/{path}" in tree.paths for folder in others),
    )


def _under(tree: _Tree, folder: PurePath | None) -> Callable[[str], bool]:
    """Whether a path relative to `folder` is in the tree, or lies where no tree reads."""
    if folder is None:
        return lambda _path: False
    prefix = "" if folder == PurePath() else f"{folder.as_posix()}/"
    return lambda path: tree.has(f"{prefix}{path}")
