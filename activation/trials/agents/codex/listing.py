"""Codex CLI's skill listing, byte for byte as CLI 0.171.0 sends it in its first request.

Stage A shows a model the listing the agent would show it, so this module renders exactly
what the real CLI sends: the first `input_text` of a developer message (measured on the CLI
itself; the facts and their sources are in `codex-0.171.0.toml` beside this file and in
research/agents/NOTES.md section 2):

- **Which skills**: a skill whose description is missing or blank (after whitespace
  collapsing), or whose name is over 64 characters, is not listed (Codex rejects it). The
  name is the frontmatter `name` when it is a non-empty string, else the folder (a
  non-string name is unmeasured). The description is a string, or an
  integer written in decimal (`description: 42`); any other YAML value is taken as missing
  [inferred]. A frontmatter that is not valid YAML as written (or no frontmatter) makes
  Codex skip the file [V `loader.rs`: serde_yaml, `SkillParseError::InvalidYaml`,
  `MissingFrontmatter`]. A skill whose folder's `agents/openai.yaml` says `policy:
  allow_implicit_invocation: false` is not listed either (`listing` leaves it out, `render`
  lists what it is given): Codex lists only the skills allowed implicit invocation
  [V codex-rs/core-skills/src/model.rs `allowed_skills_for_implicit_invocation`; the file
  and its shape in `loader.rs` `load_skill_metadata`, which ignores a file it cannot parse].
  `disable_model_invocation` and `when_to_use` mean nothing to Codex and are ignored.
- **Description**: every run of whitespace (Rust's `char::is_whitespace` set) becomes one
  space, the ends trimmed; over 1,024 Unicode scalar values it keeps its first 1,021 and gets
  `...`.
- **Entry**: `- <name>: <description> (file: rN/<path under the root>)`, or
  `- <name>: (file: ...)` when the budget removed the description.
- **Order**: the bundled skills (scope system) first, then by scope rank (system, admin, repo,
  user), then the name's UTF-8 bytes, then the SKILL.md path's.
- **Roots**: each root holding a listed skill gets the alias `rN`, numbered in Codex's root
  order: project `.codex/skills`, `$CODEX_HOME/skills`, `$HOME/.agents/skills`,
  `$CODEX_HOME/skills/.system`, `/etc/codex/skills` (admin, order inferred), then the project
  `.agents/skills` roots from the git root down to the cwd. A root's kind is read from its
  scope and its last two path parts (`.agents/skills` or not).
- **Budget**: 2 % of the model's context window, in tokens; a line costs
  `ceil((UTF-8 bytes + 1) / 4)`, the headings and the root table nothing. Over it, when the
  bare lines fit, the spare tokens go to the descriptions one character at a time,
  round-robin in listing order (cut mid-word, no ellipsis); else bare lines are kept
  greedily in order and the rest are left out (they have no `Entry`).
- **Closing**: for the models whose catalog entry asks for it (gpt-5.5), `### How to use
  skills` and a fixed block precede `</skills_instructions>`.

With no entry the text is empty (what Codex sends then is unmeasured: with its bundled
skills it always lists some). `Listing.width` and `full_width` are in Codex's tokens (the
sum of the entry lines' costs), `budget` is the token limit; `placement` is "system" (a
developer message, before the user's prompt). `render` is pure apart from reading the
packaged data file once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

from activation._models import Inputs
from activation.trials.listing.model import (
    PROJECT_SKILLS,
    Entry,
    EntryState,
    ListedSkill,
    Listing,
    Menu,
    Shipped,
    Source,
    rules_file,
    rules_from,
    skips_unparsed,
)
from activation.trials.listing.visibility import (
    Visibility,
    beside_builtins,
    budget_takers,
    from_entry,
    hidden,
    own_entry,
)
from activation.trials.providers import parse_model

Scope = Literal["system", "admin", "repo", "user"]
"""Codex's skill scope: its bundled skills, `/etc/codex/skills`, the project's roots, the
user's (`$CODEX_HOME/skills`, `$HOME/.agents/skills`)."""
Location: TypeAlias = Callable[[ListedSkill], tuple[Scope, str, str]]
"""Where Codex finds a skill: its scope, the absolute root it was found under (as Codex sees
it, symlinks not resolved) and the SKILL.md path relative to that root."""

DATA_FILE = "codex-0.171.0.toml"
SCOPES: tuple[Scope, ...] = get_args(Scope)
_WHITESPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
"""Unicode White_Space, what Rust's `split_whitespace` splits on (Python's `str.split` also
splits on U+001C..U+001F)."""
_AGENTS_SKILLS = (".agents", "skills")


@dataclass(frozen=True)
class CodexRules:
    """The facts of one CLI version (the data file beside this module)."""

    version: str
    opening: str
    roots_heading: str
    entries_heading: str
    closing: str
    description_cut: int
    ellipsis: str
    name_limit: int
    scope_order: tuple[Scope, ...]
    percent: int
    bytes_per_token: int
    fallback_context_window: int
    default_model: str
    context_windows: Mapping[str, int]
    how_to_use_heading: str
    how_to_use_models: frozenset[str]
    how_to_use: str
    bundled: tuple[Shipped, ...]
    """Its skills in `$CODEX_HOME/skills/.system`, as it lists them."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> CodexRules:
        budget, how = data["budget"], data["how_to_use"]
        order = tuple(data["scope_order"])
        if sorted(order) != sorted(SCOPES):
            raise ValueError(f"scope_order must name each of {SCOPES} once")
        return rules_from(
            cls,
            (data, budget),
            scope_order=order,
            how_to_use_heading=how["heading"],
            how_to_use_models=frozenset(how["models"]),
            how_to_use=how["text"],
            bundled=tuple(Shipped(**item) for item in data["bundled"]),
        )


packaged_rules = rules_file(CodexRules.from_data, __package__, DATA_FILE)


# --- the public entry points ---------------------------------------------------------------


def render(
    skills: Sequence[ListedSkill],
    model: str | None,
    location: Location,
    *,
    codex_home: str | None = None,
    context_window: int | None = None,
    bundled: bool = True,
    rules: CodexRules | None = None,
) -> Listing:
    """The listing Codex would send `model` (None: the CLI's default) with these skills
    installed and, when `bundled`, its bundled skills under `<codex_home>/skills/.system`.

    `context_window` is config.toml's `model_context_window` (None: the catalog's window, or
    the fallback for a model the catalog lacks)."""
    rules = rules or packaged_rules()
    found = [item for skill in skills if (item := _listable(skill, location, rules)) is not None]
    if bundled:
        if codex_home is None:
            raise ValueError("the bundled skills need codex_home, the root they are listed from")
        found.extend(_bundled_items(codex_home, rules, {skill.id for skill in skills}))
    rank = {scope: index for index, scope in enumerate(rules.scope_order)}
    found.sort(key=lambda item: (rank[item.scope], item.name.encode(), item.file.encode()))
    roots = sorted({(item.scope, item.root) for item in found}, key=_root_key)
    alias = {root: f"r{index}" for index, (_, root) in enumerate(roots)}
    drafts = [
        _Draft(item, f"{alias[item.root]}/{item.relative}", _cut(item.description, rules))
        for item in found
    ]
    budget = budget_for(model, context_window, rules)
    shown = _fit(drafts, budget, rules)
    entries = tuple(
        Entry(
            id=draft.item.skill_id,
            line=draft.line(shown[index]),
            state=_state(draft, shown[index]),
            source=draft.item.source,
            full_line=draft.full_line,
            shown=draft.item.name,
        )
        for index, draft in enumerate(drafts)
        if shown[index] is not None
    )
    return Listing(
        heading=_heading([(alias[root], root) for _, root in roots], rules),
        entries=entries,
        budget=budget,
        width=sum(line_cost(entry.line, rules) for entry in entries),
        full_width=sum(line_cost(draft.full_line, rules) for draft in drafts),
        placement="system",
        separator="\n",
        closing=_closing(model, rules),
        unit="tokens",
    )


def budget_for(
    model: str | None, context_window: int | None = None, rules: CodexRules | None = None
) -> int:
    """The listing's token limit: 2 % of the context window (`model_context_window` when
    set, else the catalog's, else the fallback), at least 1."""
    rules = rules or packaged_rules()
    if context_window is None:
        asked = model or rules.default_model
        context_window = rules.context_windows.get(asked, rules.fallback_context_window)
    return max(1, context_window * rules.percent // 100)


def line_cost(line: str, rules: CodexRules | None = None) -> int:
    """Codex's token estimate of an entry line and its newline: ceil(UTF-8 bytes / 4)."""
    rules = rules or packaged_rules()
    return -(-(len(line.encode()) + 1) // rules.bytes_per_token)


def collapse_whitespace(text: str) -> str:
    """A description as Codex reads it: each whitespace run one space, the ends trimmed."""
    return _WHITESPACE.sub(" ", text).strip(" ")


# --- which skills, in which order ----------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    skill_id: str
    source: Source
    name: str
    description: str
    scope: Scope
    root: str
    relative: str

    @property
    def file(self) -> str:
        return f"{self.root.rstrip('/')}/{self.relative}"


def _listable(skill: ListedSkill, location: Location, rules: CodexRules) -> _Item | None:
    """The skill as Codex lists it, or None when Codex rejects it."""
    name = listed_name(skill)
    value = skill.description
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if skill.yaml_error or not isinstance(value, str) or len(name) > rules.name_limit:
        return None
    description = collapse_whitespace(value)
    if not description:
        return None
    scope, root, relative = location(skill)
    if scope not in SCOPES:
        raise ValueError(f"unknown Codex scope {scope!r} (one of {SCOPES})")
    return _Item(skill.id, skill.source, name, description, scope, root, relative)


def _bundled_items(codex_home: str, rules: CodexRules, taken: Collection[str]) -> list[_Item]:
    root = f"{codex_home.rstrip('/')}/skills/.system"
    return [
        _Item(
            bundled_id(item.name, taken),
            "builtin",
            item.name,
            item.description,
            "system",
            root,
            item.path,
        )
        for item in rules.bundled
    ]


def bundled_id(name: str, taken: Collection[str]) -> str:
    """The id of the bundled skill `name`: its name, or `.system/<name>` when a skill of the
    set has that id. Codex tells skills apart by their SKILL.md's path, never by name
    (`load_skills_from_roots` dedupes by path only), so it lists a user's `skill-creator`
    and its own side by side, and either can be read."""
    return f".system/{name}" if name in taken else name


def _root_key(scoped_root: tuple[Scope, str]) -> tuple[int, int, str]:
    """Codex's root order: project `.codex/skills`, `$CODEX_HOME/skills`,
    `$HOME/.agents/skills`, `.system`, admin, then the project `.agents/skills` roots, the
    git root's first (fewest path parts)."""
    scope, root = scoped_root
    parts = tuple(part for part in root.split("/") if part)
    agents = parts[-2:] == _AGENTS_SKILLS
    kind = {
        "repo": 5 if agents else 0,
        "user": 2 if agents else 1,
        "system": 3,
        "admin": 4,
    }[scope]
    return kind, len(parts), root


def _cut(description: str, rules: CodexRules) -> str:
    if len(description) <= rules.description_cut:
        return description
    return description[: rules.description_cut - len(rules.ellipsis)] + rules.ellipsis


# --- the text ------------------------------------------------------------------------------


def _heading(roots: Sequence[tuple[str, str]], rules: CodexRules) -> str:
    table = [rules.roots_heading, *(f"- `{alias}` = `{root}`" for alias, root in roots)]
    return "\n".join([rules.opening, *table, rules.entries_heading])


def _closing(model: str | None, rules: CodexRules) -> str:
    if (model or rules.default_model) in rules.how_to_use_models:
        return f"\n{rules.how_to_use_heading}\n{rules.how_to_use}\n{rules.closing}"
    return f"\n{rules.closing}"


@dataclass(frozen=True)
class _Draft:
    item: _Item
    path: str
    description: str  # after the 1,024 cut

    def line(self, description: str | None) -> str:
        if description:
            return f"- {self.item.name}: {description} (file: {self.path})"
        return f"- {self.item.name}: (file: {self.path})"

    @property
    def full_line(self) -> str:
        return self.line(self.description)

    @property
    def bare_line(self) -> str:
        return self.line("")


def _state(draft: _Draft, shown: str | None) -> EntryState:
    if not shown:
        return "collapsed"
    if shown == draft.item.description:
        return "full"
    return "cut"


# --- the budget ----------------------------------------------------------------------------


def _fit(drafts: Sequence[_Draft], budget: int, rules: CodexRules) -> list[str | None]:
    """Each entry's description as shown ("" bare, None left out of the listing)."""
    if sum(line_cost(d.full_line, rules) for d in drafts) <= budget:
        return [d.description for d in drafts]
    bare = [line_cost(d.bare_line, rules) for d in drafts]
    if sum(bare) <= budget:
        return _spread(drafts, budget - sum(bare), rules)
    shown: list[str | None] = []
    used = 0
    for cost in bare:
        if used + cost <= budget:
            used += cost
            shown.append("")
        else:
            shown.append(None)
    return shown


def _spread(drafts: Sequence[_Draft], spare: int, rules: CodexRules) -> list[str | None]:
    """Round-robin in listing order: each pass, each description takes its next character
    when the extra tokens that costs (the line's cost over its bare cost) fit in `spare`;
    passes repeat until none grows."""
    extras: list[list[int]] = []
    for draft in drafts:
        base = len(draft.bare_line.encode()) + 1  # the space before the text comes with it
        bare_cost = line_cost(draft.bare_line, rules)
        extra, size = [0], 0
        for char in draft.description:
            size += len(char.encode())
            extra.append(-(-(base + size + 1) // rules.bytes_per_token) - bare_cost)
        extras.append(extra)
    taken = [0] * len(drafts)
    grew = True
    while grew:
        grew = False
        for index, extra in enumerate(extras):
            if taken[index] + 1 >= len(extra):
                continue
            delta = extra[taken[index] + 1] - extra[taken[index]]
            if delta <= spare:
                taken[index] += 1
                spare -= delta
                grew = True
    return [draft.description[:count] for draft, count in zip(drafts, taken, strict=True)]


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The record's entry point: Codex has no plugins, so a user skill (`--user-skills`,
    `--catalog`) is one under `~/.agents/skills/<folder>/` and every other one a project
    skill under the repository's `.agents/skills/<folder>/` (a user's copy of a project
    skill is listed beside it: Codex tells them apart by path); it lists its bundled skills
    too, from `~/.codex/skills/.system`. `openai:<id>` is Codex's `<id>`."""
    root = inputs.target.repo / PROJECT_SKILLS
    user_root = Path.home() / PROJECT_SKILLS

    def location(skill: ListedSkill) -> tuple[Scope, str, str]:
        if skill.source == "user":
            return "user", str(user_root), f"{skill.folder}/SKILL.md"
        return "repo", str(root), f"{skill.folder}/SKILL.md"

    home = str(Path.home() / ".codex")
    asked = None if model is None else parse_model(model).id
    return render(allowed(skills), asked, location, codex_home=home)


POLICY_FILE = "agents/openai.yaml"
"""The skill folder's metadata file Codex reads (`SKILLS_METADATA_DIR`/`_FILENAME`)."""


def implicit_allowed(skill: ListedSkill) -> bool:
    """Whether Codex may list the skill: its `agents/openai.yaml` does not say
    `policy: {allow_implicit_invocation: false}`. A file that is not YAML, or whose fields
    have the wrong types, is ignored, as Codex fails open on it (serde rejects the whole
    file, then the defaults apply)."""
    import yaml

    from activation._yaml import load_yaml

    text = dict(skill.files).get(POLICY_FILE)
    if text is None:
        return True
    try:
        data = load_yaml(text)
    except yaml.YAMLError:
        return True
    policy = data.get("policy") if isinstance(data, dict) else None
    if not isinstance(policy, dict):
        return True
    value = policy.get("allow_implicit_invocation")
    return value is not False


def allowed(skills: Iterable[ListedSkill]) -> list[ListedSkill]:
    """The skills Codex's listing may show (`implicit_allowed`)."""
    return [skill for skill in skills if implicit_allowed(skill)]


def visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """How Codex shows each of `skills` in `listing` (rendered by `listing` from them):
    not listed when its `agents/openai.yaml` turns implicit invocation off, when it has no
    description (or a blank one), when its name is over 64 characters, or when the budget
    has no room even for its bare line; cut over 1,024 characters (1,021 and `...`), or
    by the budget (its spare tokens spread over the descriptions); reduced to its name and
    path by the budget. Codex loads a skill by reading its SKILL.md with a shell command,
    which the read-only sandbox of this tool's runs allows."""
    rules = packaged_rules()
    out = []
    for skill in skills:
        name = listed_name(skill)
        value = skill.description
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        text = collapse_whitespace(value) if isinstance(value, str) else ""
        entry = own_entry(listing, skill)
        if entry is None:
            reason = _hidden_rule(skill, name, value, text, rules)
            takers = budget_takers(listing) if reason.startswith("over") else ()
            out.append(hidden(skill.id, len(text), reason, takers))
            continue
        prefix = f"- {entry.name}: "
        shown = entry.line[len(prefix) : entry.line.rfind(" (file: ")]
        own_cut = len(text) > rules.description_cut
        kept = len(shown)
        if own_cut:
            kept = min(kept, rules.description_cut - len(rules.ellipsis))
        whole_cut = _cut(text, rules)
        by_budget = len(shown) < len(whole_cut)
        budget_rule = (
            f"over the listing budget ({listing.full_width:,} of {listing.budget:,} tokens, "
            f"{rules.percent} % of the context window)"
        )
        cut_rule = (
            f"{budget_rule}: its spare tokens spread over the descriptions"
            if by_budget
            else f"over {rules.description_cut:,} characters, Codex keeps "
            f"{rules.description_cut - len(rules.ellipsis):,} and {rules.ellipsis!r}"
        )
        out.append(from_entry(entry, len(text), kept, listing, cut_rule, budget_rule))
    return beside_builtins(out, skills, {item.name for item in rules.bundled}, listed_name,
                           BESIDE.format)  # fmt: skip


BESIDE = (
    "listed beside Codex's built-in {} of the same name (Codex keeps both and tells them "
    "apart by their file's path; a Stage A answer of that name counts for this skill)"
)


def listed_name(skill: ListedSkill) -> str:
    """The name Codex lists a skill by: its frontmatter `name`, else its folder's (the
    last part of a nested skill's `issuance/issuance-config`)."""
    return (
        skill.name
        if isinstance(skill.name, str) and skill.name
        else skill.folder.rsplit("/", 1)[-1]
    )


def _hidden_rule(skill: ListedSkill, name: str, value: object, text: str, rules: CodexRules) -> str:
    if not implicit_allowed(skill):
        return f"{POLICY_FILE} says policy.allow_implicit_invocation: false"
    if skill.yaml_error:
        return skips_unparsed(skill, "Codex")
    if value is not None and not isinstance(value, str):
        return "a description that is not text (Codex skips the file)"
    if not isinstance(value, str) or not text:
        return "no description (Codex rejects the skill)"
    if len(name) > rules.name_limit:
        return f"a name over {rules.name_limit} characters (Codex rejects the skill)"
    return "over the listing budget: not even its name fits (Codex leaves it out)"


_FILE = re.compile(r"\s*\(file: [^)]*\)$")


def read_back(text: str) -> Menu | None:
    """The `- <name>: <description> (file: ...)` lines after the entries' heading."""
    heading = f"{packaged_rules().entries_heading}\n"
    if heading not in text:
        return None
    listed = text.rpartition(heading)[2].partition("</skills_instructions>")[0]
    return [
        (name, _FILE.sub("", shown))
        for name, _colon, shown in (
            line[2:].partition(": ") for line in listed.split("\n") if line.startswith("- ")
        )
    ]


def description_limit(when_to_use: str | None) -> int:
    """Codex cuts a model-visible description (it lists no `when_to_use`)."""
    return packaged_rules().description_cut


UNLISTED = (
    "it skips a SKILL.md without a description or with a name over 64 characters, and "
    "leaves out what does not fit its listing's budget"
)
"""Why the agent would not list a skill, in words (an adapter's `check`)."""
