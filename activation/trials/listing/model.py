"""What every agent's listing is made of: the skills an agent may list, the entries it
sends, and the listing as a whole (its text in any order, its budget and width). Each agent's
renderer (trials/agents/<agent>/listing.py) makes a `Listing` by its own rules; everything
else (Stage A's requests, the report, visibility) reads only these records."""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, get_args

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Source = Literal["user", "project", "plugin", "builtin"]
"""Where the agent found a skill: the user's own skills folder, the project's, a plugin, or
the CLI itself."""
EntryState = Literal["full", "cut", "collapsed"]
Seen = Literal["full", "cut", "collapsed", "hidden"]
"""How visible a skill is to the model: an `EntryState`, or `hidden`, not listed at all."""
"""How an entry shows: its whole text, its text cut at the per-entry limit, or only its id
(the listing was over budget)."""
Placement = Literal["system", "user"]
"""Where the listing goes: a section of the `role: "system"` message (newer models), or a
`<system-reminder>` text block of the first user message (4.x and older)."""
FrontmatterValue: TypeAlias = object
"""A frontmatter value as the YAML parser gave it: usually a string or None. Numbers and
booleans become strings as JavaScript's `String` makes them, a date its ISO form (what
the CLI's YAML 1.2 parser keeps as written), a list its items joined by commas; a
description that is none of string, number or boolean counts as missing."""

PROJECT_SKILLS = Path(".agents", "skills")
"""Where agents without plugins (OpenCode, Codex) find a project's skills."""
UNBOUNDED = sys.maxsize
"""The budget of a listing that has none (every entry is shown whole, however many)."""
SOURCES: tuple[Source, ...] = get_args(Source)
SOURCE_RANK = {source: rank for rank, source in enumerate(SOURCES)}


@dataclass(frozen=True)
class ListedSkill:
    """One skill the agent may list, with its frontmatter fields as the SKILL.md has them.

    `id` is how the agent invokes it: `<plugin>:<folder>` for a plugin skill (make it with
    `plugin_skill_id`, which sanitises the folder as the CLI does), the bare folder name for
    a user or project skill. `name` is the frontmatter `name`, `body` the SKILL.md text
    after the frontmatter (all of it when there is none), used when `description` is
    missing. For a `builtin` entry `description` is the entry text, sent as it is.
    `collapses` False keeps the whole entry over budget, as the CLI does for its bundled
    skills only.
    """

    id: str
    folder: str
    source: Source
    description: FrontmatterValue = None
    when_to_use: FrontmatterValue = None
    name: FrontmatterValue = None
    body: str = ""
    disable_model_invocation: bool = False
    collapses: bool = True
    files: tuple[tuple[str, str], ...] = ()
    """Its folder's per-agent metadata files (path below the folder, text): an agent that
    reads one of them (Codex: `agents/openai.yaml`) may hide the skill by it."""
    command: bool = False
    """A Claude Code command file (`commands/<name>.md`) rather than a skill: only Claude
    Code lists it (inputs/commands.py)."""
    nested: bool = False
    """A SKILL.md inside another skill's folder (`Skill.nested`): only an agent whose record
    says `nested_skills` lists it."""
    yaml_error: str = ""
    """Why a strict YAML parser refuses its frontmatter as written, or why it has none (""
    when it parses): the fields above are then Claude Code's reading (its retry that quotes
    values, or no fields at all when that fails too, `parsed` False). Codex and Copilot CLI
    skip such a file; OpenCode and Gemini CLI retry `frontmatter_text` their own ways."""
    parsed: bool = True
    """False when not even Claude Code's retry reads the frontmatter: it has no fields."""
    frontmatter_text: str | None = None
    """Its frontmatter as written (None: it has none, or only its fields are known)."""

    def __post_init__(self) -> None:
        if self.source not in SOURCE_RANK:
            raise ValueError(f"unknown skill source {self.source!r} (one of {SOURCES})")
        if not self.id:
            raise ValueError("a listed skill needs an id")

    @property
    def plugin(self) -> str | None:
        """The plugin a plugin skill belongs to (its id's prefix)."""
        return self.id.partition(":")[0] if self.source == "plugin" else None


def skips_unparsed(skill: ListedSkill, agent: str) -> str:
    """Why `agent`, whose parser is strict, skips a skill whose frontmatter it cannot read."""
    if skill.frontmatter_text is None:
        return f"no YAML frontmatter ({agent} skips the file)"
    return f"its frontmatter is not valid YAML ({agent} skips the file)"


@dataclass(frozen=True)
class Entry:
    """One line of the listing (a built-in's text may hold newlines).

    `line` is exactly what is sent; `full_line` what it would be with its whole text.
    `shown` is the name the agent lists the skill by and loads it with, when that is not its
    id (another agent's listing names a skill by its frontmatter `name`)."""

    id: str
    line: str
    state: EntryState
    source: Source
    full_line: str
    shown: str = ""

    @property
    def name(self) -> str:
        """What a load action names this skill by."""
        return self.shown or self.id


@dataclass(frozen=True)
class Listing:
    """The listing the agent sends: entries in listing order, the budget they were held to,
    and their display width (entries plus the newlines between them) as sent and as it
    would have been with no entry collapsed.

    The section is `heading`, `separator`, the entries' lines joined by newlines, then
    `closing`; with no entry, `empty`. Claude Code's defaults are below; another agent's
    listing (an XML block, a Markdown list) sets its own."""

    heading: str
    entries: tuple[Entry, ...]
    budget: int
    width: int
    full_width: int
    placement: Placement = "system"
    separator: str = "\n\n"
    closing: str = ""
    empty: str = ""
    unit: str = "columns"
    """What `budget` and `width` count (Claude Code: display columns)."""
    named: tuple[tuple[str, str], ...] = ()
    """(name, id) of each skill the listing names without an entry of its own (Copilot
    CLI's overflow line): the model may still choose it by that name."""

    @property
    def size_text(self) -> str:
        """The listing's size against its budget, in words: "1,200 of 6,000 columns", or
        "1,200 characters, no budget" for an agent that has none."""
        if self.budget == UNBOUNDED:
            return f"{self.width:,} {self.unit}, no budget"
        return f"{self.width:,} of {self.budget:,} {self.unit}"

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(entry.id for entry in self.entries)

    @property
    def text(self) -> str:
        """The listing section as the CLI sends it for a newer model (a section of the
        system message); empty when nothing is listed, as then the CLI sends none."""
        return self.text_in_order(self.ids)

    @property
    def system_reminder(self) -> str:
        """The listing as the CLI sends it for a 4.x or older model: a text block of the
        first user message."""
        return f"<system-reminder>\n{self.text}\n</system-reminder>" if self.entries else ""

    @property
    def as_sent(self) -> str:
        """The text the CLI sends for the model it was rendered for (`placement`)."""
        return self.system_reminder if self.placement == "user" else self.text

    def entry(self, skill_id: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.id == skill_id), None)

    def text_in_order(self, ids: Sequence[str]) -> str:
        """The listing section with its lines in the order of `ids` (a permutation of
        `self.ids`): each line is the same in every order, only the order changes. Two
        entries of one id (an agent that lists a user's copy beside the project's) keep
        their own order."""
        if Counter(ids) != Counter(self.ids):
            raise ValueError("the order must name every listed skill as often as it is listed")
        if not self.entries:
            return self.empty
        lines: dict[str, list[str]] = {}
        for entry in reversed(self.entries):
            lines.setdefault(entry.id, []).append(entry.line)
        body = "\n".join(lines[skill_id].pop() for skill_id in ids)
        return f"{self.heading}{self.separator}{body}{self.closing}"


def packaged(package: str, name: str) -> str:
    """A data file of an agent's package: the facts of the CLI version it was measured on."""
    return files(package).joinpath(name).read_text(encoding="utf-8")


Rules = TypeVar("Rules", bound="DataclassInstance")


def rules_from(cls: type[Rules], tables: Sequence[Mapping[str, Any]], **computed: Any) -> Rules:
    """An agent's rules record (a dataclass of one CLI version's facts) from its data file:
    each field not `computed` is the value under the field's own name in the first of
    `tables` (the file's tables) that has it; KeyError names a field none has."""
    values = dict(computed)
    for field in fields(cls):
        if field.name not in values:
            table = next((table for table in tables if field.name in table), None)
            if table is None:
                raise KeyError(field.name)
            values[field.name] = table[field.name]
    return cls(**values)


def rules_file(
    read: Callable[[Mapping[str, Any]], Rules], package: str, name: str
) -> Callable[[], Rules]:
    """An agent's `packaged_rules`: its TOML data file `name` (`packaged`), parsed and
    `read` into its rules record once: the rules of the CLI version its package was
    measured against."""
    return cache(lambda: read(tomllib.loads(packaged(package, name))))


def builtin_skill(skill_id: str, description: str, **more: object) -> ListedSkill:
    """One of the agent's own skills, as its listing shows it: its id is its folder too."""
    return ListedSkill(id=skill_id, folder=skill_id, source="builtin", description=description,
                       **more)  # type: ignore[arg-type]  # fmt: skip


@dataclass(frozen=True)
class Shipped:
    """A skill the agent ships in a folder of its own (its data file's entry): the name it
    lists, its description, and its SKILL.md's place below that folder."""

    name: str
    description: str
    path: str


ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))


def escape_xml(text: str, apostrophe: str) -> str:
    """`& < > "` as XML entities, `&` first, and `'` as `apostrophe` (the CLIs differ)."""
    for char, entity in (*ENTITIES, ("'", apostrophe)):
        text = text.replace(char, entity)
    return text


Menu = list[tuple[str, str]]
"""A listing read back from the text sent: each entry's name and text, in listed order."""
_XML_ENTRY = re.compile(r"<skill>\s*<name>(.*?)</name>\s*<description>(.*?)</description>", re.S)
XML_OPEN = "<available_skills>"
XML_CLOSE = "</available_skills>"
"""The tags around the skills of a listing written as XML."""


def xml_skill(skill_id: str, name: str, description: str, location: str, source: Source) -> Entry:
    """One skill of an Agent Skills XML listing, whole: five lines, its `<name>`,
    `<description>` and `<location>` as given (an agent that escapes escapes first)."""
    line = "\n".join(
        [
            "  <skill>",
            f"    <name>{name}</name>",
            f"    <description>{description}</description>",
            f"    <location>{location}</location>",
            "  </skill>",
        ]
    )
    return Entry(id=skill_id, line=line, state="full", source=source, full_line=line, shown=name)


def xml_listing(intro: str, entries: tuple[Entry, ...], empty: str = "") -> Listing:
    """An XML listing with no cut and no budget (`intro`, then the entries between
    `XML_OPEN` and `XML_CLOSE`, one a line): its width is its length in characters."""
    draft = Listing(
        heading=f"{intro}\n{XML_OPEN}",
        entries=entries,
        budget=UNBOUNDED,
        width=0,
        full_width=0,
        separator="\n",
        closing=f"\n{XML_CLOSE}",
        empty=empty,
        unit="characters",
    )
    size = len(draft.text)
    return replace(draft, width=size, full_width=size)


def xml_entries(text: str) -> Menu:
    """The entries of an Agent Skills XML listing (`<available_skills>`, each `<skill>` a
    name and a description), from its last opening on; texts as sent, entities kept."""
    return [(name, text) for name, text in _XML_ENTRY.findall(text.rpartition(XML_OPEN)[2])]
