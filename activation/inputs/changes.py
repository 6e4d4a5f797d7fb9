"""What a change touched, per skill: the files of a repo's skill sets at two versions (the
base, and the head) compared skill by skill.

A change to a skill is one or more kinds: `description` (what the agent lists: the
description, `when_to_use`, the name, whether it is hidden from the model, and the per-agent
metadata files some agents list it by: Codex's `agents/openai.yaml`), `body` (the text
below the frontmatter, or any other file of the skill's folder: references, scripts), and
`other` (the rest of the frontmatter, or the skill's own cases and evals, which test the
skill and are not part of it). Pure: both versions come in as path -> bytes mappings, read by
git_tree.py (a ref) or the command (the working tree).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import PurePath, PurePosixPath
from typing import Literal

import orjson

from activation._config import AGENT_METADATA, PLUGINS_DIR, SKILL_FOLDERS
from activation._errors import InputError
from activation._models import skill_id
from activation.inputs.frontmatter import SkillDocument, read_sibling
from activation.inputs.target import (
    MANIFEST,
    MARKETPLACE,
    NESTED_SKILL_FOLDERS,
    ROOT_SKILL,
    SKILL_FILE_NAME,
    MarketplacePlugin,
    marketplace_plugin,
    marketplace_plugins,
    nested_in_skill,
    plugin_name_from_manifest,
    root_skill_name,
    set_root,
    skills_folder,
)
from activation.inputs.variants import decode_skill

Tree = Mapping[str, bytes]
"""A version of the repo's skill files: repo-relative POSIX path -> content."""
ChangeKind = Literal["description", "body", "other"]
ChangeStatus = Literal["modified", "added", "removed", "renamed"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("description", "body", "other")
LISTED_KEYS = ("description", "when_to_use", "name", "disable-model-invocation")
"""The frontmatter keys the agent's listing is made of (or hidden by)."""
CASES_FILE = "cases.json"
"""A skill's activation cases, beside its SKILL.md (or `<anything>.cases.json` anywhere)."""
EVALS_FOLDER = "evals"
"""A skill's behavior suite, in its folder (as `activation behavior` reads `evals/`)."""
ROOT_SKILL_FOLDERS = ("references", "scripts", "assets", "agents")
"""The folders of a skill at the repo's root besides its SKILL.md (the Agent Skills
layout's), whose files are its body."""


def in_skill_roots(path: str, also: Sequence[str] = ()) -> bool:
    """Whether a repo path lies where skills are looked for: under `plugins/`, a root
    skills folder, or a `.claude/skills`/`.agents/skills` folder anywhere; or names them
    (the root's plugin manifest or marketplace file); or is a root skill's SKILL.md or
    file of its folders; or lies in one of the folders `also` (those a marketplace names:
    `tree_filter`)."""
    roots = (PLUGINS_DIR, *SKILL_FOLDERS, *ROOT_SKILL_FOLDERS, *also)
    if path in (MANIFEST.as_posix(), MARKETPLACE.as_posix(), ROOT_SKILL.as_posix()):
        return True  # a plugin at the root, or a marketplace: they name the skills below
    if any(path.startswith(f"{root}/") for root in roots):
        return True
    return any(f"/{nested}/" in path for nested in NESTED_SKILL_FOLDERS)


CASE_SUFFIXES = (".json", ".jsonl", ".ndjson", ".yaml", ".yml", ".csv")
"""The suffixes of the case formats `read_cases` reads (docs/formats.md)."""


def is_cases_file(path: str) -> bool:
    """A file named as some format's cases are: `cases.json` or `<name>.cases.json` (this
    tool's), a JSON file named for a trigger eval set (`trigger-eval.json`,
    `evals/trigger_eval_set.json`: skill-creator's), or a YAML file named for trigger or
    skill tests (`trigger_tests.yaml`, the skill-test action's `skill-tests.yaml`; not a
    `trigger-deploy.yml` workflow). Such a file is a cases file whatever it holds."""
    name = PurePosixPath(path).name.lower()
    if name == CASES_FILE or name.endswith(f".{CASES_FILE}"):
        return True
    stem, _, suffix = name.rpartition(".")
    if suffix in ("yaml", "yml") and "test" in stem.partition("skill")[2]:
        return True
    after = stem.split("trigger", 1)[1] if "trigger" in stem else None
    if after is None:
        return False
    if suffix == "json":
        return "eval" in after
    return suffix in ("yaml", "yml") and ("test" in after or "eval" in after)


def may_hold_cases(path: str, skill_folders: Collection[str]) -> bool:
    """Whether a file lies where a case format keeps its files and has one's suffix: in a
    skill's folder or a folder of it (`refunds/evals/trigger-eval.json`), beside the skill
    folders (`skills/refunds.jsonl`), in any `evals/` folder (`evals/negatives.jsonl`) or at
    the repo's top. Such a file is a cases file when its shape is one format's."""
    file = PurePosixPath(path)
    if file.suffix.lower() not in CASE_SUFFIXES:
        return False
    folder = file.parent.as_posix()
    if folder == "." or EVALS_FOLDER in file.parent.parts:
        return True
    sets = {PurePosixPath(skill).parent.as_posix() for skill in skill_folders}
    return (
        any(folder == skill or folder.startswith(f"{skill}/") for skill in skill_folders)
        or folder in sets
    )


@dataclass(frozen=True)
class SkillPlace:
    """Where a skill lives and what the agent calls it."""

    path: str
    """Its SKILL.md, repo-relative."""
    set_root: str
    """The folder holding its set's skill folders (`<plugin>/skills`, `.claude/skills`)."""
    id: str
    alias: str = ""
    """The id by its frontmatter name, when that differs from its folder's
    (`toolkit:claude-code-skill-development`): Claude Code lists it beside the id, resolves
    it to this skill, and a case file may name the skill by it."""

    @property
    def folder(self) -> str:
        return PurePosixPath(self.path).parent.as_posix()

    @property
    def name(self) -> str:
        """Its folder's name; a root skill's id (its folder is the checkout)."""
        return PurePosixPath(self.path).parent.name or self.id

    def below(self, name: str) -> str:
        """The repo path of `name` in its folder."""
        return (PurePosixPath(self.folder) / name).as_posix()


def _served(tree: Tree) -> list[MarketplacePlugin]:
    """The plugins the tree's marketplace file serves from the repo (none without one)."""
    served = MARKETPLACE.as_posix()
    if served not in tree:
        return []
    try:
        data = orjson.loads(tree[served])
    except orjson.JSONDecodeError:
        raise InputError(f"{served}: the marketplace file is not valid JSON") from None
    return marketplace_plugins(data, served)


def marketplace_of(data: bytes | None) -> list[MarketplacePlugin]:
    """The plugins a marketplace file's bytes serve (none without the file)."""
    return [] if data is None else _served({MARKETPLACE.as_posix(): data})


def tree_filter(served: Sequence[MarketplacePlugin]) -> Callable[[str], bool]:
    """Which repo paths a version of the skill sets is read from: `in_skill_roots`, and
    the folders the marketplace's plugins load skills from wherever they lie (a plugin
    at `./dbt`), and those a refused entry names (so their changes can be said)."""
    folders = {
        folder.as_posix()
        for plugin in served
        for folder in (*plugin.folders, *plugin.unloaded)
        if folder != PurePath()
    }
    return partial(in_skill_roots, also=tuple(sorted(folders)))


def unloaded_lines(base: Tree, head: Tree) -> list[str]:
    """A line for each folder a refused marketplace entry names whose files changed: no
    agent loads those skills from here, so the change is said, never passed over."""
    lines = []
    for plugin in _served(head) or _served(base):
        for folder in plugin.unloaded:
            prefix = f"{folder.as_posix()}/"
            files = sorted(
                path
                for path in set(base) | set(head)
                if path.startswith(prefix) and base.get(path) != head.get(path)
            )
            if files:
                more = f" and {len(files) - 3} more" if len(files) > 3 else ""
                lines.append(
                    f"{', '.join(files[:3])}{more} changed, but no agent loads that skill "
                    f"from here: {MARKETPLACE.as_posix()} names it for the plugin "
                    f"{plugin.name}, but {plugin.refused}: not tested"
                )
    return lines


def _plugin_name(tree: Tree, skill_path: PurePosixPath) -> str | None:
    """The skill's plugin name as load.find_set finds it, from the tree's marketplace file
    and manifests (None: a skills folder, whose ids are bare names)."""
    found = set_root(skill_path, lambda: _served(tree),
                     lambda folder: (folder / MANIFEST).as_posix() in tree)  # fmt: skip
    if found.served is not None:
        return found.served.name
    if not found.plugin:
        return None
    manifest = (found.root / MANIFEST).as_posix()
    if manifest not in tree:
        return found.root.name
    try:
        data = orjson.loads(tree[manifest])
    except orjson.JSONDecodeError:
        raise InputError(f"{manifest}: the plugin manifest is not valid JSON") from None
    return plugin_name_from_manifest(data, found.root.name, manifest)


def _root_place(tree: Tree, folder: str) -> SkillPlace:
    """The root skill, named as load.skill_name names it (`folder`: the repo's)."""
    path = ROOT_SKILL.as_posix()
    try:
        name = _document(tree[path], path).name
    except InputError:
        name = None
    return SkillPlace(path, ".", root_skill_name(name, folder))


def skills_in(tree: Tree, folder: str = "") -> dict[str, SkillPlace]:
    """Every skill of the tree, by its SKILL.md path: at the root (named by its `name`,
    else `folder`, the repo's), anywhere under `plugins/`, and each skill folder of the
    skills-folder layouts, and each skill of the plugins the marketplace file serves (as
    load.find_skill_files finds them: a SKILL.md inside another skill's folder is a file of
    that skill)."""
    found = {}
    served = _served(tree)
    keep = tree_filter(served)
    for path in sorted(tree):
        pure = PurePosixPath(path)
        if pure.name != SKILL_FILE_NAME or not keep(path):
            continue
        if pure == ROOT_SKILL:
            found[path] = _root_place(tree, folder)
            continue
        ruled = pure.parts[:1] == (PLUGINS_DIR,) or skills_folder(pure) is not None
        if not ruled and marketplace_plugin(PurePath(pure), served) is None:
            continue
        name = _plugin_name(tree, pure)
        place = SkillPlace(path, pure.parent.parent.as_posix(), skill_id(name, pure.parent.name))
        found[path] = replace(place, alias=_alias(tree[path], place, name))
    nested = nested_in_skill([PurePath(path) for path in found])
    return {path: place for path, place in found.items() if PurePath(path) not in nested}


def _alias(data: bytes, place: SkillPlace, plugin: str | None) -> str:
    """The skill's id by its frontmatter name, when that differs from its folder's."""
    try:
        name = _document(data, place.path).name
    except InputError:
        return ""
    return "" if name in (None, place.name) else skill_id(plugin, name)


@dataclass(frozen=True)
class SkillChange:
    """One skill the change touched."""

    place: SkillPlace
    kinds: tuple[ChangeKind, ...]
    files: tuple[str, ...]
    """The changed files of its folder, repo-relative."""
    status: ChangeStatus = "modified"
    broken: str | None = None
    """Why the agents cannot parse its SKILL.md at the head (they skip it), if so."""
    broken_before: bool = False
    """Its SKILL.md did not parse at the base either: the change did not break it."""
    renamed_from: SkillPlace | None = None
    """Where a renamed skill was at the base (its folder moved, its body the same)."""

    @property
    def id(self) -> str:
        return self.place.id


def _owner(path: str, folders: list[str]) -> str | None:
    """The deepest skill folder `path` lies in (a root skill's, `.`, holds every path)."""
    owners = [folder for folder in folders if folder == "." or path.startswith(f"{folder}/")]
    return max(owners, key=len) if owners else None


def _is_test_file(relative: str) -> bool:
    """A file of a skill's folder that tests it rather than being part of it."""
    parts = PurePosixPath(relative).parts
    return parts[:1] == (EVALS_FOLDER,) or (len(parts) == 1 and is_cases_file(relative))


def _is_agent_metadata(relative: str) -> bool:
    """A per-agent metadata file of a skill's folder (`agents/openai.yaml`): an agent that
    reads it lists the skill by it (or hides it), so it is part of the listing."""
    folder, suffixes = AGENT_METADATA
    file = PurePosixPath(relative)
    return file.parent.as_posix() == folder and file.suffix in suffixes


def _document(data: bytes, source: str) -> SkillDocument:
    return read_sibling(decode_skill(data, source), source)


def _skill_kinds(
    skill_md: str, folder: str, changed: list[str], base: Tree, head: Tree
) -> tuple[ChangeKind, ...]:
    kinds: set[ChangeKind] = set()
    for path in changed:
        relative = path.removeprefix(f"{folder}/")
        if path == skill_md:
            before = _document(base[path], f"base:{path}")
            after = _document(head[path], f"head:{path}")
            listed = [
                key
                for key in LISTED_KEYS
                if before.frontmatter.get(key) != after.frontmatter.get(key)
            ]
            if listed:
                kinds.add("description")
            rest = {k: v for k, v in before.frontmatter.items() if k not in LISTED_KEYS}
            if rest != {k: v for k, v in after.frontmatter.items() if k not in LISTED_KEYS}:
                kinds.add("other")
            if before.body != after.body:
                kinds.add("body")
        elif _is_test_file(relative):
            kinds.add("other")
        elif _is_agent_metadata(relative):
            kinds.add("description")
        else:
            kinds.add("body")
    return tuple(kind for kind in CHANGE_KINDS if kind in kinds) or ("other",)


def skill_changes(base: Tree, head: Tree, folder: str = "") -> tuple[SkillChange, ...]:
    """The skills whose files differ between `base` and `head`, by SKILL.md path; a skill
    only in `head` is added (its listing and body are new), one only in `base` removed.
    `folder`: the repo's name, a root skill's id when its SKILL.md names none."""
    before, after = skills_in(base, folder), skills_in(head, folder)
    places = {**before, **after}
    folders = sorted({place.folder for place in places.values()})
    touched: dict[str, list[str]] = {}
    for path in sorted(set(base) | set(head)):
        if base.get(path) == head.get(path):
            continue
        owner = _owner(path, folders)
        if owner is not None:
            touched.setdefault(owner, []).append(path)
    moved = _renames(
        [before[path] for path in before if path not in after],
        [after[path] for path in after if path not in before],
        base,
        head,
    )
    gone = {old.path for old in moved.values()}
    changes = []
    for path, place in sorted(places.items()):
        files = tuple(touched.get(place.folder, ()))
        if path in moved:
            changes.append(_renamed(moved[path], place, base, head))
        elif path in gone:
            continue
        elif path not in before:
            changes.append(SkillChange(place, ("description", "body"), files, "added"))
        elif path not in after:
            changes.append(SkillChange(place, (), files, "removed"))
        elif files:
            changes.append(_modified(place, files, base, head))
    return tuple(changes)


def _renames(
    removed: Sequence[SkillPlace], added: Sequence[SkillPlace], base: Tree, head: Tree
) -> dict[str, SkillPlace]:
    """Each added skill that is a removed one moved (`git mv` of its folder), by its new
    SKILL.md path: the one removed skill and the one added skill of a set with the same
    body (one moved to another set is removed there, and added to its new set)."""
    olds, news = _by_body(removed, base), _by_body(added, head)
    return {
        new[0].path: olds[key][0]
        for key, new in news.items()
        if len(new) == 1 and len(olds.get(key, ())) == 1
    }


def _by_body(places: Sequence[SkillPlace], tree: Tree) -> dict[tuple[str, str], list[SkillPlace]]:
    """The skills by their set and their SKILL.md body."""
    bodies: dict[tuple[str, str], list[SkillPlace]] = {}
    for place in places:
        key = (place.set_root, _body(tree[place.path], place.path))
        bodies.setdefault(key, []).append(place)
    return bodies


def _body(data: bytes, source: str) -> str:
    """A SKILL.md's body (its whole text when it does not parse)."""
    try:
        return _document(data, source).body
    except InputError:
        return data.decode("utf-8", "replace")


def _renamed(old: SkillPlace, new: SkillPlace, base: Tree, head: Tree) -> SkillChange:
    """A skill whose folder moved: what changed is told as if it had been edited in place
    (its files at the base read under the new folder)."""
    moved = {
        f"{new.folder}/{path.removeprefix(f'{old.folder}/')}": data
        for path, data in base.items()
        if path.startswith(f"{old.folder}/")
    }
    files = tuple(
        path
        for path in sorted(set(moved) | {p for p in head if p.startswith(f"{new.folder}/")})
        if moved.get(path) != head.get(path)
    )
    change = _modified(new, files, {**base, **moved}, head) if files else SkillChange(new, (), ())
    return replace(change, status="renamed", renamed_from=old)


def _modified(place: SkillPlace, files: tuple[str, ...], base: Tree, head: Tree) -> SkillChange:
    """A skill whose files changed: its kinds, or, when its SKILL.md does not parse at the
    head, why (its listing is gone: the agents skip it) and whether it did not at the base
    either, with the parts its text changed in; one that parses only at the head changed
    in every way."""
    path = place.path
    if path not in files:
        return SkillChange(place, _skill_kinds(path, place.folder, list(files), base, head), files)
    before = _parses(base[path], f"base:{path}")
    try:
        _document(head[path], f"head:{path}")
    except InputError as error:
        kinds = _text_kinds(path, place.folder, files, base, head)
        return SkillChange(place, kinds, files, broken=str(error), broken_before=not before)
    if not before:
        return SkillChange(place, ("description", "body"), files)
    return SkillChange(place, _skill_kinds(path, place.folder, list(files), base, head), files)


def _parses(data: bytes, source: str) -> bool:
    """Whether the agents could list it (what a base that did not parse changes)."""
    try:
        _document(data, source)
    except InputError:
        return False
    return True


def _text_kinds(
    skill_md: str, folder: str, files: tuple[str, ...], base: Tree, head: Tree
) -> tuple[ChangeKind, ...]:
    """The kinds of a change to a SKILL.md that does not parse, told by its text: the
    frontmatter's top-level keys (a listed one: `description`; another: `other`) and the
    body, each compared as written; its folder's other files as `_skill_kinds` tells them."""
    others = [file for file in files if file != skill_md]
    kinds = set(_skill_kinds(skill_md, folder, others, base, head)) if others else set()
    first, second = (_text_parts(tree[skill_md]) for tree in (base, head))
    if first is None or second is None:
        return ("description", "body")
    (before, above), (after, below) = first, second
    keys = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    if keys & set(LISTED_KEYS):
        kinds.add("description")
    if keys - set(LISTED_KEYS):
        kinds.add("other")
    if above != below:
        kinds.add("body")
    return tuple(kind for kind in CHANGE_KINDS if kind in kinds) or ("other",)


def _text_parts(data: bytes) -> tuple[dict[str, str], str] | None:
    """A SKILL.md's frontmatter as each top-level key's lines (a line that starts a key,
    and the lines below it until the next), and its body; None with no frontmatter."""
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.replace("\r\n", "\n").split("\n")
    closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0)
    if lines[0].rstrip() != "---" or not closing:
        return None
    keys: dict[str, str] = {}
    key = ""
    for line in lines[1:closing]:
        if line[:1].isalpha() and ":" in line:
            key = line.partition(":")[0].strip()
        keys[key] = keys.get(key, "") + line + "\n"
    return keys, "\n".join(lines[closing + 1 :])
