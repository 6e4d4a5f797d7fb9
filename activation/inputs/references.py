"""The files a SKILL.md body routes to: every file it refers to must exist in the skill's
folder (the seeds' routing check made general). No model call; `lint` and `behavior` say
what is missing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

RESOURCE_DIRS = ("references", "scripts", "assets", "templates")
"""The Agent Skills folders of a skill's own files: a path into one of them (or into any
folder the skill has) in backticks or a table cell is a reference to a skill file."""

_FENCED = re.compile(
    r"^[ \t]{0,3}(```|~~~).*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL
)
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+[\"'(][^)\n]*)?\s*\)")
_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
_CODE = re.compile(r"(`+)(?!`)([^\n]+?)(?<!`)\1(?!`)")
_WORD = re.compile(r"[\w./@-]+\.[A-Za-z0-9]{1,10}\b")
_PATH = re.compile(r"^(?:\./)?[\w.@-]+(?:/[\w.@-]+)+\.[A-Za-z0-9]{1,10}$")
_SELF = "skill.md"
"""The skill's own file, which the agent has already read: "a skill.md" in prose is the
kind of file, not a reference."""
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Reference:
    """A file a SKILL.md body refers to that its folder lacks: the body line (1-based) of
    its first mention, and the skill's file whose name differs from it in case only (the
    agent's Read fails on a case-sensitive file system), if there is one."""

    path: str
    line: int
    differs_in_case: str | None


def missing_references(skill_body: str, existing_paths: Collection[str]) -> tuple[str, ...]:
    """The files a SKILL.md body refers to that are not among `existing_paths` (POSIX paths
    relative to the skill's folder), in order of first mention."""
    return tuple(found.path for found in missing_reference_lines(skill_body, existing_paths))


def missing_reference_lines(
    skill_body: str, existing_paths: Collection[str]
) -> tuple[Reference, ...]:
    """Each file a SKILL.md body refers to that is not among `existing_paths`, in order of
    first mention.

    A reference is a relative Markdown link or link definition (`[x](references/a.md)`),
    or a relative path with an extension in backticks or alone in a table cell whose first
    folder is one of `RESOURCE_DIRS` or a folder of the skill (so `src/app.ts`, a file of
    the user's project, is not one), or a file name in prose that differs from a skill
    file's only in case (`FORMS.md` beside `forms.md`). URLs, anchors, absolute paths, paths
    that leave the skill's folder, links written inside code spans (an example of Markdown
    syntax) and anything inside fenced code blocks are ignored. A link to a folder exists
    when some file is in it.
    """
    folders = {path.split("/")[0] for path in existing_paths if "/" in path} | set(RESOURCE_DIRS)
    by_case = {path.lower(): path for path in existing_paths}
    body = _FENCED.sub(_blank, skill_body)
    missing: dict[str, Reference] = {}
    for at, target in _references(body, folders, by_case):
        if not _exists(target, existing_paths) and target not in missing:
            line = body.count("\n", 0, at) + 1
            missing[target] = Reference(target, line, by_case.get(target.lower()))
    return tuple(missing.values())


def _blank(match: re.Match[str]) -> str:
    """The match as spaces, its newlines kept: offsets and line numbers stay true."""
    return re.sub(r"[^\n]", " ", match.group())


def _references(body: str, folders: set[str], by_case: dict[str, str]) -> Iterator[tuple[int, str]]:
    """The referenced paths with their offsets, in order of their place in the body."""
    found: list[tuple[int, str]] = []
    prose = _CODE.sub(_blank, body)
    for match in (*_LINK.finditer(prose), *_DEFINITION.finditer(prose)):
        target = _normal(match.group(1).strip("<>"))
        if target is not None:
            found.append((match.start(1), target))
    for word in _WORD.finditer(prose):
        name = word.group().removeprefix("./")
        if name.lower() in by_case and name not in by_case.values() and name.lower() != _SELF:
            found.append((word.start(), name))
    candidates = [(code.start(2), code.group(2).strip()) for code in _CODE.finditer(body)]
    for line in re.finditer(r"^[ \t]*\|.*$", body, re.MULTILINE):
        candidates += [
            (line.start() + word.start(), word.group().strip("`"))
            for word in re.finditer(r"[^\s,;|]+", line.group())
        ]
    for at, candidate in candidates:
        target = _normal(candidate.split("#")[0])
        if target is not None and _PATH.match(target) and target.split("/")[0] in folders:
            found.append((at, target))
    return iter(sorted(found))


def _normal(target: str) -> str | None:
    """The target as a path relative to the skill's folder; None when it is not one."""
    if not target or target.startswith(("#", "/", "~")) or _SCHEME.match(target):
        return None
    path = unquote(target.split("#")[0].split("?")[0])
    if not path:
        return None
    normal = posixpath.normpath(path)
    return None if normal == "." or normal.startswith("../") or normal == ".." else normal


def _exists(target: str, existing: Collection[str]) -> bool:
    return target in existing or any(path.startswith(f"{target}/") for path in existing)
