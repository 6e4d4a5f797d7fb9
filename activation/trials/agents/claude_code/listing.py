"""Claude Code's skill listing, byte for byte as CLI 2.1.332 sends it in its first request.

Stage A shows a model the listing the agent would show it, so this module renders exactly
what the real CLI renders (measured on the CLI itself; the facts and their sources are in
`claude-code-2.1.332.toml` beside this file and in research/claude-code-listing/NOTES.md):

- **Which skills**: a skill with `disable-model-invocation: true` is not listed. A user or
  project skill without a description is listed with a fallback: the first non-empty body
  line (heading marks stripped, over 100 UTF-16 units cut to 97 plus `...`), or `Skill`. A
  plugin skill without a description is listed only when it has a `when_to_use`, with the
  same fallback (or `Plugin skill`). A frontmatter that is not valid YAML even after the
  CLI's retry (`quoted_as_claude_code`) gives no fields: the skill is one without a
  description (measured: a project skill is listed by its first body line, a plugin's not).
- **Fields** of user, project and plugin skills: the description is made a string
  (`12345`, `true`) and trimmed (JavaScript's `trim`), `when_to_use` is made a string and
  not trimmed. Then in both every run of control, format, surrogate, private-use,
  unassigned, line/paragraph-separator and default-ignorable characters becomes one space
  (ANSI escape sequences are removed first; ZWJ, VS16 and tags inside an RGI emoji, and
  joiners inside Indic and Arabic words, are kept), and `<`/`>` become `&lt;`/`&gt;`.
  Built-in entries are sent as they are.
- **Entry**: `- <id>: <text>`, `<text>` being the description, plus ` - <when_to_use>`
  when that is non-empty; `<id> (<display>)` when the frontmatter `name` differs from the
  folder and names this skill alone. A text longer than 1536 UTF-16 code units keeps its
  first 1535 and gets `…` (a surrogate pair cut in half leaves U+FFFD on the wire).
- **Commands**: a command file (`commands/<name>.md` of a plugin, `.claude/commands/` of a
  project) is listed like a skill of its source: by its description, else (a project's)
  its body's first line or `Custom command`; a plugin's only with a description or a
  `when_to_use`.
- **Order**: user skills, project skills, user and project commands, each plugin's
  commands, each plugin's skills (plugins in `--plugin-dir` order), then the built-ins in
  their fixed order; within a block by `String.prototype.localeCompare` (ICU collation;
  a plugin's nested `commands/<dir>/<name>.md` are not: this module is not given them).
  The first of two entries with one id wins, so a user or project skill named like a
  built-in replaces it, a plugin's command a skill of its id.
- **Budget**: 1 % of the model's context window times 3 bytes per token (4 for the legacy
  ids), counted in display columns (a newline 0, CJK and emoji 2). Over it, entries
  collapse to `- <id>`, greedily in listing order (a fresh config has no usage to rank by)
  until the rest fits; the bundled built-ins never collapse, and nothing else is added.

Libraries, and how closely they match the CLI's JavaScript (each checked against Bun, the
CLI's runtime, over thousands of generated strings):
- PyICU (`pyicu-wheels`): collation (root/en-US, tertiary, normalization on; identical
  orders), the character classes and the RGI emoji set (Unicode 16, where the CLI has 17: a
  character first assigned in Unicode 17 is treated as unassigned here).
- wcwidth: display widths (`Bun.stringWidth` plus the CLI's own extra columns for Indic
  vowel signs). They agree on text, CJK, combining marks and fully qualified emoji; they
  differ on unqualified or minimally qualified emoji sequences, keycaps without VS16,
  emoji newer than Bun's tables, a lone regional indicator, and a few text-style emoji with
  a skin tone. Only an entry at the budget's edge can collapse differently.
- wcwidth's `strip_sequences` for `Bun.stripANSI`: the same on complete sequences (SGR,
  OSC 8 links, cursor and charset controls); it keeps a truncated sequence or a C1 CSI
  that Bun would drop.

Known limits (each measured or read in the binary, none seen in real skill sets):
- Ids that collate alike (two plugin folders that sanitise to one id, `a b` and `a.b`) keep
  the order they are given in; the CLI keeps its directory-read order, so which one it
  lists can differ.
- Field values must be what the CLI's YAML 1.2 parser reads: a YAML 1.1 parser (PyYAML)
  makes `yes`/`on` booleans where the CLI keeps the word, and a `|` block scalar keeps
  its final newline only when the frontmatter text handed to the parser ends with one.
- A display name is checked against the listed skills, the given skills and the CLI's
  command names (the data file); the CLI checks its whole command registry.

`render` is pure apart from reading the packaged data file once (`packaged_rules`). PyICU and
wcwidth are imported when first needed, so a command that lists nothing never loads them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from typing import Any

from activation._models import Inputs, skill_id
from activation.trials.listing.model import (
    Entry,
    FrontmatterValue,
    ListedSkill,
    Listing,
    Menu,
    Placement,
    builtin_skill,
    rules_file,
    rules_from,
)
from activation.trials.listing.visibility import (
    Visibility,
    beside_builtins,
    from_entry,
    hidden,
    replaced_by,
)

DATA_FILE = "claude-code-2.1.332.toml"


@dataclass(frozen=True)
class ListingRules:
    """The facts of one CLI version (the data file beside this module)."""

    version: str
    heading: str
    entry_cut: int
    ellipsis: str
    budget_fraction: float
    bytes_per_token: int
    legacy_bytes_per_token: int
    context_window: int
    legacy_context_window: int
    one_million_suffix: str
    default_model: str
    legacy_models: frozenset[str]
    sent_as: Mapping[str, str]
    command_names: frozenset[str]
    builtins: tuple[ListedSkill, ...]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ListingRules:
        budget = data["budget"]
        return rules_from(
            cls,
            (data, budget),
            budget_fraction=budget["fraction"],
            legacy_models=frozenset(budget["legacy_models"]),
            command_names=frozenset(data["command_names"]),
            builtins=tuple(
                builtin_skill(item["id"], item["text"], collapses=item["collapses"])
                for item in data["builtins"]
            ),
        )


packaged_rules = rules_file(ListingRules.from_data, __package__, DATA_FILE)


# --- the public entry points ---------------------------------------------------------------


def render(
    skills: Iterable[ListedSkill],
    model: str | None = None,
    plugin_order: Sequence[str] = (),
    *,
    builtins: Sequence[ListedSkill] | None = None,
    rules: ListingRules | None = None,
) -> Listing:
    """The listing Claude Code would send `model` (None: the CLI's default model) with
    these user, project and plugin skills installed, then its built-ins.

    `plugin_order` is the `--plugin-dir` order of the plugin names; plugins it leaves out
    follow in the order their skills first appear. `builtins` defaults to those of the
    rules' CLI version (`()` lists none); `builtin` entries among `skills` come first in
    the built-in block."""
    rules = rules or packaged_rules()
    given = list(skills)
    if builtins is None:
        builtins = rules.builtins
    everything = [*given, *builtins]
    listed = _dedupe(_in_listing_order(_listable(everything), plugin_order))
    taken = {skill.id for skill in everything} | rules.command_names
    displays = _displays(listed, taken)
    drafts = [_draft(skill, displays.get(skill.id), rules) for skill in listed]
    budget = budget_for(model, rules)
    kept = _fit(drafts, budget)
    shown = [
        draft.full if keep else draft.name_only for draft, keep in zip(drafts, kept, strict=True)
    ]
    entries = tuple(
        Entry(
            id=draft.skill.id,
            line=_wire(line),
            state=("cut" if draft.cut else "full") if keep else "collapsed",
            source=draft.skill.source,
            full_line=_wire(draft.full),
        )
        for draft, keep, line in zip(drafts, kept, shown, strict=True)
    )
    return Listing(
        heading=rules.heading,
        entries=entries,
        budget=budget,
        width=_listing_width(shown),
        full_width=_listing_width([draft.full for draft in drafts]),
        placement=placement(model, rules),
    )


def budget_for(model: str | None, rules: ListingRules | None = None) -> int:
    """The listing budget in display columns: 1 % of the context window (1M tokens, 200k
    for the legacy ids unless `[1m]` is asked for) times 3 bytes per token (4 for the
    legacy ids). None is the CLI's default model."""
    rules = rules or packaged_rules()
    asked = sent_model(model, rules)
    one_million = asked.endswith(rules.one_million_suffix)
    legacy = _is_legacy(asked, rules)
    window = rules.legacy_context_window if legacy and not one_million else rules.context_window
    per_token = rules.legacy_bytes_per_token if legacy else rules.bytes_per_token
    return max(1, math.floor(window * per_token * rules.budget_fraction))


def placement(model: str | None, rules: ListingRules | None = None) -> Placement:
    """Where the CLI puts the listing for `model`: in the user message for the legacy ids,
    in the system message for the others."""
    rules = rules or packaged_rules()
    return "user" if _is_legacy(sent_model(model, rules), rules) else "system"


def sent_model(model: str | None, rules: ListingRules | None = None) -> str:
    """The model the CLI really runs for `model` (lower case): its default for None, the
    replacement of a retired id (`claude-opus-4-1` runs as `claude-opus-5-5`)."""
    rules = rules or packaged_rules()
    asked = (model or rules.default_model).strip().lower()
    replacement = rules.sent_as.get(canonical_model(asked))
    if replacement is None:
        return asked
    return replacement + (rules.one_million_suffix if asked.endswith("[1m]") else "")


def _is_legacy(model: str, rules: ListingRules) -> bool:
    return canonical_model(model) in rules.legacy_models


def canonical_model(model: str) -> str:
    """A model id as the CLI compares it with its legacy list: lower case, without the
    `[1m]` suffix, a release date (`-20250929`, `@20250929`) or a Bedrock version suffix,
    and with dots and underscores made dashes."""
    model = model.strip().lower().removesuffix("[1m]")
    model = re.sub(r"-v\d+(:\d+)?$", "", model)
    model = re.sub(r"[-@]\d{8}$", "", model)
    return re.sub(r"[._]", "-", model)


def plugin_skill_id(plugin: str, folder: str) -> str:
    """A plugin skill's id, as the CLI names it (`_models.skill_id`)."""
    return skill_id(plugin, folder)


def display_width(text: str) -> int:
    """Display columns of `text` as the CLI's budget counts them (a newline 0, CJK and most
    emoji 2); a lone surrogate counts 0."""
    from wcwidth import width as _terminal_width

    return int(_terminal_width(_SURROGATE.sub("", text), control_codes="ignore"))


def cut_text(text: str, limit: int, ellipsis: str = "\u2026") -> str:
    """`text` held to `limit` UTF-16 units: whole when it fits, else its first `limit - 1`
    units and the ellipsis (so a surrogate pair can be cut in half, as in JavaScript)."""
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) // 2 <= limit:
        return text
    head = units[: 2 * (limit - 1)].decode("utf-16-le", "surrogatepass")
    return head + ellipsis


# --- which skills, in which order ----------------------------------------------------------


def _listable(skills: Iterable[ListedSkill]) -> list[ListedSkill]:
    """The skills the model is offered: not `disable-model-invocation`, and a plugin skill
    only with a description or a `when_to_use`."""
    out = []
    for skill in skills:
        if skill.disable_model_invocation:
            continue
        if (
            skill.source == "plugin"
            and _description_value(skill.description) is None
            and not _when_to_use_text(skill.when_to_use)
        ):
            continue
        out.append(skill)
    return out


def _in_listing_order(
    skills: Sequence[ListedSkill], plugin_order: Sequence[str]
) -> list[ListedSkill]:
    """User skills, project skills, user and project commands, every plugin's commands,
    every plugin's skills (plugins in `plugin_order`, then as first seen), built-ins;
    sorted by id within each block and plugin but the built-ins, which keep their order (a
    stable sort, so ids that collate alike keep theirs too)."""
    plugins = list(dict.fromkeys([*plugin_order, *(s.plugin for s in skills if s.plugin)]))
    plugin_rank = {plugin: rank for rank, plugin in enumerate(plugins)}
    collator = _collator()

    def key(skill: ListedSkill) -> tuple[int, int, bytes]:
        sort_key: bytes = b"" if skill.source == "builtin" else collator.getSortKey(skill.id)
        return _block(skill), plugin_rank.get(skill.plugin or "", 0), sort_key

    return sorted(skills, key=key)


def _block(skill: ListedSkill) -> int:
    """Its block of the listing: every plugin's commands come before every plugin's skills,
    the user's and the project's commands after their skills (so of a skill and a command
    of one id, the plugin's command is listed, and the project's skill)."""
    if skill.command:
        return _BLOCKS.index("plugin command" if skill.source == "plugin" else "command")
    return _BLOCKS.index(skill.source)


_BLOCKS = ("user", "project", "command", "plugin command", "plugin", "builtin")


def _dedupe(skills: Iterable[ListedSkill]) -> list[ListedSkill]:
    seen: set[str] = set()
    out = []
    for skill in skills:
        if skill.id not in seen:
            seen.add(skill.id)
            out.append(skill)
    return out


# --- one entry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Draft:
    skill: ListedSkill
    name_only: str
    full: str
    cut: bool


def _draft(skill: ListedSkill, display: str | None, rules: ListingRules) -> _Draft:
    text = _entry_text(skill)
    shown = cut_text(text, rules.entry_cut, rules.ellipsis)
    name_only = f"- {skill.id}" if display is None else f"- {skill.id} ({display})"
    return _Draft(skill, name_only, f"{name_only}: {shown}", shown != text)


def _entry_text(skill: ListedSkill) -> str:
    """`description`, or `description - when_to_use`, normalised unless a built-in's."""
    if skill.source == "builtin":
        description = _js_string(skill.description)
        when = _js_string(skill.when_to_use) if skill.when_to_use is not None else ""
    else:
        value = _description_value(skill.description)
        if value is None:
            label = "Custom command" if skill.command else _FALLBACK[skill.source]
            value = _first_line(skill.body, label)
        description = _normalise(value)
        when = _when_to_use_text(skill.when_to_use)
    return f"{description} - {when}" if when else description


_FALLBACK = {"plugin": "Plugin skill", "user": "Skill", "project": "Skill", "builtin": "Skill"}
"""The description of last resort of a skill with neither a description nor body text."""


def _description_value(value: FrontmatterValue) -> str | None:
    """The CLI's description: a string trimmed (blank is none), a number or a boolean made
    a string, anything else none (GIe)."""
    if isinstance(value, str):
        return _js_trim(value) or None
    if isinstance(value, int | float):
        return _js_string(value)
    return None


def _when_to_use_text(value: FrontmatterValue) -> str:
    """`when_to_use` made a string and normalised, not trimmed ("" when absent)."""
    return "" if value is None else _normalise(_js_string(value))


def _first_line(body: str, label: str) -> str:
    """The fallback description (Ize): the first non-blank body line, trimmed, without a
    leading `# ` heading mark, over 100 UTF-16 units cut to 97 and `...`; else `label`."""
    for line in body.split("\n"):
        text = _js_trim(line)
        if text:
            heading = _HEADING.match(text)
            text = heading.group(1) if heading else text
            if _utf16_len(text) > 100:
                text = _utf16_slice(text, 97) + "..."
            return text
    return label


def _displays(listed: Sequence[ListedSkill], taken: set[str] | frozenset[str]) -> dict[str, str]:
    """The `(display)` of the skills whose frontmatter name differs from their folder (rBn):
    shown when it is a plain name (letters, marks, digits, `_:.-`, up to 256 units), is not
    any command's id, and no earlier skill shows it."""
    out: dict[str, str] = {}
    claimed: set[str] = set()
    for skill in listed:
        if skill.source == "builtin":
            continue
        name = _name_value(skill.name)
        display = _escape(_collapse_runs(name if name is not None else skill.folder))
        if skill.plugin is not None:
            display = f"{skill.plugin}:{display}"
        if display in claimed:
            continue
        claimed.add(display)
        if (
            display != skill.id
            and not skill.id.endswith(f":{display}")
            and _utf16_len(display) <= _NAME_LIMIT
            and all(_sets().plain_name.contains(char) for char in display)
            and display not in taken
        ):
            out[skill.id] = display
    return out


def _name_value(value: FrontmatterValue) -> str | None:
    """The frontmatter name made a string; over 256 UTF-16 units it is ignored (Lyn)."""
    if value is None:
        return None
    name = _js_string(value)
    return name if _utf16_len(name) <= _NAME_LIMIT else None


# --- the budget ----------------------------------------------------------------------------


def _fit(drafts: Sequence[_Draft], budget: int) -> list[bool]:
    """Which entries keep their text (q3n): all when the whole listing fits; else the
    entries that never collapse, and then, greedily in listing order, each other entry whose
    text still fits in what is left (so a later, shorter one can fit after a longer one
    did not)."""
    if _listing_width([d.full for d in drafts]) <= budget:
        return [True] * len(drafts)
    fixed = [not d.skill.collapses for d in drafts]
    if all(fixed):
        return fixed
    base = sum(
        display_width(d.full if f else d.name_only) for d, f in zip(drafts, fixed, strict=True)
    )
    room = budget - (base + len(drafts) - 1)
    keep = list(fixed)
    for index, draft in enumerate(drafts):
        if fixed[index]:
            continue
        extra = display_width(draft.full) - display_width(draft.name_only)
        if extra <= room:
            keep[index] = True
            room -= extra
    return keep


def _listing_width(lines: Sequence[str]) -> int:
    return sum(display_width(line) for line in lines) + max(0, len(lines) - 1)


def _wire(line: str) -> str:
    """The line as it reaches the API: a lone surrogate (a pair cut in half) is U+FFFD."""
    return _SURROGATE.sub("\ufffd", line)


# --- text as the CLI's JavaScript handles it ---------------------------------------------

_NAME_LIMIT = 256
_EMOJI_SCAN_LIMIT = 4096
_SURROGATE = re.compile("[\ud800-\udfff]")
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""JavaScript's WhiteSpace and LineTerminator: what `trim` removes and `\\s` matches."""
_HEADING = re.compile(
    f"^#+[{re.escape(_JS_SPACE)}]+([^{re.escape(_JS_SPACE)}][^\n\r\u2028\u2029]*)$"
)
_JOINER_TRIGGERS = frozenset("\u200c\u200d\ufe0f\U000e007f")
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x1107F, 0x1107F),
    (0x13430, 0x1343F), (0x16FE4, 0x16FE4), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
"""The default-ignorable ranges the CLI spells out (M5s in the binary)."""
_INDIC_BLOCKS = (0x0900, 0x0980, 0x0A80, 0x0B00, 0x0C00, 0x0C80, 0x0D00)
"""Devanagari to Malayalam: a ZWJ or ZWNJ after consonant (+ nukta) + virama and before a
consonant spells a conjunct form and is kept."""
_ARABIC_BEFORE = (
    r"[\u0620\u0626\u0628\u062A-\u062E\u0633-\u063F\u0641-\u0647\u0649\u064A\u066E\u066F"
    r"\u0678-\u0687\u069A-\u06BF\u06C1\u06C2\u06CC\u06CE\u06D0\u06D1\u06FA-\u06FC\u06FF"
    r"\u0750-\u0758\u075C-\u076A\u076D-\u0770\u0772\u0775-\u0777\u077A-\u077F\u0886"
    r"\u0889-\u088D\u088F\u08A0-\u08A9\u08AF\u08B0\u08B3-\u08B8\u08BA-\u08C8]"
)
_ARABIC_AFTER = (
    r"[\u0620\u0622-\u063F\u0641-\u064A\u066E\u066F\u0671-\u0673\u0675-\u06D3\u06D5\u06EE"
    r"\u06EF\u06FA-\u06FC\u06FF\u0750-\u077F\u0870-\u0882\u0886\u0889-\u088F\u08A0-\u08AC"
    r"\u08AE-\u08C8]"
)


@dataclass(frozen=True)
class _CharSets:
    """ICU sets (`contains(char)`), built once."""

    collapsible: Any
    plain_name: Any
    arabic_before: Any
    arabic_after: Any
    arabic_mark: Any
    emoji: frozenset[str]
    longest_emoji: int


@cache
def _sets() -> _CharSets:
    import icu

    ranges = "".join(
        rf"\x{{{low:x}}}" if low == high else rf"\x{{{low:x}}}-\x{{{high:x}}}"
        for low, high in _IGNORABLE_RANGES
    )
    emoji = icu.UnicodeSet("[:RGI_Emoji:]")
    sequences = frozenset(str(sequence) for sequence in emoji.strings())
    return _CharSets(
        collapsible=_frozen(
            rf"[\p{{Cc}}\p{{Cf}}\p{{Cs}}\p{{Co}}\p{{Cn}}\u2028\u2029{ranges}\u2800]"
        ),
        plain_name=_frozen(r"[\p{L}\p{M}\p{N}_:.\-]"),
        arabic_before=_frozen(_ARABIC_BEFORE),
        arabic_after=_frozen(_ARABIC_AFTER),
        arabic_mark=_frozen(
            r"[[[\p{sc=Arabic}\p{sc=Inherited}]&\p{Mn}]-\p{Default_Ignorable_Code_Point}]"
        ),
        emoji=sequences,
        longest_emoji=max(len(sequence) for sequence in sequences),
    )


def _frozen(pattern: str) -> Any:
    import icu

    charset = icu.UnicodeSet(pattern)
    charset.freeze()
    return charset


@cache
def _collator() -> Any:
    """`localeCompare` in the CLI's runtime: ICU, locale en-US whatever the environment
    says, tertiary strength, canonically equivalent strings equal."""
    import icu

    collator = icu.Collator.createInstance(icu.Locale("en_US"))
    collator.setAttribute(icu.UCollAttribute.NORMALIZATION_MODE, icu.UCollAttributeValue.ON)
    return collator


def _normalise(text: str) -> str:
    """A skill field as the CLI cleans it (Yv with keepSpelledJoiners, then RW)."""
    return _escape(_collapse_runs(text, keep_joiners=True))


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _collapse_runs(text: str, *, keep_joiners: bool = False) -> str:
    """Each run of control, format, surrogate, private-use, unassigned, separator and
    default-ignorable characters becomes one space, after lone surrogates became ZWSP and
    ANSI sequences were removed. With `keep_joiners` the joiners an emoji or a word's
    spelling needs stay (only in texts up to 4096 UTF-16 units, as in the CLI)."""
    from wcwidth import strip_sequences

    text = strip_sequences(_SURROGATE.sub("\u200b", text))
    kept: set[int] = set()
    if (
        keep_joiners
        and _utf16_len(text) <= _EMOJI_SCAN_LIMIT
        and not _JOINER_TRIGGERS.isdisjoint(text)
    ):
        kept = _emoji_positions(text) | _spelling_joiners(text)
    collapsible = _sets().collapsible
    out: list[str] = []
    in_run = False
    for index, char in enumerate(text):
        if not collapsible.contains(char):
            out.append(char)
            in_run = False
        elif index in kept:
            out.append(char)
            in_run = True
        elif not (in_run and out[-1] == " "):
            out.append(" ")
            in_run = True
    return "".join(out)


def _emoji_positions(text: str) -> set[int]:
    """Indexes of the characters inside RGI emoji sequences, found left to right, longest
    first (`/\\p{RGI_Emoji}/gv`)."""
    sets = _sets()
    positions: set[int] = set()
    index = 0
    while index < len(text):
        for length in range(min(sets.longest_emoji, len(text) - index), 1, -1):
            if text[index : index + length] in sets.emoji:
                positions.update(range(index, index + length))
                index += length
                break
        else:
            index += 1
    return positions


def _spelling_joiners(text: str) -> set[int]:
    """Indexes of the ZWJ/ZWNJ that spell a conjunct: Indic (consonant, optional nukta,
    virama, joiner, consonant), Sinhala (consonant, al-lakuna, ZWJ, consonant), Arabic
    (joining letter, up to 8 marks, ZWNJ, letter)."""
    sets = _sets()
    points = [ord(char) for char in text]
    found: set[int] = set()
    for index, point in enumerate(points):
        if point not in (0x200C, 0x200D) or index + 1 >= len(points):
            continue
        after = points[index + 1]
        before = points[max(0, index - 3) : index][::-1]  # nearest first
        for block in _INDIC_BLOCKS:
            consonants = range(block + 0x15, block + 0x3A)
            if after not in consonants or not before or before[0] != block + 0x4D:
                continue
            nukta = block + 0x3C if block != 0x0D00 else None
            if (len(before) > 1 and before[1] in consonants) or (
                nukta is not None
                and len(before) > 2
                and before[1] == nukta
                and before[2] in consonants
            ):
                found.add(index)
        sinhala = range(0x0D9A, 0x0DC7)
        if (
            point == 0x200D
            and after in sinhala
            and len(before) > 1
            and before[0] == 0x0DCA
            and before[1] in sinhala
        ):
            found.add(index)
        if point == 0x200C and sets.arabic_after.contains(chr(after)):
            start = index - 1
            while start >= 0 and index - 1 - start < 8 and sets.arabic_mark.contains(text[start]):
                start -= 1
            if start >= 0 and sets.arabic_before.contains(text[start]):
                found.add(index)
    return found


def _js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf16_slice(text: str, units: int) -> str:
    """JavaScript's `text.substring(0, units)`: may end in half a surrogate pair."""
    return text.encode("utf-16-le", "surrogatepass")[: 2 * units].decode(
        "utf-16-le", "surrogatepass"
    )


def _js_string(value: FrontmatterValue) -> str:
    """JavaScript's `String(value)` of what YAML gave (None, as an array item, is "")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    if isinstance(value, int | float):
        return _js_number(float(value))
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ",".join(_js_string(item) for item in value)
    return "[object Object]"


def _js_number(number: float) -> str:
    """Number.prototype.toString: the shortest digits that round-trip, in fixed notation
    from 1e-7 up to 1e21 and in exponent notation outside."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + exponent  # the decimal point sits after this many digits
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if point > 0 else '-'}{abs(point - 1)}"


def listing(
    skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The record's entry point (trials/agents/record.py): plugins in `order`."""
    return render(skills, model, order)


def description_limit(when_to_use: str | None) -> int:
    """The per-entry cut, less the ` - <when_to_use>` the entry appends."""
    cut = packaged_rules().entry_cut
    return cut - len(" - ") - len(when_to_use) if when_to_use else cut


def read_back(text: str) -> Menu | None:
    """The entries after the listing's heading: `- <id>: <text>` lines (a display name in
    parentheses dropped, a collapsed one without text), a text running over several lines."""
    _head, found, listing = text.partition(packaged_rules().heading)
    if not found:
        return None
    entries: Menu = []
    for line in listing.strip("\n").split("\n"):
        if line.startswith("- "):
            head, _colon, shown = line[2:].partition(": ")
            entries.append((head.split(" (", 1)[0], shown))
        elif entries:
            skill, shown = entries[-1]
            entries[-1] = (skill, f"{shown}\n{line}")
    return entries


def visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """How Claude Code shows each of `skills` in `listing` (rendered from them), by its
    rules (the module docstring): not listed with `disable-model-invocation: true` (and
    then the Skill tool refuses the model too), nor as a plugin skill with neither a
    description nor a `when_to_use`, nor behind a first skill of the same id; cut over
    `entry_cut` UTF-16 units; reduced to `- <id>` by the budget. Whatever is listed a run
    of this tool can load: its runs allow the Skill tool (`--allowedTools ... Skill`)."""
    rules = packaged_rules()
    first: dict[str, ListedSkill] = {}
    for listable in _in_listing_order(_listable(skills), ()):
        first.setdefault(listable.id, listable)
    out = []
    for skill in skills:
        text = _entry_text(skill)
        entry = listing.entry(skill.id)
        if entry is None or first.get(skill.id) is not skill:
            out.append(hidden(skill.id, len(text), _hidden_rule(skill, entry)))
            continue
        shown = entry.line.partition(": ")[2]
        out.append(
            from_entry(
                entry,
                len(text),
                len(shown) - len(rules.ellipsis),
                listing,
                f"over {rules.entry_cut:,} UTF-16 units, the entry keeps its first "
                f"{rules.entry_cut - 1:,} and {rules.ellipsis!r}",
                f"over the listing budget ({listing.full_width:,} of {listing.budget:,} "
                "columns): entries collapse to their id in listing order until the rest fits",
            )
        )
    builtins = {skill.id for skill in rules.builtins}
    return beside_builtins(out, skills, builtins, lambda skill: skill.id, REPLACES.format)


REPLACES = "replaces Claude Code's built-in {} (the first skill of one id is listed and loaded)"


def _hidden_rule(skill: ListedSkill, entry: Entry | None) -> str:
    if skill.disable_model_invocation:
        return "disable-model-invocation: true (the Skill tool refuses the model too)"
    if entry is not None:
        return replaced_by(entry, skill, FIRST_WINS)
    if not skill.parsed:
        return (
            f"{skill.yaml_error}: Claude Code reads no field of it, and lists a plugin skill "
            "only with a description or a when_to_use"
        )
    return "a plugin skill with neither a description nor a when_to_use"


FIRST_WINS = (
    "Claude Code lists the user's skills, then the project's, then the plugins', and the "
    "first skill of one id is listed and loaded"
)
