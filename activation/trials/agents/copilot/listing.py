"""GitHub Copilot CLI's skill listing, byte for byte as CLI 1.0.102 sends it in its `<skill>`
tool-guidance block (the second system text of its first model request).

Stage A shows a model the listing the agent would show it, so this module renders what the
CLI renders. The CLI's listing is built in its native runtime (no source ships), so every
rule here was measured on the real CLI at a local stand-in; the facts and their sources are
in `copilot-1.0.102.toml` beside this file:

- **Which skills**: every project skill (Stage B installs the whole set as project skills of
  its workspace), then the user's (`~/.copilot/skills`, `~/.agents/skills`) but one whose
  name a project skill has, then the CLI's two built-ins. A description over 1,024
  characters makes the skill fail to load, and so does a name that is not ASCII letters,
  digits and `_.: -` starting with a letter or digit: such a skill is neither listed nor
  loadable.
  `disable-model-invocation: true` leaves a skill out. The listed name is the frontmatter
  `name`, else the folder's.
- **Entry**: `<skill>`, `  <name>N</name>`, `  <description>D</description>`,
  `  <location>L</location>`, `</skill>` on five lines; N and D XML-escaped and otherwise as
  written; L the source label (`project`, `user`, `builtin`), never a path.
- **Order**: by source (project, user, then built-in), by name in code point order.
- **Budget**: entries are kept while the sum of (entry + 1) stays within 15,000 characters;
  from the first that does not fit, the rest (built-ins included) are only named, on one
  line "Additional skills available (invoke by name): a, b". Such a skill can still be
  loaded by name; here it is no entry, `overflow` names it, and the listing's `named`
  maps each such name back to its skill, so a Stage A answer naming it counts for it.

In the returned `Listing` the entries are the ones shown whole ("full"), `budget` is the
character budget and `width` the characters the kept entries count against it.

A frontmatter that is not valid YAML as written (even one Claude Code's retry reads), none
at all, or a description that is not a string (a number, a boolean, a list) makes the CLI
skip the file (measured on 1.0.102).

Known limits: without a description the CLI lists the body's text lines (headings left out)
joined by spaces, measured on two bodies only; a YAML block scalar at the end of the
frontmatter loses its final line break in the CLI (its frontmatter ends before the newline)
but keeps it in this tool's reader.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from activation._models import Inputs
from activation.trials.listing.model import (
    Entry,
    ListedSkill,
    Listing,
    Menu,
    builtin_skill,
    escape_xml,
    rules_file,
    rules_from,
    skips_unparsed,
    xml_entries,
)
from activation.trials.listing.visibility import (
    Visibility,
    beside_builtins,
    budget_takers,
    from_entry,
    hidden,
    own_entry,
    replaced_by,
)

DATA_FILE = "copilot-1.0.102.toml"


@dataclass(frozen=True)
class CopilotRules:
    """The facts of one CLI version (the data file beside this module)."""

    version: str
    opening: str
    closing: str
    locations: dict[str, str]
    budget: int
    overflow: str
    description_limit: int
    name_pattern: re.Pattern[str]
    builtins: tuple[ListedSkill, ...]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> CopilotRules:
        return rules_from(
            cls,
            (data, data["budget"], data["rules"]),
            locations=data["location"],
            budget=data["budget"]["characters"],
            name_pattern=re.compile(data["rules"]["name_pattern"]),
            builtins=tuple(
                builtin_skill(item["name"], item["description"], name=item["name"])
                for item in data["builtin"]
            ),
        )


packaged_rules = rules_file(CopilotRules.from_data, __package__, DATA_FILE)


def escape(text: str) -> str:
    """The CLI's XML escaping of a name or description (`'` as `&apos;`)."""
    return escape_xml(text, "&apos;")


def listed_name(skill: ListedSkill) -> str:
    """What the CLI lists and loads a skill by: its frontmatter `name`, else its folder."""
    return skill.name if isinstance(skill.name, str) and skill.name else skill.folder


def description_of(skill: ListedSkill) -> str:
    """The description as the CLI lists it; without one, the body's text lines."""
    if skill.description is None:
        lines = (line.strip() for line in skill.body.splitlines())
        return " ".join(line for line in lines if line and not line.startswith("#"))
    return str(skill.description)


def loads(skill: ListedSkill, rules: CopilotRules | None = None) -> bool:
    """Whether the CLI loads the skill at all (a description over the limit or not text, a
    name that is not of ASCII letters, digits and `_.: -` starting with a letter or digit,
    or a frontmatter that is not valid YAML as written fails it)."""
    rules = rules or packaged_rules()
    if skill.yaml_error or not isinstance(skill.description, str | None):
        return False
    named = rules.name_pattern.fullmatch(listed_name(skill)) is not None
    return named and len(description_of(skill)) <= rules.description_limit


def render(
    skills: Sequence[ListedSkill], *, rules: CopilotRules | None = None, budget: int | None = None
) -> Listing:
    """The listing the CLI sends with these skills (and its built-ins): the project's, then
    the user's but those a project skill's name takes; `budget` replaces its character
    budget, as SKILL_CHAR_BUDGET does."""
    rules = rules or packaged_rules()
    limit = rules.budget if budget is None else budget
    usable = [s for s in skills if not s.disable_model_invocation and loads(s, rules)]
    ours = sorted((s for s in usable if s.source != "user"), key=listed_name)
    taken = {listed_name(skill) for skill in ours}
    users = (s for s in usable if s.source == "user" and listed_name(s) not in taken)
    mine = [*ours, *sorted(users, key=listed_name)]
    entries: list[Entry] = []
    spent = 0
    named: list[tuple[str, str]] = []
    every = [*mine, *kept_builtins(mine, rules)]
    for skill in every:
        line = _line(skill, rules)
        if named or spent + len(line) + 1 > limit:
            named.append((listed_name(skill), skill.id))
            continue
        spent += len(line) + 1
        entries.append(Entry(id=skill.id, line=line, state="full", source=skill.source,
                             full_line=line, shown=listed_name(skill)))  # fmt: skip
    rest = [name for name, _id in named]
    named_line = f"{rules.overflow}{', '.join(rest)}\n" if rest else ""
    return Listing(
        heading=rules.opening,
        entries=tuple(entries),
        budget=limit,
        width=spent,
        full_width=spent + sum(len(_line(s, rules)) + 1 for s in every if listed_name(s) in rest),
        separator="\n",
        closing=f"\n{named_line}{rules.closing}",
        empty=f"{rules.opening}\n{named_line}{rules.closing}",
        unit="characters",
        named=tuple(named),
    )


def kept_builtins(mine: Sequence[ListedSkill], rules: CopilotRules) -> list[ListedSkill]:
    """The built-ins the CLI lists beside these project skills: a project skill of a
    built-in's name replaces it (measured on 1.0.102: only the project's is listed)."""
    taken = {listed_name(skill) for skill in mine}
    return [skill for skill in rules.builtins if listed_name(skill) not in taken]


def overflow(shown: Listing, rules: CopilotRules | None = None) -> tuple[str, ...]:
    """The names the listing's overflow line gives (listed by name only)."""
    rules = rules or packaged_rules()
    for line in shown.closing.split("\n"):
        if line.startswith(rules.overflow):
            return tuple(line.removeprefix(rules.overflow).split(", "))
    return ()


def _line(skill: ListedSkill, rules: CopilotRules) -> str:
    location = rules.locations.get(skill.source, rules.locations["project"])
    return (
        f"<skill>\n  <name>{escape(listed_name(skill))}</name>\n"
        f"  <description>{escape(description_of(skill))}</description>\n"
        f"  <location>{location}</location>\n</skill>"
    )


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The record's entry point: a user skill (`--user-skills`, `--catalog`) is the user's,
    every other one a project skill of the run's workspace (`.agents/skills/<folder>/`,
    one of the CLI's project folders); the listing shows no path and is the same for every
    model and wire protocol."""
    return render(skills)


def read_back(text: str) -> Menu | None:
    """The XML entries of its `<skill>` tool-guidance block (overflow names have no text
    to read)."""
    return xml_entries(text) if packaged_rules().opening in text else None


def description_limit(when_to_use: str | None) -> int:
    """Copilot CLI rejects (does not cut) a description over 1,024 characters."""
    return packaged_rules().description_limit


def visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """How Copilot CLI shows each of `skills` in `listing` (rendered from them): whole, or
    only named on the overflow line once the 15,000-character budget is spent (it can still
    be loaded by that name), or not at all: a description over 1,024 characters or a name
    the CLI refuses fails the skill, and `disable-model-invocation: true` leaves it out. It
    cuts nothing."""
    rules = packaged_rules()
    named = set(overflow(listing, rules))
    out = []
    for skill in skills:
        chars = len(description_of(skill))
        entry = own_entry(listing, skill)
        other = next((e for e in listing.entries if e.name == listed_name(skill)), None)
        if entry is not None:
            out.append(from_entry(entry, chars, chars, listing, "", ""))
        elif listed_name(skill) in named:
            out.append(Visibility(skill.id, "collapsed", chars, 0, BUDGET_RULE,
                                  budget_takers(listing)))  # fmt: skip
        elif other is not None and loads(skill, rules) and not skill.disable_model_invocation:
            out.append(hidden(skill.id, chars, replaced_by(other, skill, PROJECT_FIRST)))
        else:
            out.append(hidden(skill.id, chars, _hidden_rule(skill, rules)))
    builtins = {listed_name(skill) for skill in rules.builtins}
    return beside_builtins(out, skills, builtins, listed_name, REPLACES.format)


REPLACES = "replaces Copilot CLI's built-in {} (only the project's skill is listed and loaded)"
PROJECT_FIRST = (
    "Copilot CLI lists the project's skills, then the user's, one per name (measured on 1.0.102)"
)


BUDGET_RULE = "over the 15,000-character listing budget: named on the overflow line only"


def _hidden_rule(skill: ListedSkill, rules: CopilotRules) -> str:
    if skill.yaml_error:
        return skips_unparsed(skill, "Copilot CLI")
    if not isinstance(skill.description, str | None):
        return "a description that is not text (Copilot CLI skips the file)"
    if skill.disable_model_invocation:
        return "disable-model-invocation: true"
    if rules.name_pattern.fullmatch(listed_name(skill)) is None:
        return f"a name Copilot CLI refuses ({listed_name(skill)!r}): the skill fails to load"
    limit = rules.description_limit
    return f"a description over {limit:,} characters: Copilot CLI rejects the skill"


UNLISTED = (
    "it rejects a skill whose description is over 1,024 characters, and leaves out one "
    "with `disable-model-invocation: true`"
)
"""Why the agent would not list a skill, in words (an adapter's `check`)."""
