"""OpenCode 1.18.33's skill listing, rule by rule, with the exact texts the CLI sends.

The files under `captures/opencode/` are listing sections cut from the system text of real
CLI requests (research/agents/captures/opencode/<case>/), with the inputs of those runs
rebuilt here; `tests/trials/agents/fidelity_cases.py` checks a whole listing against the
CLI itself.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from activation.trials.agents.opencode.listing import (
    OpenCodeRules,
    escape,
    packaged_rules,
    render,
)
from activation.trials.listing.model import UNBOUNDED, FrontmatterValue, ListedSkill, Listing

CAPTURES = Path(__file__).parent / "captures" / "opencode"
INTRO = (
    "Skills provide specialized instructions and workflows for specific tasks.\n"
    "Use the skill tool to load a skill when a task matches its description."
)
BUILTIN = (
    "  <skill>\n"
    "    <name>customize-opencode</name>\n"
    "    <description>Use ONLY when the user is editing or creating opencode's own "
    "configuration: opencode.json, opencode.jsonc, files under .opencode/, or files under "
    "~/.config/opencode/. Also use when creating or fixing opencode agents, subagents, skills, "
    "plugins, MCP servers, or permission rules. Do not use for the user's own application "
    "code, or for any project that is not configuring opencode itself.</description>\n"
    "    <location>&lt;built-in&gt;</location>\n"
    "  </skill>"
)
EMPTY = f"{INTRO}\nNo skills are currently available."


def captured(case: str) -> str:
    return (CAPTURES / f"{case}.txt").read_bytes().decode("utf-8")


@dataclass(frozen=True)
class Tree:
    """Skills of one project in discovery order, each with its SKILL.md's absolute path."""

    root: str
    paths: dict[ListedSkill, str] = field(default_factory=dict)

    def add(
        self,
        folder: str,
        name: FrontmatterValue,
        description: FrontmatterValue,
        when_to_use: FrontmatterValue = None,
    ) -> ListedSkill:
        leaf = folder.rsplit("/", 1)[-1]
        skill = ListedSkill(leaf, leaf, "project", description, when_to_use, name)
        self.paths[skill] = f"{self.root}/{folder}/SKILL.md"
        return skill

    def location(self, skill: ListedSkill) -> str:
        return self.paths[skill]

    @property
    def skills(self) -> list[ListedSkill]:
        return list(self.paths)


def basic(case: str) -> Tree:
    """The two skills most captures ran with."""
    tree = Tree(f"/tmp/agents-research/opencode-{case}/proj")
    target = "Use when the user asks for the target workflow."
    tree.add(".opencode/skills/target-skill", "target-skill", target)
    tree.add(".claude/skills/other-skill", "other-skill", "Use for other unrelated tasks.")
    return tree


def listing_tree() -> Tree:
    """The `listing` capture's project, as its files parse (bad YAML and a file without
    frontmatter give no skill; `skill.md` is not discovered)."""
    tree = Tree("/tmp/agents-research/opencode-listing/proj")
    tree.add(".claude/skills/Beta", "Beta", "Capital Beta from .claude.")
    tree.add(".claude/skills/deep/a/b", "claude-deep", ".claude nested a/b.")
    tree.add(".claude/skills/dup", "dup", "dup from .claude")
    tree.add(".agents/skills/agents-one", "agents-one", "From .agents/skills.")
    tree.add(".opencode/skill/singular", "singular", "In .opencode/skill (singular).")
    for name in ["Zeta", "alpha", "a-b", "a_b", "a10", "a2", "beta", "ALPHA2", "éclair",
                 "_under", "1num"]:  # fmt: skip
        tree.add(f".opencode/skills/{name}", name, f"Desc of {name}.")
    tree.add(".opencode/skills/no-desc", "no-desc", None)
    tree.add(".opencode/skills/empty-desc", "empty-desc", "")
    tree.add(".opencode/skills/special", "special", "Has <tag> & \"quotes\" & 'apos' > end")
    tree.add(".opencode/skills/long-desc", "long-desc", ("Long description word " * 250).strip())
    tree.add(".opencode/skills/when", "when", "Desc of when.", "WHEN_TO_USE_MARKER use it when X")
    tree.add(".opencode/skills/dup", "dup", "dup from .opencode")
    tree.add(".opencode/skills/multiline", "multiline", "Line one of desc.\nLine two <b>.\n")
    tree.add(".opencode/skills/folded", "folded", "Folded line one folded line two.\n")
    tree.add(".opencode/skills/num-desc", "num-desc", 42)
    tree.add(".opencode/skills/no-name", None, "Has no name field.")
    tree.add(".opencode/skills/group/nested", "nested", "Nested two levels.")
    tree.add(".opencode/skills/dir-x", "fm-name", "Dir dir-x, name fm-name.")
    tree.add(".opencode/skills/crlf", "crlf", "CRLF file.")
    return tree


def listing_of(tree: Tree, *, builtin: bool = True) -> Listing:
    return render(tree.skills, tree.location, builtin=builtin)


# --- whole captured listings -------------------------------------------------------------


def test_the_smoke_capture() -> None:
    tree = Tree("/tmp/agents-research/opencode-smoke/proj")
    tree.add(".opencode/skills/alpha-skill", "alpha-skill", "Use when working with alpha things.")
    tree.add(".claude/skills/beta-skill", "beta-skill", "Use for beta tasks.")
    assert listing_of(tree).text == captured("smoke")


def test_a_denied_builtin_is_not_listed() -> None:
    assert listing_of(basic("hide_builtin"), builtin=False).text == captured("hide_builtin")


def test_the_listing_capture_every_rule_at_once() -> None:
    assert listing_of(listing_tree()).text == captured("listing")


# --- one rule each -----------------------------------------------------------------------


def test_order_is_icu_collation_not_byte_order() -> None:
    tree = Tree("/tmp/agents-research/opencode-locale_sv/proj")
    for name in ["zed", "äpple", "apple", "Zulu", "ångström"]:
        tree.add(f".opencode/skills/{name}", name, f"Desc {name}.")
    shown = listing_of(tree)
    assert shown.text == captured("locale_sv")  # run with LANG=sv_SE.UTF-8: still root order
    assert shown.ids == ("ångström", "apple", "äpple", "customize-opencode", "zed", "Zulu")
    listed = listing_of(listing_tree()).ids
    assert listed == (
        "_under", "1num", "a_b", "a-b", "a10", "a2", "agents-one", "alpha", "ALPHA2", "beta",
        "Beta", "b", "crlf", "customize-opencode", "dup", "éclair", "empty-desc", "dir-x",
        "folded", "long-desc", "multiline", "nested", "singular", "special", "when", "Zeta",
    )  # fmt: skip
    assert sorted(listed) != list(listed)


def test_name_and_description_raw_location_escaped() -> None:
    tree = Tree("/p")
    tree.add("a&b/<x>/\"q\"/'s'/special", "<n> & 'm'", 'Has <tag> & "quotes" > end')
    (entry,) = render(tree.skills, tree.location, builtin=False).entries
    assert entry.line == (
        "  <skill>\n"
        "    <name><n> & 'm'</name>\n"
        '    <description>Has <tag> & "quotes" > end</description>\n'
        "    <location>/p/a&amp;b/&lt;x&gt;/&quot;q&quot;/&#39;s&#39;/special/SKILL.md</location>\n"
        "  </skill>"
    )
    assert escape("&lt;") == "&amp;lt;"  # `&` first, so an entity is escaped again


def test_a_multi_line_description_is_kept_verbatim() -> None:
    entry = listing_of(listing_tree()).entry("multiline")
    assert entry is not None
    assert entry.line == (
        "  <skill>\n"
        "    <name>multiline</name>\n"
        "    <description>Line one of desc.\nLine two <b>.\n</description>\n"
        "    <location>/tmp/agents-research/opencode-listing/proj/.opencode/skills/multiline/"
        "SKILL.md</location>\n"
        "  </skill>"
    )


def test_an_empty_description_is_listed_a_missing_one_is_not() -> None:
    shown = listing_of(listing_tree())
    entry = shown.entry("empty-desc")
    assert entry is not None
    assert "\n    <description></description>\n" in entry.line
    assert shown.entry("no-desc") is None


def test_a_file_the_cli_skips_replaces_nothing() -> None:
    """A non-string name or description makes the CLI skip the file (Skill's `mA` check);
    a description-less file still replaces an earlier one of its name, then is not listed."""
    tree = Tree("/p")
    tree.add("first/kept", "kept", "Kept.")
    tree.add("second/kept", "kept", 42)
    tree.add("third/kept", 7, "Numeric name.")
    tree.add("first/hidden", "hidden", "Replaced.")
    tree.add("second/hidden", "hidden", None)
    shown = render(tree.skills, tree.location, builtin=False)
    assert shown.text == (
        f"{INTRO}\n<available_skills>\n  <skill>\n    <name>kept</name>\n"
        "    <description>Kept.</description>\n    <location>/p/first/kept/SKILL.md</location>\n"
        "  </skill>\n</available_skills>"
    )


def test_when_to_use_is_not_listed() -> None:
    entry = listing_of(listing_tree()).entry("when")
    assert entry is not None
    assert "WHEN_TO_USE_MARKER" not in entry.line


def test_the_builtin_entry() -> None:
    shown = render([], lambda skill: "", builtin=True)
    assert shown.text == f"{INTRO}\n<available_skills>\n{BUILTIN}\n</available_skills>"
    (entry,) = shown.entries
    assert (entry.id, entry.source, entry.state) == ("customize-opencode", "builtin", "full")
    rules = packaged_rules()
    assert (rules.version, rules.builtin_location) == ("1.18.33", "<built-in>")


def test_a_project_skill_replaces_the_builtin_of_its_name() -> None:
    tree = Tree("/p")
    tree.add("mine", "customize-opencode", "Mine.")
    (entry,) = render(tree.skills, tree.location).entries
    assert (entry.id, entry.source) == ("mine", "project")
    assert "<location>/p/mine/SKILL.md</location>" in entry.line


def test_no_entries() -> None:
    assert render([], lambda skill: "", builtin=False).text == EMPTY
    tree = Tree("/p")
    tree.add("quiet", "quiet", None)
    shown = render(tree.skills, tree.location, builtin=False)
    assert (shown.text, shown.entries, shown.width) == (EMPTY, (), len(EMPTY))


def test_nothing_is_cut_and_there_is_no_budget() -> None:
    shown = listing_of(listing_tree())
    text = captured("listing")
    assert {entry.state for entry in shown.entries} == {"full"}
    assert all(entry.line == entry.full_line for entry in shown.entries)
    assert (shown.budget, shown.width, shown.full_width) == (UNBOUNDED, len(text), len(text))
    assert (shown.placement, shown.separator, shown.closing) == (
        "system",
        "\n",
        "\n</available_skills>",
    )


def test_text_in_order_moves_whole_entries() -> None:
    shown = listing_of(basic("hide_builtin"))
    target, other = (shown.entry(name) for name in ("target-skill", "other-skill"))
    assert target is not None and other is not None
    assert shown.ids == ("customize-opencode", "other-skill", "target-skill")
    order = ["target-skill", "customize-opencode", "other-skill"]
    assert shown.text_in_order(order) == (
        f"{INTRO}\n<available_skills>\n{target.line}\n{BUILTIN}\n{other.line}\n</available_skills>"
    )
    with pytest.raises(ValueError, match="every listed skill"):
        shown.text_in_order(order[:2])


def test_rules_come_from_the_data_file() -> None:
    rules = OpenCodeRules.from_data(
        tomllib.loads(
            'version = "9"\nintro = ["One.", "Two."]\nempty = "None."\n'
            '[builtin]\nname = "own"\ndescription = "Own."\nlocation = "<in>"\n'
        )
    )
    assert render([], lambda skill: "", builtin=False, rules=rules).text == "One.\nTwo.\nNone."
    assert render([], lambda skill: "", rules=rules).text == (
        "One.\nTwo.\n<available_skills>\n  <skill>\n    <name>own</name>\n"
        "    <description>Own.</description>\n    <location>&lt;in&gt;</location>\n"
        "  </skill>\n</available_skills>"
    )
