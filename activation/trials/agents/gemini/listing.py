"""Gemini CLI's skill listing, byte for byte as CLI 0.61.0 puts it in its system instruction.

Stage A shows a model the listing the agent would show it, so this module renders exactly
what the real CLI sends (read in its package and measured on it; the facts and their
sources are in `gemini-cli-0.61.0.toml` beside this file):

- **Which skills**: a SKILL.md is listed when its frontmatter has a string `name` and a
  string `description`, or (YAML it cannot parse, a number, a list) when its line-by-line
  fallback finds `name:` and `description:` lines (`simple_fields`); the listed name is
  that `name` with `: \\ / < > * ? " |` each made `-`, never the folder. One skill per
  listed name: a later one replaces an earlier one's entry, which keeps its place.
- **Entry**: five lines, `  <skill>`, `    <name>N</name>`, `    <description>D</description>`,
  `    <location>L</location>`, `  </skill>`; nothing is escaped or trimmed, L is the
  SKILL.md's absolute path.
- **Order**: the CLI's two built-ins (`skill-creator`, `antigravity-support`, under its
  package's `bundle/builtin/`), then the user's skills, then the project's
  `.gemini/skills` and `.agents/skills`; inside one folder the skills' folders in reverse
  byte order of their names, as the CLI's glob mostly walks them (its walk is concurrent:
  runs of one skill set do not always agree, so no order inside a folder is guaranteed).
- **No limits**: no per-entry cut and no budget.
- **Wording**: the intro line says "call the `activate_skill` tool" to a Gemini 3 or a
  custom model, "you can call" to the older ones (gemini-2.5-pro...).

In the returned `Listing` every entry is "full", `budget` is `UNBOUNDED`, and `width` and
`full_width` are the section's length in characters. With no skill the CLI sends no section.
`render` is pure apart from reading the packaged data file once (`packaged_rules`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from activation._models import Inputs
from activation.trials.listing.model import (
    PROJECT_SKILLS,
    Entry,
    ListedSkill,
    Listing,
    Menu,
    Shipped,
    rules_file,
    rules_from,
    skips_unparsed,
    xml_entries,
    xml_listing,
    xml_skill,
)
from activation.trials.listing.visibility import Visibility, replaced_by, whole_or_hidden
from activation.trials.providers import parse_model

DATA_FILE = "gemini-cli-0.61.0.toml"
PACKAGE_BUNDLE = Path("@google", "gemini-cli", "bundle")
GLOBAL_MODULES = Path("/usr/local/lib/node_modules")
"""Where `npm install -g` puts packages by default on Linux: the built-ins' location when no
`gemini` is on the PATH."""


@dataclass(frozen=True)
class GeminiRules:
    """The facts of one CLI version (the data file beside this module)."""

    version: str
    heading: str
    intro_modern: str
    intro_legacy: str
    modern_pattern: re.Pattern[str]
    custom_prefix: str
    aliases: Mapping[str, str]
    sanitized: str
    replacement: str
    builtins: tuple[Shipped, ...]
    """Its skills under `bundle/builtin/`, as it lists them."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> GeminiRules:
        return rules_from(
            cls,
            (data, data["discovery"]),
            modern_pattern=re.compile(data["modern_pattern"]),
            builtins=tuple(
                Shipped(item["name"], item["description"], f"{item['folder']}/SKILL.md")
                for item in data["builtin"]
            ),
        )


packaged_rules = rules_file(GeminiRules.from_data, __package__, DATA_FILE)


def is_modern(model: str | None, rules: GeminiRules | None = None) -> bool:
    """Whether the CLI gives `model` (its `-m`; None: its `auto` default) the modern prompt:
    a Gemini 3 model once aliases are resolved, or a model not named `gemini-...`."""
    rules = rules or packaged_rules()
    asked = (model or "auto").strip()
    resolved = rules.aliases.get(asked, asked)
    return bool(rules.modern_pattern.search(resolved)) or not resolved.startswith(
        rules.custom_prefix
    )


def listed_name(name: str, rules: GeminiRules | None = None) -> str:
    """The name the CLI lists (and activates) a skill by."""
    rules = rules or packaged_rules()
    return "".join(rules.replacement if char in rules.sanitized else char for char in name)


def render(
    skills: Sequence[ListedSkill],
    model: str | None,
    location: Callable[[ListedSkill], str],
    *,
    builtin_root: str | None = None,
    rules: GeminiRules | None = None,
) -> Listing:
    """The listing Gemini CLI would send `model` (its `-m`) with these skills discovered, in
    discovery order; with `builtin_root` (its package's `bundle/builtin`) its built-ins
    first. `location(skill)` is the absolute path of the skill's SKILL.md."""
    rules = rules or packaged_rules()
    found: dict[str, Entry] = {}
    if builtin_root is not None:
        for builtin in rules.builtins:
            path = f"{builtin_root.rstrip('/')}/{builtin.path}"
            found[builtin.name] = xml_skill(builtin.name, builtin.name, builtin.description,
                                            path, "builtin")  # fmt: skip
    for skill in skills:
        name, description = read_fields(skill)
        if name is None or description is None:
            continue
        shown = listed_name(name, rules)
        found[shown] = xml_skill(skill.id, shown, description, location(skill), skill.source)
    intro = rules.intro_modern if is_modern(model, rules) else rules.intro_legacy
    return xml_listing(f"{rules.heading}\n\n{intro}\n", tuple(found.values()))


def read_fields(skill: ListedSkill) -> tuple[str | None, str | None]:
    """Its `name` and `description` as the CLI reads them (`parseFrontmatter`): both
    strings of the parsed YAML, else what its line-by-line fallback finds in the
    frontmatter's text (a YAML error, a number or a list go that way too)."""
    if not skill.yaml_error and isinstance(skill.name, str) and isinstance(skill.description, str):
        return skill.name, skill.description
    if skill.frontmatter_text is None:
        return None, None
    name, description = simple_fields(skill.frontmatter_text)
    return (name, description) if name is not None and description is not None else (None, None)


_NAME_LINE = re.compile(r"^\s*name:\s*(.*)$")
_DESCRIPTION_LINE = re.compile(r"^\s*description:\s*(.*)$")
_CONTINUED = re.compile(r"^[ \t]+\S")


def simple_fields(frontmatter: str) -> tuple[str | None, str | None]:
    """The CLI's fallback (`parseSimpleFrontmatter`): the text after the last `name:` line,
    and after the last `description:` line with its indented lines, each trimmed and
    joined by spaces; either is None when no line names it (the CLI then skips the file)."""
    lines = frontmatter.split("\n")
    name = description = None
    index = 0
    while index < len(lines):
        if (named := _NAME_LINE.match(lines[index])) is not None:
            name = named[1].strip()
        elif (described := _DESCRIPTION_LINE.match(lines[index])) is not None:
            parts = [described[1].strip()]
            while index + 1 < len(lines) and _CONTINUED.match(lines[index + 1]):
                index += 1
                parts.append(lines[index].strip())
            description = " ".join(part for part in parts if part)
        index += 1
    return name, description


def discovery_order(skills: Sequence[ListedSkill]) -> list[ListedSkill]:
    """The order the CLI finds the skills of one skills folder: their folders' names in
    reverse byte order."""
    return sorted(skills, key=lambda skill: skill.folder.encode(), reverse=True)


def builtin_root(executable: str | None = None) -> str:
    """The built-ins' folder of the `gemini` found on the PATH (its package's
    `bundle/builtin`), else of a global npm install."""
    found = shutil.which(executable or "gemini")
    if found is not None:
        script = Path(found).resolve()
        if script.parent.name == PACKAGE_BUNDLE.name:
            return str(script.parent / "builtin")
    return str(GLOBAL_MODULES / PACKAGE_BUNDLE / "builtin")


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The record's entry point: a user skill (`--user-skills`, `--catalog`) under
    `~/.gemini/skills/<folder>/` (its location says so even for one of `~/.agents/skills`:
    the skill records carry no path), every other one a project skill under the repository's
    `.agents/skills/<folder>/`; found in the CLI's order: its built-ins, the user's, then
    the project's, so a project skill replaces a user skill of its name.
    `google:<id>` is the CLI's `-m <id>`."""
    roots = {"user": Path.home() / USER_SKILLS}
    project = inputs.target.repo / PROJECT_SKILLS
    asked = None if model is None else parse_model(model).id

    def location(skill: ListedSkill) -> str:
        return str(roots.get(skill.source, project) / skill.folder / "SKILL.md")

    users = [skill for skill in skills if skill.source == "user"]
    rest = [skill for skill in skills if skill.source != "user"]
    found = [*discovery_order(users), *discovery_order(rest)]
    return render(found, asked, location, builtin_root=builtin_root())


USER_SKILLS = Path(".gemini", "skills")
"""The user's own skills folder, below the home folder."""


def read_back(text: str) -> Menu | None:
    """The XML entries under its `# Available Agent Skills` heading."""
    return xml_entries(text) if packaged_rules().heading in text else None


def description_limit(when_to_use: str | None) -> None:
    """Gemini CLI cuts nothing."""
    return None


CONSENT = (
    "headless, Gemini CLI removes activate_skill unless a policy allows it: this tool's runs "
    "allow it with a one-rule policy file"
)


def visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """How Gemini CLI shows each of `skills` in `listing` (rendered from them): it cuts
    nothing and has no budget, so a skill is listed whole or not at all: not without a
    string `name` and a string `description`, and not when a later skill takes its listed
    name. A listed skill is loadable in this tool's runs because they open `activate_skill`
    (`CONSENT`), which a user's headless run does not."""
    builtins = {builtin.name for builtin in packaged_rules().builtins}
    return whole_or_hidden(skills, listing, _read_name, _hidden_rule,
                           (builtins, REPLACES.format), CONSENT)  # fmt: skip


REPLACES = (
    "replaces Gemini CLI's built-in {}, in its place (a skill found later replaces one of "
    "the same name: SkillManager.addSkillsWithPrecedence)"
)


def _read_name(skill: ListedSkill) -> str | None:
    """The name it lists the skill by, None when it skips the file."""
    name, _description = read_fields(skill)
    return None if name is None else listed_name(name)


def _hidden_rule(skill: ListedSkill, entry: Entry | None) -> str:
    if skill.yaml_error and skill.frontmatter_text is None:
        return skips_unparsed(skill, "Gemini CLI")
    if read_fields(skill)[0] is None:
        text = skill.frontmatter_text
        name = skill.name if text is None else simple_fields(text)[0]
        missing = "name" if not isinstance(name, str) else "description"
        return f"no `{missing}` in the frontmatter (Gemini CLI skips the file)"
    return replaced_by(entry, skill, FOUND_LATER) if entry is not None else FOUND_LATER


FOUND_LATER = (
    "Gemini CLI lists the one it finds later (user skills after its built-ins, the "
    "project's after the user's: SkillManager.addSkillsWithPrecedence)"
)


UNLISTED = (
    "it skips a SKILL.md whose frontmatter lacks a string `name` or `description`, and "
    "lists one skill per name"
)
"""Why the agent would not list a skill, in words (an adapter's `check`)."""
