"""OpenCode's skill listing, byte for byte as CLI 1.18.33 ends its system text with it.

Stage A shows a model the listing the agent would show it, so this module renders exactly
what OpenCode renders (measured on the CLI itself and read in its binary; the facts and
their sources are in `opencode-1.18.33.toml` beside this file and in
research/agents/NOTES.md section 1):

- **Which skills**: a frontmatter its YAML parser refuses is parsed once more after
  `sanitized` (each `key: value` line whose value holds a colon made a `|-` block), and the
  file skipped when that fails too [binary: `ConfigMarkdown.parse`]. A SKILL.md is read
  only when its frontmatter `name` is a string and its `description` a string or absent;
  the listed name is that `name`, never the folder. The CLI registers its own
  `customize-opencode` skill first, then the files: one skill per name, a later one
  replacing an earlier one (a built-in included). Then skills without a
  description are left out (they can still be loaded); an empty description is listed.
- **Entry**: five lines, `  <skill>`, `    <name>N</name>`, `    <description>D</description>`,
  `    <location>L</location>`, `  </skill>`. N and D are sent as they are (no escaping, no
  trimming: a YAML block scalar keeps its newlines and its final one); L, the SKILL.md's
  absolute path or `<built-in>`, is HTML-escaped (`& < > " '`).
- **Order**: `a.name.localeCompare(b.name)`, ICU root collation whatever the locale (so
  `a_b` before `a-b`, `alpha` before `ALPHA2` before `beta`), not byte order.
- **No limits**: no per-entry cut and no budget (300 skills of 1,213 characters were listed
  in full), and `when_to_use` is not read.
- **Section**: the two intro lines, `<available_skills>`, the entries, `</available_skills>`,
  joined by newlines with none after; with no entry, the intro lines and
  `No skills are currently available.`

In the returned `Listing` every entry is "full", `budget` is `UNBOUNDED`, and `width` and
`full_width` are the section's length in characters (OpenCode measures nothing).

Known limits (read in the binary, not seen in real skill sets):
- Which of two files with one name in one project wins is unspecified in the CLI (it
  parses them concurrently); here the later one in `skills` does. Of a user's and a
  project's copy the CLI listed the project's in every run (`listing` reads the user's
  skills first).
- Field values must be what the CLI's YAML parser reads: a YAML 1.1 parser (PyYAML) makes
  `yes` a boolean, which this module then skips like the CLI skips a non-string; the CLI
  keeps the word.
- A `permission.skill` rule that denies a skill other than the built-in hides it in the CLI;
  leave such skills out of `skills`. With the skill tool denied altogether the CLI sends no
  section at all.

`render` is pure apart from reading the packaged data file once (`packaged_rules`). PyICU
is imported when first needed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from activation._models import Inputs
from activation.trials.listing.model import (
    PROJECT_SKILLS,
    XML_OPEN,
    Entry,
    ListedSkill,
    Listing,
    Menu,
    escape_xml,
    rules_file,
    xml_entries,
    xml_listing,
    xml_skill,
)
from activation.trials.listing.visibility import Visibility, replaced_by, whole_or_hidden

DATA_FILE = "opencode-1.18.33.toml"


@dataclass(frozen=True)
class OpenCodeRules:
    """The facts of one CLI version (the data file beside this module)."""

    version: str
    intro: str
    empty: str
    builtin: ListedSkill
    builtin_location: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> OpenCodeRules:
        builtin = data["builtin"]
        intro = "\n".join(data["intro"])
        return cls(
            version=data["version"],
            intro=intro,
            empty=f"{intro}\n{data['empty']}",
            builtin=ListedSkill(
                id=builtin["name"],
                folder=builtin["name"],
                source="builtin",
                description=builtin["description"],
                name=builtin["name"],
            ),
            builtin_location=builtin["location"],
        )


packaged_rules = rules_file(OpenCodeRules.from_data, __package__, DATA_FILE)


@dataclass(frozen=True)
class _Read:
    """A skill as the CLI holds it once its SKILL.md parsed."""

    skill: ListedSkill
    name: str
    description: str | None
    location: str


def render(
    skills: Sequence[ListedSkill],
    location: Callable[[ListedSkill], str],
    *,
    builtin: bool = True,
    rules: OpenCodeRules | None = None,
) -> Listing:
    """The listing OpenCode would send with these skills discovered, in discovery order.

    `location(skill)` is the absolute path of the skill's SKILL.md as the agent would show
    it (the listing's `<location>`; a `builtin` skill's is `<built-in>`). `builtin` False
    leaves out `customize-opencode`, as a config that denies it does."""
    rules = rules or packaged_rules()

    def where(skill: ListedSkill) -> str:
        return rules.builtin_location if skill.source == "builtin" else location(skill)

    by_name: dict[str, _Read] = {}
    for skill in [rules.builtin, *skills] if builtin else skills:
        read = _read(skill, where)
        if read is not None:
            by_name[read.name] = read
    collator = _collator()
    listed = sorted(
        (read for read in by_name.values() if read.description is not None),
        key=lambda read: collator.getSortKey(read.name),
    )
    return xml_listing(rules.intro, tuple(_entry(read) for read in listed), rules.empty)


def _read(skill: ListedSkill, location: Callable[[ListedSkill], str]) -> _Read | None:
    """The skill as the CLI reads it, or None when it skips the file (a frontmatter that
    does not parse even after its fallback, a `name` that is not a string, a `description`
    neither a string nor absent)."""
    fields = _fields(skill)
    if fields is None:
        return None
    name, description = fields
    if not isinstance(name, str) or not (description is None or isinstance(description, str)):
        return None
    return _Read(skill, name, description, location(skill))


def _fields(skill: ListedSkill) -> tuple[object, object] | None:
    """Its `name` and `description` as the CLI parses them: strictly, else (a frontmatter
    that is not valid YAML) once more after `sanitized`; None when that fails too. A file
    without frontmatter has no fields."""
    if not skill.yaml_error:
        return skill.name, skill.description
    if skill.frontmatter_text is None:
        return None, None
    import yaml

    from activation._yaml import load_yaml

    try:
        data = load_yaml(sanitized(skill.frontmatter_text) + "\n")
    except yaml.YAMLError:
        return None
    return (data.get("name"), data.get("description")) if isinstance(data, dict) else (None, None)


_KEY_VALUE = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$")


def sanitized(frontmatter: str) -> str:
    """The CLI's second try at a frontmatter its YAML parser refuses (`ConfigMarkdown`'s
    `sanitize`): each top-level `key: value` line (a key of letters, digits and `_`) whose
    value holds a `:` and is not quoted, empty or a block marker becomes a `|-` block."""
    lines = []
    for line in frontmatter.split("\n"):
        found = (
            None if line.strip().startswith("#") or line[:1].isspace() else _KEY_VALUE.match(line)
        )
        value = found[2].strip() if found else ""
        if (
            found is None
            or value in ("", ">", "|")
            or value.startswith(("'", '"'))
            or ":" not in value
        ):
            lines.append(line)
            continue
        lines += [f"{found[1]}: |-", f"  {value}"]
    return "\n".join(lines)


def _entry(read: _Read) -> Entry:
    """Its location escaped, the rest as read."""
    location = escape(read.location)
    return xml_skill(read.skill.id, read.name, str(read.description), location, read.skill.source)


def escape(text: str) -> str:
    """The CLI's escaping of a location: `& < > " '` as HTML entities."""
    return escape_xml(text, "&#39;")


@cache
def _collator() -> Any:
    """`localeCompare` in the CLI's runtime: ICU root collation, tertiary strength,
    canonically equivalent strings equal (the order did not change with LANG=sv_SE.UTF-8)."""
    import icu

    collator = icu.Collator.createInstance(icu.Locale.getRoot())
    collator.setAttribute(icu.UCollAttribute.NORMALIZATION_MODE, icu.UCollAttributeValue.ON)
    return collator


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The record's entry point: OpenCode has no plugins, so a user skill (`--user-skills`,
    `--catalog`) is one under `~/.agents/skills/<folder>/` and every other one a project
    skill under the repository's `.agents/skills/<folder>/`; the user's are put first, so a
    project skill replaces the user's copy of its name, as the CLI mostly does (it reads its
    folders concurrently: measured, it listed the project's copy in 3 runs of 4)."""
    roots = {"user": Path.home() / PROJECT_SKILLS}
    project = inputs.target.repo / PROJECT_SKILLS
    users = [skill for skill in skills if skill.source == "user"]
    rest = [skill for skill in skills if skill.source != "user"]
    return render(
        [*users, *rest],
        lambda skill: str(roots.get(skill.source, project) / skill.folder / "SKILL.md"),
    )


def read_back(text: str) -> Menu | None:
    """The XML entries after its intro lines."""
    return xml_entries(text) if f"{packaged_rules().intro}\n{XML_OPEN}" in text else None


def description_limit(when_to_use: str | None) -> None:
    """OpenCode cuts nothing."""
    return None


def visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """How OpenCode shows each of `skills` in `listing` (rendered from them): it cuts
    nothing and has no budget, so a skill is listed whole or not at all: not when its
    frontmatter has no `name` (or one that is not text), a description that is not text,
    or no description, and not when a later skill takes its name. This tool's runs allow
    the `skill` tool (`permission.skill`), so a listed skill can be loaded."""
    builtin = str(packaged_rules().builtin.name)
    return whole_or_hidden(skills, listing, _read_name, _hidden_rule, ({builtin}, REPLACES.format))


REPLACES = (
    "replaces OpenCode's built-in {} (one skill per name: the later one is listed and loaded)"
)


def _read_name(skill: ListedSkill) -> str | None:
    """The name it lists the skill by, None when it skips the file."""
    read = _read(skill, lambda _: "")
    return None if read is None else read.name


def _hidden_rule(skill: ListedSkill, entry: Entry | None) -> str:
    fields = _fields(skill)
    if fields is None:
        return (
            "its frontmatter is not valid YAML, even after OpenCode's second try that makes "
            "each `key: value` line holding a colon a block (OpenCode skips the file)"
        )
    if skill.yaml_error and skill.frontmatter_text is None:
        return "no YAML frontmatter, so no `name` (OpenCode skips the file)"
    name, description = fields
    if name is None:
        return "no `name` in the frontmatter (OpenCode skips the file)"
    if not isinstance(name, str):
        return "a `name` that is not text (OpenCode skips the file)"
    if description is not None and not isinstance(description, str):
        return "a description that is not text (OpenCode skips the file)"
    if description is None:
        return "no description (OpenCode lists only skills with one)"
    return replaced_by(entry, skill, FOUND_LATER) if entry is not None else FOUND_LATER


FOUND_LATER = (
    "OpenCode lists one skill per name, the one it reads last: it reads its skill folders "
    "concurrently, so which copy that is (the project's or the user's, or of two in one "
    "project) can differ between runs; this tool shows the project's"
)


UNLISTED = (
    "it skips a SKILL.md whose frontmatter has no string `name`, and lists none without "
    "a description"
)
"""Why the agent would not list a skill, in words (an adapter's `check`)."""
