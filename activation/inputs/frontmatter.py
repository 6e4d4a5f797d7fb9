"""SKILL.md frontmatter, read with a real YAML parser (never a regex).

A frontmatter that is not valid YAML is read as Claude Code reads it: its parser tries
again after quoting each plain `key: value` line whose value holds a YAML indicator
(`description: Use when: a thing`) and turning leading tabs into two spaces each
(`quoted_as_claude_code`). Such a document says so (`lenient`), and lint warns: other agents
parse strictly and may refuse the skill. A frontmatter neither try reads is not refused by
every agent alike (Claude Code lists a project skill by its body's first line, OpenCode
and Gemini CLI retry in their own ways): `read_listed` keeps such a file, with no fields
and the reason (`broken`), for each agent's renderer to decide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from activation._errors import InputError
from activation._yaml import load_yaml


@dataclass(frozen=True)
class SkillDocument:
    """A SKILL.md split into its parsed frontmatter and its body."""

    frontmatter: dict[str, object]
    frontmatter_text: str | None
    """As written between the '---' lines; None when the file has no frontmatter."""
    body: str
    lenient: str | None = None
    """The YAML error of the frontmatter as written, when only Claude Code's second try
    reads it (None: valid YAML)."""
    broken: str | None = None
    """Why no parse reads the frontmatter (file, line, error), when none does: then
    `frontmatter` is empty, as Claude Code reads it (`read_listed` only)."""

    @property
    def yaml_error(self) -> str | None:
        """Why a strict YAML parser refuses the frontmatter as written (None: it reads it)."""
        return self.broken or self.lenient

    @property
    def name(self) -> str | None:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else None

    @property
    def description(self) -> str:
        """Stripped: a block scalar's trailing newline is not part of what the agent shows."""
        return str(self.frontmatter["description"]).strip()

    @property
    def when_to_use(self) -> str | None:
        """As written (the agent does not strip it); None when there is none."""
        value = self.frontmatter.get("when_to_use")
        return None if value is None or value == "" else str(value)

    @property
    def listed(self) -> bool:
        """The agent hides a skill with `disable-model-invocation: true` from the model."""
        return self.frontmatter.get("disable-model-invocation") is not True


def read_sibling(text: str, source: str) -> SkillDocument:
    """A SKILL.md of the measured skill's set, which need not have a description (the agent
    then leaves it out of the listing, or lists its `when_to_use`)."""
    return split_document(text, source, description_required=False)


def read_listed(text: str, source: str) -> SkillDocument:
    """A SKILL.md of a set as an agent finds it, never refused for its frontmatter: one
    that does not parse (or is missing) gives no fields and says why (`broken`), and a
    description of any YAML type is kept as it is, for each agent's rules to judge."""
    text = _normalised(text)
    try:
        frontmatter_text, body = _split(text, source)
    except InputError as error:
        return SkillDocument({}, None, text, broken=str(error))
    try:
        data, lenient = _parsed(frontmatter_text, source)
    except InputError as error:
        return SkillDocument({}, frontmatter_text, body, broken=str(error))
    return SkillDocument(data, frontmatter_text, body, lenient)


def listing_problem(document: SkillDocument, source: str) -> str | None:
    """What a SKILL.md of a set has that some agent refuses or lists otherwise than as
    written (file, line, why): a frontmatter no parse reads, or a description that is
    missing, empty or not text; None when it has none of these."""
    return document.broken or _description_problem(document.frontmatter, source)


def split_document(text: str, source: str, description_required: bool = True) -> SkillDocument:
    """Parse a SKILL.md's text; BOM and CRLF are normalised away first."""
    frontmatter_text, body = _split(_normalised(text), source)
    data, lenient = _parsed(frontmatter_text, source)
    document = SkillDocument(data, frontmatter_text, body, lenient)
    description = data.get("description")
    if not description_required and (description is None or isinstance(description, str)):
        return document
    problem = _description_problem(data, source)
    if problem is not None:
        raise InputError(problem)
    return document


def _description_problem(data: dict[str, object], source: str) -> str | None:
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        kind = type(description).__name__
        return f"{source}: the frontmatter's 'description' is not text (a YAML {kind})"
    if description is None:
        return f"{source}: the frontmatter has no 'description'"
    if not description.strip():
        return f"{source}: the description is empty"
    return None


def _normalised(text: str) -> str:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _split(text: str, source: str) -> tuple[str, str]:
    """The frontmatter's text and the body."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise InputError(f"{source}: no YAML frontmatter (the file must start with '---')")
    closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if closing is None:
        raise InputError(f"{source}: the YAML frontmatter is not closed by a '---' line")
    return "\n".join(lines[1:closing]), "\n".join(lines[closing + 1 :])


def _parsed(frontmatter_text: str, source: str) -> tuple[dict[str, object], str | None]:
    """The fields, and the YAML error of the text as written when only Claude Code's
    second try reads it."""
    lenient = None
    try:
        # With its last line's newline, as in the file: a `|` block keeps its final newline.
        data = load_yaml(frontmatter_text + "\n")
    except yaml.YAMLError as error:
        lenient = _yaml_error(error, source)
        try:
            data = load_yaml(quoted_as_claude_code(frontmatter_text) + "\n")
        except yaml.YAMLError:
            raise InputError(lenient) from None
    if not isinstance(data, dict):
        raise InputError(f"{source}: the frontmatter is not a YAML mapping")
    return data, lenient


_INDICATOR = re.compile(r"[{}[\]*&#!|>%@`]|: ")
_PLAIN_LINE = re.compile(r"^([a-zA-Z_-]+):\s+(\S.*)$")


def _yaml_error(error: yaml.YAMLError, source: str) -> str:
    """The one line naming the file, the line (after the '---') and what is wrong."""
    first_line = str(error).splitlines()[0]
    mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
    at = f"{source}:{mark.line + 2}" if mark is not None else source
    return f"{at}: the frontmatter is not valid YAML ({first_line})"


def quoted_as_claude_code(text: str) -> str:
    """The frontmatter as Claude Code's parser retries it: each top-level `key: value`
    line whose unquoted value holds a YAML indicator, double-quoted (a flow list left
    alone), and leading tabs made two spaces each."""
    lines = []
    for line in text.split("\n"):
        found = _PLAIN_LINE.match(line)
        value = found[2] if found else ""
        if found and _INDICATOR.search(value) and not _quoted(value):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{found[1]}: "{escaped}"'
        lines.append(line)
    return re.sub(r"^\t+", lambda tabs: "  " * len(tabs[0]), "\n".join(lines), flags=re.M)


def _quoted(value: str) -> bool:
    if any(value.startswith(mark) and value.endswith(mark) for mark in ('"', "'")):
        return True
    if not (value.startswith("[") and value.endswith("]")):
        return False
    try:
        return isinstance(load_yaml(value), list)
    except yaml.YAMLError:
        return False


def read_description(text: str, source: str) -> str:
    return split_document(text, source).description


def with_description(text: str, description: str, source: str) -> str:
    """The SKILL.md with another description: a generated file (a control), so its
    frontmatter is written out again plainly rather than in the original's style."""
    document = split_document(text, source)
    frontmatter = {**document.frontmatter, "description": description}
    dumped = yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{dumped}---\n{document.body}"


NAME_LIMIT = 64
_SPEC_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SPEC_NAME = (
    "the Agent Skills specification's rule: lowercase letters, digits and single hyphens, "
    f"not at either end, at most {NAME_LIMIT} characters, the same as the skill's folder"
)


def name_problems(name: str | None, folder: str | None) -> list[str]:
    """What is wrong with a SKILL.md's `name` by the Agent Skills specification (agents
    that check it refuse or rename the skill; a validator such as `skills-ref validate`
    fails): not of lowercase letters, digits and single hyphens, over 64 characters, or
    not its folder's name (`folder`: None for a root skill, whose folder is the checkout)."""
    if name is None:
        return []
    problems = []
    if len(name) > NAME_LIMIT:
        problems.append(f"the name is {len(name)} characters, over {NAME_LIMIT}")
    if _SPEC_NAME.fullmatch(name) is None:
        problems.append(f"the name {name!r} is not lowercase letters, digits and single hyphens")
    elif folder is not None and name != folder:
        problems.append(f"the name {name!r} is not its folder's name {folder!r}")
    return problems
