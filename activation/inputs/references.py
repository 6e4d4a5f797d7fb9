"""The files a SKILL.md body routes to: every file it refers to must exist where the agent
will look, the skill's folder, its plugin's root or its project's root (the seeds' routing
check made general). No model call; `lint` says what is missing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
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
_PLACES = {
    "{baseDir}/": "skill",
    "${CLAUDE_SKILL_DIR}/": "skill",
    "${CLAUDE_PLUGIN_ROOT}/": "plugin",
    "$CLAUDE_PLUGIN_ROOT/": "plugin",
}
"""The placeholders of the folders a path may start from, as Claude Code fills them in: it
replaces `${CLAUDE_SKILL_DIR}` and `${CLAUDE_PLUGIN_ROOT}` in the body and heads it with
"Base directory for this skill: <folder>", which `{baseDir}` stands for
(`$CLAUDE_PLUGIN_ROOT` is the plugin's root as its hooks' commands write it)."""
_OUTPUT_VERB = re.compile(r"\b(?:generate|write|create)s?\b", re.IGNORECASE)
"""A verb that makes the file named after it on its line something the agent writes."""
_VARIABLE = re.compile(r"^\$\{?\w+\}?/")
"""Any other variable (`${CLAUDE_PROJECT_DIR}`, a root the body has the agent work out):
where it points is not known before the run."""


def _nowhere(_path: str) -> bool:
    return False


@dataclass(frozen=True)
class Around:
    """Whether a path (POSIX, relative) exists at the skill's plugin root (`plugin`, what
    `${CLAUDE_PLUGIN_ROOT}` names) or at its project's root (`project`: a skill of
    `.claude/skills/` runs with the project as its working folder). A path the body names
    that is there is not missing, whatever the skill's folder holds."""

    plugin: Callable[[str], bool] = field(default=_nowhere)
    project: Callable[[str], bool] = field(default=_nowhere)
    sibling: Callable[[str], bool] = field(default=_nowhere)
    """Whether another skill of its folder has the path: a path only named in code ("the
    SDK skill's `references/tracing.md`") is then that skill's file."""


@dataclass(frozen=True)
class Reference:
    """A file a SKILL.md body refers to that is not where the agent looks: the path as
    written (a placeholder kept), the body line (1-based) of its first mention, the skill's
    file whose name differs from it in case only (the agent's Read fails on a
    case-sensitive file system), if there is one, the place that lacks it ("skill" or
    "plugin"), and whether the body surely means a file there (a link, a placeholder path
    or a case twin) or only names a path in a code span or a table, which may be a file of
    the user's project or of another skill."""

    path: str
    line: int
    differs_in_case: str | None
    place: str = "skill"
    certain: bool = True
    output: bool = False
    """Whether the body names the linked file as one the agent writes (in a fenced block,
    a template or tree of files, or after "generate", "write", "create" on its line): a
    link of a page the skill has the agent write into the user's project, so maybe no
    skill file at all."""
    quoted: bool = False
    """Whether the link sits inside a quoted example (between double quotes on its line, or
    on a blockquote line): a skill-authoring guide showing how to write a link, not a link
    the agent follows, so not certain."""


def missing_references(
    skill_body: str, existing_paths: Collection[str], around: Around = Around()
) -> tuple[str, ...]:
    """The files a SKILL.md body refers to that are not among `existing_paths` (POSIX paths
    relative to the skill's folder) nor `around` it, in order of first mention."""
    found = missing_reference_lines(skill_body, existing_paths, around)
    return tuple(reference.path for reference in found)


def missing_reference_lines(
    skill_body: str, existing_paths: Collection[str], around: Around = Around()
) -> tuple[Reference, ...]:
    """Each file a SKILL.md body refers to that is not among `existing_paths` nor `around`
    it, in order of first mention.

    A reference is a relative Markdown link or link definition (`[x](references/a.md)`),
    or a relative path with an extension in backticks or alone in a table cell whose first
    folder is one of `RESOURCE_DIRS` or a folder of the skill (so `src/app.ts`, a file of
    the user's project, is not one), or a file name in prose that differs from a skill
    file's only in case (`FORMS.md` beside `forms.md`). A path under `{baseDir}/` or
    `${CLAUDE_SKILL_DIR}/` is the skill's file, one under `${CLAUDE_PLUGIN_ROOT}/` the
    plugin's; any other relative path exists when the skill's folder, the plugin's root or
    the project's root has it. URLs, anchors, absolute paths, paths that leave the skill's
    folder, other variables, links written inside code spans (an example of Markdown
    syntax) and anything inside fenced code blocks are ignored. A link to a folder exists
    when some file is in it. A link outside `RESOURCE_DIRS` whose file the body names as an
    output (see `Reference.output`) is not certain.
    """
    folders = {path.split("/")[0] for path in existing_paths if "/" in path} | set(RESOURCE_DIRS)
    by_case = {path.lower(): path for path in existing_paths}
    body = _FENCED.sub(_blank, skill_body)
    outputs = _outputs(skill_body, body)
    missing: dict[str, Reference] = {}
    for at, written, linked in _references(body, folders, by_case):
        quoted = linked and _quoted(body, at)
        place, target = _placed(written)
        if written in missing or _found(place, target, existing_paths, around):
            continue
        twin = by_case.get(target.lower()) if place != "plugin" else None
        output = (
            linked
            and place is None
            and twin is None
            and target.split("/")[0] not in RESOURCE_DIRS
            and posixpath.basename(target).lower() in outputs
        )
        certain = not quoted and ((linked and not output) or place is not None or twin is not None)
        if not certain and not output and around.sibling(target):
            continue
        line = body.count("\n", 0, at) + 1
        missing[written] = Reference(written, line, twin, place or "skill", certain, output, quoted)
    return tuple(missing.values())


def _quoted(body: str, at: int) -> bool:
    """Whether offset `at` lies in a quoted example: on a blockquote line (`> ...`), or
    after an odd number of straight double quotes, or an open curly one, on its line."""
    start = body.rfind("\n", 0, at) + 1
    before = body[start:at]
    if before.lstrip().startswith(">"):
        return True
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _outputs(skill_body: str, prose: str) -> set[str]:
    """The file names (lowercased) the body names as files the agent writes: every name in
    a fenced block (a template or a tree of the files to generate), and each name after an
    output verb on its line of prose."""
    fenced = "".join(fence.group() for fence in _FENCED.finditer(skill_body))
    names = {posixpath.basename(word.group()).lower() for word in _WORD.finditer(fenced)}
    for line in prose.splitlines():
        verb = _OUTPUT_VERB.search(line)
        if verb is not None:
            after = line[verb.end() :]
            names |= {posixpath.basename(word.group()).lower() for word in _WORD.finditer(after)}
    return names


def _prefix(written: str) -> str:
    """The placeholder the path starts with, or ""."""
    return next((prefix for prefix in _PLACES if written.startswith(prefix)), "")


def _placed(written: str) -> tuple[str | None, str]:
    """The place a placeholder names ("skill", "plugin"; None for a plain relative path)
    and the path relative to it."""
    prefix = _prefix(written)
    return _PLACES.get(prefix), written.removeprefix(prefix)


def _found(place: str | None, target: str, existing: Collection[str], around: Around) -> bool:
    """Whether the path is where the agent would look for it."""
    if place == "plugin":
        return around.plugin(target)
    in_skill = target in existing or any(path.startswith(f"{target}/") for path in existing)
    return in_skill or (place is None and (around.plugin(target) or around.project(target)))


def _blank(match: re.Match[str]) -> str:
    """The match as spaces, its newlines kept: offsets and line numbers stay true."""
    return re.sub(r"[^\n]", " ", match.group())


def _references(
    body: str, folders: set[str], by_case: dict[str, str]
) -> Iterator[tuple[int, str, bool]]:
    """The referenced paths with their offsets and whether each is linked (a Markdown link
    or definition, or a prose name that differs from a skill file's in case only), in
    order of their place in the body."""
    found: list[tuple[int, str, bool]] = []
    prose = _CODE.sub(_blank, body)
    for match in (*_LINK.finditer(prose), *_DEFINITION.finditer(prose)):
        target = _normal(match.group(1).strip("<>"))
        if target is not None:
            found.append((match.start(1), target, True))
    for word in _WORD.finditer(prose):
        name = word.group().removeprefix("./")
        if name.lower() in by_case and name not in by_case.values() and name.lower() != _SELF:
            found.append((word.start(), name, True))
    candidates = [(code.start(2), code.group(2).strip()) for code in _CODE.finditer(body)]
    for line in re.finditer(r"^[ \t]*\|.*$", body, re.MULTILINE):
        candidates += [
            (line.start() + word.start(), word.group().strip("`"))
            for word in re.finditer(r"[^\s,;|]+", line.group())
        ]
    for at, candidate in candidates:
        target = _normal(candidate.split("#")[0])
        if target is None:
            continue
        place, path = _placed(target)
        if _PATH.match(path) and (place is not None or path.split("/")[0] in folders):
            found.append((at, target, False))
    return iter(sorted(found))


def _normal(target: str) -> str | None:
    """The target as a path relative to the skill's folder (or behind the placeholder of
    the skill's or plugin's folder, kept); None when it is not one."""
    if not target or target.startswith(("#", "/", "~")) or _SCHEME.match(target):
        return None
    written = unquote(target.split("#")[0].split("?")[0])
    prefix = _prefix(written)
    path = written.removeprefix(prefix)
    if not path or (not prefix and _VARIABLE.match(path)):
        return None
    normal = posixpath.normpath(path)
    if normal == "." or normal.startswith("../") or normal == "..":
        return None
    return f"{prefix}{normal}"
