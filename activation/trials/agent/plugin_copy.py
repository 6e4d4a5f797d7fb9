"""Paired temporary copies of the skill's set that differ only in what the agent lists.

Stage B measures the real agent, which reads the skills from disk, so each variant needs a
set of its own: a plugin, or a skills folder. Both copies start from the same files (the
working tree's) and only the listed fields of each skill (description, `when_to_use`) are
rewritten to the variant's, so any difference in activation is the listing's.

The rewrite goes through the YAML library, never string surgery: descriptions contain
colons, `#`, quotes, line breaks and leading `>` that a hand-made line would break. The
frontmatter mapping is loaded, the fields replaced, and dumped again with key order kept and
a width so wide that a one-line description stays on one line; the body after the closing
`---` line is kept byte for byte. Every copy is then read back with the same parser the rest
of the tool uses and must yield exactly the intended fields and the same other keys, before
any run starts: a copy that does not say what we think it says would make every Stage B
figure meaningless.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml

from activation._errors import InputError
from activation._models import VARIANTS, Skill, Target, Variant, VariantName
from activation.inputs.changes import EVALS_FOLDER
from activation.inputs.commands import is_command
from activation.inputs.frontmatter import listing_problem, read_listed, read_sibling
from activation.inputs.target import MANIFEST, NESTED_SKILL_FOLDERS, SKILL_FILE_NAME

TEMP_PREFIX = "activation-"
"""Prefix of the temporary folders (copies and run dirs), so leftovers are recognisable."""


def _ignored(folder: str, names: list[str]) -> set[str]:
    """What a copy leaves out: `.git`, and a skill's `evals/` (beside its SKILL.md), whose
    graders and answers no agent at work may read."""
    return {".git", *((EVALS_FOLDER,) if SKILL_FILE_NAME in names else ())} & set(names)


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_WIDE = 2**31 - 1


class _DescriptionDumper(yaml.SafeDumper):
    """A safe dumper that writes a multi-line description as one double-quoted line.

    PyYAML would otherwise pick a single-quoted scalar folded over several lines, which is
    valid YAML but easy for a less complete frontmatter parser (the agent's) to misread.
    """


class _Description(str):
    __slots__ = ()


def _represent_description(dumper: yaml.SafeDumper, data: _Description) -> yaml.ScalarNode:
    multi_line = any(mark in data for mark in ("\n", "\r", "\x85", "\u2028", "\u2029"))
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", str(data), style='"' if multi_line else None
    )


_DescriptionDumper.add_representer(_Description, _represent_description)


Listed = Mapping[str, str | None]
"""The frontmatter fields the agent lists (description, when_to_use): None removes one."""


def listed(description: str | None, when_to_use: str | None) -> dict[str, str | None]:
    return {"description": description, "when_to_use": when_to_use}


def render_frontmatter(frontmatter: Mapping[str, Any], fields: Listed) -> str:
    """The frontmatter YAML (without the `---` lines) with the listed fields replaced."""
    data = dict(frontmatter)
    for key, value in fields.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = _Description(value)
    return yaml.dump(
        data,
        Dumper=_DescriptionDumper,
        sort_keys=False,
        allow_unicode=True,
        width=_WIDE,
        default_flow_style=False,
    )


def rewrite_listed(text: str, fields: Listed, source: str) -> str:
    """The SKILL.md `text` with only the listed fields replaced.

    The opening line, the closing `---` line and everything after it are kept exactly,
    including a BOM and CRLF line ends (the rewritten frontmatter uses the file's line end).
    """
    document = read_sibling(text, source)  # validates the frontmatter first
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines: list[str] = _LINE.findall(text.removeprefix("\ufeff"))
    closing = next(
        i for i in range(1, len(lines)) if lines[i].rstrip("\r\n").rstrip() in ("---", "...")
    )
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    rendered = render_frontmatter(document.frontmatter, fields)
    if newline != "\n":
        rendered = rendered.replace("\n", newline)
    return bom + lines[0] + rendered + "".join(lines[closing:])


def verify_copy(skill_file: Path, original: Mapping[str, Any], fields: Listed) -> None:
    """Read a rewritten SKILL.md back; raise unless it says exactly what was intended."""
    document = read_sibling(skill_file.read_text(encoding="utf-8"), str(skill_file))
    expected = {k: v for k, v in {**original, **fields}.items() if v is not None}
    if document.frontmatter != expected:
        changed = sorted(
            key
            for key in expected.keys() | document.frontmatter.keys()
            if expected.get(key) != document.frontmatter.get(key)
        )
        raise InputError(f"{skill_file}: rewriting the listed fields changed {changed}")


def write_skill(
    copy_root: Path, relative: Path, fields: Listed, text: str, source: str, *, sibling: bool
) -> None:
    """The skill's SKILL.md in the copy: the working tree's file with the variant's listed
    fields, or (a skill the working tree lacks) the variant's own text, read back either
    way before any run starts. A `sibling` whose frontmatter some agent cannot parse (at
    the variant or in the working tree) is the variant's text as it is."""
    skill_file = copy_root / relative
    if not skill_file.resolve().is_relative_to(copy_root.resolve()):
        raise InputError(f"{skill_file}: the copied SKILL.md resolves outside the copy")
    start = skill_file.read_bytes().decode("utf-8") if skill_file.is_file() else text
    skill_file.parent.mkdir(parents=True, exist_ok=True)
    skill_file.unlink(missing_ok=True)
    if sibling and any(listing_problem(read_listed(one, source), source) for one in (start, text)):
        skill_file.write_bytes(text.encode("utf-8"))  # as it is: each agent reads it its way
        return
    original = read_sibling(start, source).frontmatter
    skill_file.write_bytes(rewrite_listed(start, fields, source).encode("utf-8"))
    verify_copy(skill_file, original, fields)


def make_set_copy(target: Target, variant: Variant, dest_parent: Path) -> Path:
    """Copy the set's root (a plugin, or a skills folder) into `dest_parent` as the variant
    has it: every skill lists what the variant's SKILL.md lists (description, when_to_use),
    skills the variant lacks are gone, and everything else is the working tree's. A variant
    read with its whole tree (Stage C) is written as that tree, bodies and references too.

    Returns the copy's root, which keeps the folder's name (the agent falls back to it for
    the plugin name, so the skill ids stay the same); a repo's root skill is named by its
    `name`, never by the checkout's folder (the agents key a skill folder by its name). Only
    the files git would commit are copied (`copy_working_files`).
    """
    root_skill = target.skill_path.parent == Path()
    copy_root = dest_parent / (target.skill_name if root_skill else target.plugin_root.name)
    if variant.tree:
        write_tree(variant.tree, copy_root)
        root = target.plugin_root.relative_to(target.repo)
        _keep_members(
            target, copy_root, {copy_root / p.relative_to(root).parent for p in target.members}
        )
        _drop_project_skills(target, copy_root)
        return copy_root
    if not target.plugin_root.is_dir():
        raise InputError(f"{target.plugin_root}: the skill's folder does not exist")
    copy_working_files(target.plugin_root, copy_root)
    skills = _set_skills(target, variant)
    kept = {copy_root / skill.relative.parent for skill in skills}
    for skill in skills:
        source = str(target.plugin_root / skill.relative)
        write_skill(copy_root, skill.relative, skill.fields, skill.text, source,
                    sibling=skill.id != target.skill_id)  # fmt: skip
    if target.in_set and not target.members:
        here = skills[0].relative
        for folder in (copy_root / here.parent.parent).iterdir():
            if (folder / "SKILL.md").is_file() and folder not in kept:
                shutil.rmtree(folder)
    _keep_members(target, copy_root, kept)
    _drop_project_skills(target, copy_root)
    return copy_root


def copy_working_files(root: Path, dest: Path) -> None:
    """Copy the files of `root` that git tracks or would (untracked but not ignored) to
    `dest`: a user's node_modules, `.env` and build outputs, which git ignores, never reach
    a copy an agent runs in (outside a git repository: every file but `.git` and
    `node_modules`). Each skill's `evals/` is left out. Symlinks are copied as the files
    they point to (a dangling one is left out), so writing the copy can never write through
    a link into the user's repo."""
    from activation.inputs.installed import grader_free, working_files

    dest.mkdir(parents=True, exist_ok=True)
    for relative in grader_free(working_files(root)):
        source, copy = root / relative, dest / relative
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():  # a link to a folder: git lists the link, not what it holds
            shutil.copytree(source, copy, ignore=_ignored, symlinks=False,
                            ignore_dangling_symlinks=True)  # fmt: skip
        elif source.is_file():
            shutil.copy2(source, copy)


def _drop_project_skills(target: Target, copy_root: Path) -> None:
    """A project's `.claude/skills` and `.agents/skills` inside a plugin's folder (a plugin
    at the repo's root) are sets of their own: the plugin's copy leaves them out."""
    if target.in_plugin:
        for folder in NESTED_SKILL_FOLDERS:
            shutil.rmtree(copy_root / folder, ignore_errors=True)


def _keep_members(target: Target, copy_root: Path, kept: set[Path]) -> None:
    """The plugin as the agent loads it from the copy: named as the marketplace entry names
    it (its manifest says so), and, when the entry names its skills, holding only the
    `kept` skill folders of those (every other skill folder of the copy is gone; one
    outside `skills/` is named in the manifest)."""
    manifest = copy_root / MANIFEST
    try:
        data = orjson.loads(manifest.read_bytes()) if manifest.is_file() else {}
    except orjson.JSONDecodeError:
        data = {}
    data = data if isinstance(data, dict) else {}
    named = data.get("name") or copy_root.name
    if not target.in_plugin or (named == target.plugin_name and not target.members):
        return
    members = kept if target.members else set()
    for skill_file in sorted(copy_root.rglob("SKILL.md")) if members else ():
        folder = skill_file.parent
        related = any(folder.is_relative_to(m) or m.is_relative_to(folder) for m in members)
        if not related and folder.exists():
            shutil.rmtree(folder)
    outside = sorted(
        f"./{folder.relative_to(copy_root).as_posix()}"
        for folder in members
        if folder.parent != copy_root / "skills"
    )
    written = {**data, "name": target.plugin_name, **({"skills": outside} if outside else {})}
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_bytes(orjson.dumps(written))


def write_tree(tree: Sequence[tuple[str, bytes]], root: Path) -> None:
    """Write each (POSIX path below `root`, bytes) file; a path that would leave `root` is a
    bug of the reader, never written."""
    for relative, data in tree:
        path = root / relative
        if not path.resolve().is_relative_to(root.resolve()):
            raise ValueError(f"{relative!r} is outside the copy")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@dataclass(frozen=True)
class _SetSkill:
    id: str
    relative: Path
    """Its SKILL.md, relative to the set's root."""
    fields: Listed
    text: str
    nested: bool = False
    """A SKILL.md inside another skill's folder: listed as the variant lists it, never
    installed as a skill folder of its own."""


def _set_skills(target: Target, variant: Variant) -> list[_SetSkill]:
    """The variant's set as the copy holds it: the measured skill first, then its sibling
    skills, a SKILL.md inside another skill's folder among them (its Claude Code command
    files are the working tree's, copied with the root)."""
    root = target.plugin_root.relative_to(target.repo)
    here = target.skill_file.relative_to(target.plugin_root)
    own = listed(variant.description, variant.when_to_use)
    skills = [_SetSkill(target.skill_id, here, own, variant.text)]
    for sibling in variant.siblings:
        if is_command(sibling.path):
            continue
        fields = listed(sibling.description, sibling.when_to_use)
        relative = Path(sibling.path).relative_to(root)
        skills.append(_SetSkill(sibling.name, relative, fields, sibling.text, bool(sibling.nested)))
    return skills


def set_folders(
    target: Target, variant: Variant, copy_root: Path, *, nested: bool = False
) -> tuple[tuple[str, Path], ...]:
    """Each skill of the variant's copy by id, with its folder there (the measured skill
    first): what an agent without plugins installs skill by skill. With `nested`, instead
    each SKILL.md inside another skill's folder: what an agent that walks the whole tree
    lists and loads as a skill of its own, found in that folder's copy."""
    return tuple(
        (skill.id, copy_root / skill.relative.parent)
        for skill in _set_skills(target, variant)
        if skill.nested == nested
    )


@dataclass(frozen=True)
class CatalogCopy:
    """The `--catalog` skills as the agent would find them installed: the user's own skills
    (a folder to install as `~/.claude/skills`, or None) and other plugins' roots; `folders`
    names each skill's copied folder by id."""

    user_skills: Path | None = None
    plugins: tuple[Path, ...] = ()
    folders: tuple[tuple[str, Path], ...] = ()


def make_catalog_copy(catalog: Sequence[Skill], dest: Path) -> CatalogCopy:
    """Copy every catalog skill's folder (a user skill) or plugin (a plugin skill) into
    `dest`, so no run ever reads, or writes to, the user's own folders."""
    user_skills = dest / "user-skills"
    plugins: dict[Path, Path] = {}
    folders = []
    for skill in catalog:
        folder = Path(skill.path).parent
        if skill.source == "plugin":
            root = folder.parent.parent
            if root not in plugins:
                plugins[root] = dest / "plugins" / str(len(plugins)) / root.name
                copy_working_files(root, plugins[root])
            folders.append((skill.name, plugins[root] / folder.relative_to(root)))
        else:
            copy_working_files(folder, user_skills / folder.name)
            folders.append((skill.name, user_skills / folder.name))
    return CatalogCopy(
        user_skills if user_skills.is_dir() else None, tuple(plugins.values()), tuple(folders)
    )


@dataclass(frozen=True)
class Copies:
    """What a Stage B run installs: each variant's copy of the set, and the catalog."""

    sets: Mapping[VariantName, Path]
    catalog: CatalogCopy


@contextmanager
def paired_copies(
    target: Target, baseline: Variant, candidate: Variant, catalog: Sequence[Skill] = ()
) -> Iterator[Copies]:
    """Both variants' copies of the set, and the catalog's, under one fresh temp folder,
    removed on any exit.

    The folder goes on normal exit, on an exception, and on cancellation (a cancelled task
    unwinds through `finally` too), so an interrupted run leaves nothing behind.
    """
    parent = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        sets: dict[VariantName, Path] = {}
        for name, variant in zip(VARIANTS, (baseline, candidate), strict=True):
            folder = parent / name
            folder.mkdir()
            sets[name] = make_set_copy(target, variant, folder)
        yield Copies(sets, make_catalog_copy(catalog, parent / "catalog"))
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def tree_digest(folder: Path) -> str:
    """A digest of a plugin copy's content (paths and bytes, not where the copy lives), so a
    cached Stage B answer is reused only for exactly the same plugin."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + b"\x00")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


NONCE_LINE = "<!-- activation nonce: {} -->"
"""The line `mark` puts at the top of a copied SKILL.md's body."""


def mark(skill_file: Path) -> str | None:
    """Put a nonce at the top of a copied SKILL.md's body and return it (None: the file has
    no frontmatter to put it after, so no agent lists it).

    An agent whose stream shows what a load returned (OpenCode's skill tool output, Codex's
    command output) then proves that the target's own file came back when the nonce is in
    it: the model cannot write it without having read it. The nonce is a digest of the
    file's bytes and its folder's name, not random, so identical copies get an
    identical nonce and a trial's cache key (a digest of the copies) stays the same between
    identical runs. It goes at the top of the body, so a read of only the first lines of
    the body (`sed -n '1,200p'`) still shows it, and the rest is kept byte for byte.
    """
    data = skill_file.read_bytes()
    text = data.decode("utf-8")
    lines: list[str] = _LINE.findall(text)
    if not lines or lines[0].removeprefix("\ufeff").rstrip("\r\n").rstrip() != "---":
        return None
    closing = next(
        (i for i in range(1, len(lines)) if lines[i].rstrip("\r\n").rstrip() in ("---", "...")),
        None,
    )
    if closing is None:
        return None
    seed = skill_file.parent.name.encode() + b"\x00" + data
    nonce = hashlib.sha256(seed).hexdigest()[:16]
    newline = "\r\n" if lines[closing].endswith("\r\n") else "\n"
    if not lines[closing].endswith(("\n", "\r")):
        lines[closing] += newline
    lines.insert(closing + 1, NONCE_LINE.format(nonce) + newline)
    skill_file.write_bytes("".join(lines).encode("utf-8"))
    return nonce
