"""Codex CLI 0.171.0's skill listing, rule by rule, with the exact strings the CLI sends.

The `captures/codex/<case>.txt` files are listings the real CLI sent (research captures of
2026-12-01, `research/agents/captures/codex/<case>/requests.jsonl`); the skills given here
are those the capture's run installed, and the roots the absolute paths it ran under.
`tests/trials/agents/fidelity_cases.py` checks a whole listing against the CLI itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.trials.agents.codex.listing import (
    Location,
    Scope,
    budget_for,
    collapse_whitespace,
    line_cost,
    packaged_rules,
    render,
)
from activation.trials.listing.model import ListedSkill, Listing

CAPTURES = Path(__file__).parent / "captures" / "codex"
SCRATCH = "/work/research/agents/scratch"
OPENING = (
    "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is"
    " stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry"
    " includes a name, description, and a short path that can be expanded into an absolute"
    " path using the skill roots table."
)
BUNDLED = ("imagegen", "openai-docs", "skill-creator", "skill-installer")
TARGET = "Use when the user asks for the target workflow."


def captured(case: str) -> str:
    return (CAPTURES / f"{case}.txt").read_text(encoding="utf-8")


def skill(folder: str, description: object, name: object = None) -> ListedSkill:
    """A project skill whose id is its folder (the pipeline's id for a project skill)."""
    return ListedSkill(
        id=folder, folder=folder, source="project", description=description, name=name
    )


def under(scope: Scope, root: str) -> Location:
    """Every skill under `root`, in its own folder."""
    return lambda listed: (scope, root, f"{listed.folder}/SKILL.md")


def placed(table: dict[str, tuple[Scope, str, str]]) -> Location:
    """Each skill where `table` (keyed by id) puts it."""
    return lambda listed: table[listed.id]


def basic(other: str = "Use for other unrelated tasks.") -> list[ListedSkill]:
    """The two skills most captures installed."""
    return [skill("target-skill", TARGET), skill("other-skill", other)]


def many(count: int, length: int) -> list[ListedSkill]:
    """The budget captures' skills: `skill-NNN` with a `length`-character description."""
    return [
        skill(
            f"skill-{i:03d}",
            (f"Skill {i:03d} description " + "lorem ipsum dolor sit amet " * 200)[:length],
        )
        for i in range(count)
    ]


def descriptions(listing: Listing) -> list[str]:
    """Each entry's description as shown ("" when removed)."""
    out = []
    for entry in listing.entries:
        rest = entry.line.partition(": ")[2]
        out.append(rest.rpartition(" (file: ")[0] if not rest.startswith("(file: ") else "")
    return out


# --- whole listings the CLI sent -------------------------------------------------------------


def test_two_project_skills_without_bundled_skills_match_the_capture() -> None:
    root = f"{SCRATCH}/codex-nobundled/proj/.agents/skills"
    listing = render(basic(), None, under("repo", root), bundled=False)
    assert listing.text == captured("nobundled")
    assert listing.text == (
        f"{OPENING}\n### Skill roots\n- `r0` = `{root}`\n### Available skills\n"
        "- other-skill: Use for other unrelated tasks. (file: r0/other-skill/SKILL.md)\n"
        f"- target-skill: {TARGET} (file: r0/target-skill/SKILL.md)\n"
        "</skills_instructions>"
    )
    assert listing.ids == ("other-skill", "target-skill")
    assert [entry.state for entry in listing.entries] == ["full", "full"]
    assert listing.separator == "\n"
    assert listing.placement == "system"


def test_every_root_kind_and_the_order_by_scope_then_bytes_match_the_capture() -> None:
    """`listing`: all five root kinds, names that sort differently by bytes than by locale
    (`1num, Beta2, UPPER, Zeta, _under, a-b, a10, a2, a_b`, `éclair` last), the repo's two
    roots interleaved by name, two `dup` skills both listed, and the skills Codex rejects."""
    base = f"{SCRATCH}/codex-listing"
    codex_home = f"{base}/home/.codex"
    agents, dot_codex = f"{base}/proj/.agents/skills", f"{base}/proj/.codex/skills"
    table: dict[str, tuple[Scope, str, str]] = {}

    def at(scope: Scope, root: str, key: str, listed: ListedSkill, rel: str = "") -> ListedSkill:
        table[key] = (scope, root, rel or f"{listed.folder}/SKILL.md")
        return ListedSkill(
            id=key,
            folder=listed.folder,
            source=listed.source,
            description=listed.description,
            name=listed.name,
        )

    names = ["Zeta", "alpha", "a-b", "a_b", "a10", "a2", "beta", "Beta2", "éclair", "_under"]
    skills = [at("repo", agents, nm, skill(nm, f"Desc of {nm}.", nm)) for nm in [*names, "1num"]]
    skills += [
        at("repo", agents, "no-desc", skill("no-desc", None, "no-desc")),
        at("repo", agents, "empty-desc", skill("empty-desc", "", "empty-desc")),
        at("repo", agents, "no-name", skill("no-name", "Has no name field.")),
        at("repo", agents, "dir-x", skill("dir-x", "Dir dir-x, name fm-name.", "fm-name")),
        at(
            "repo",
            agents,
            "special",
            skill("special", "Has <tag> & \"quotes\" & 'apos' > end", "special"),
        ),
        at("repo", agents, "multiline", skill("multiline", "Line one of desc.\nLine two.\n")),
        at("repo", agents, "folded", skill("folded", "Folded one folded two.\n")),
        at("repo", agents, "when", skill("when", "Desc of when.")),
        at("repo", agents, "short", skill("short", "Long form description of short.")),
        at(
            "repo",
            agents,
            "nested",
            skill("nested", "Nested group/nested."),
            "group/nested/SKILL.md",
        ),
        at("repo", agents, "deep5", skill("deep5", "Five levels deep."), "a/b/c/d/deep5/SKILL.md"),
        at("repo", agents, "deep6", skill("deep6", "Six levels deep."), "a/b/c/d/e/deep6/SKILL.md"),
        at("repo", agents, "dup", skill("dup", "dup from repo .agents")),
        at("repo", agents, "crlf", skill("crlf", "CRLF file.")),
        at("repo", agents, "bad name", skill("bad name", "Name with a space.")),
        at("repo", agents, "UPPER", skill("UPPER", "Upper-case name.")),
        at("repo", agents, "colon", skill("colon", "Name with a colon.", "ns:colon")),
        at("repo", agents, "longname", skill("longname", "Name of 70 chars.", "n" * 70)),
        at("repo", agents, "numdesc", skill("numdesc", 42)),
        at("repo", agents, "linked", skill("linked", "Symlinked skill dir.")),
        at("repo", dot_codex, "codex-dir", skill("codex-dir", "From project .codex/skills.")),
        at(
            "user",
            f"{base}/home/.agents/skills",
            "home-dup",
            skill("dup", "dup from $HOME/.agents"),
        ),
        at(
            "user",
            f"{base}/home/.agents/skills",
            "home-agents",
            skill("home-agents", "From $HOME/.agents/skills."),
        ),
        at(
            "user",
            f"{codex_home}/skills",
            "codex-home",
            skill("codex-home", "From $CODEX_HOME/skills."),
        ),
    ]
    listing = render(skills, None, placed(table), codex_home=codex_home)
    assert listing.text == captured("listing")
    assert listing.ids[:4] == BUNDLED
    assert listing.ids[-3:] == ("codex-home", "home-dup", "home-agents")
    assert {"no-desc", "empty-desc", "longname"}.isdisjoint(listing.ids)
    assert [entry.source for entry in listing.entries[:5]] == [*["builtin"] * 4, "project"]


def test_the_project_roots_are_numbered_from_the_git_root_down_to_the_cwd() -> None:
    proj = f"{SCRATCH}/codex-subdirs/proj"
    roots = {
        "at-cwd": f"{proj}/sub/dir/.agents/skills",
        "at-root": f"{proj}/.agents/skills",
        "at-sub": f"{proj}/sub/.agents/skills",
    }
    table: dict[str, tuple[Scope, str, str]] = {
        key: ("repo", root, f"{key}/SKILL.md") for key, root in roots.items()
    }
    skills = [
        skill("at-cwd", "In cwd/.agents/skills."),
        skill("at-sub", "In <git root>/sub/.agents/skills."),
        skill("at-root", "In <git root>/.agents/skills."),
    ]
    listing = render(skills, None, placed(table), bundled=False)
    assert listing.text == captured("subdirs")


def test_a_model_with_usage_instructions_gets_the_how_to_use_block() -> None:
    codex_home = f"{SCRATCH}/codex-listing_gpt55/home/.codex"
    root = f"{SCRATCH}/codex-listing_gpt55/proj/.agents/skills"
    listing = render(basic(), "gpt-5.5", under("repo", root), codex_home=codex_home)
    assert listing.text == captured("listing_gpt55")
    assert listing.closing.startswith("\n### How to use skills\n- Discovery: The list above")
    assert listing.closing.endswith(
        "pick the next-best approach, and continue.\n</skills_instructions>"
    )
    assert len(packaged_rules().how_to_use.encode()) == 2531
    assert listing.budget == 5440


def test_an_unknown_model_gets_the_bundled_skills_no_block_and_the_fallback_window() -> None:
    codex_home = f"{SCRATCH}/codex-listing_unknown_model/home/.codex"
    root = f"{SCRATCH}/codex-listing_unknown_model/proj/.agents/skills"
    listing = render(basic(), "my-local-model", under("repo", root), codex_home=codex_home)
    assert listing.text == captured("listing_unknown_model")
    assert listing.closing == "\n</skills_instructions>"
    assert listing.budget == 272000 * 2 // 100


def test_the_default_model_lists_the_four_bundled_skills_from_the_system_root() -> None:
    listing = render([], None, under("repo", "/p/.agents/skills"), codex_home="/h/.codex/")
    assert listing.ids == BUNDLED
    assert listing.heading.endswith(
        "### Skill roots\n- `r0` = `/h/.codex/skills/.system`\n### Available skills"
    )
    assert listing.entries[2].line == (
        "- skill-creator: Create or update a Codex skill with appropriately scoped instructions"
        " and any needed supporting resources. (file: r0/skill-creator/SKILL.md)"
    )
    with pytest.raises(ValueError, match="codex_home"):
        render([], None, under("repo", "/p/.agents/skills"))


# --- descriptions ---------------------------------------------------------------------------


def test_descriptions_over_1024_characters_are_cut_to_1021_and_three_dots() -> None:
    root = f"{SCRATCH}/codex-desc_cut/proj/.agents/skills"
    skills = [
        skill(f"d{n}", ("abcdefghij" * 300)[: n - 4] + "WXYZ", f"d{n}")
        for n in (1023, 1024, 1025, 2000)
    ]
    skills += [skill("d1025e", "é" * 1025), skill("sd2000", "plain")]
    listing = render(skills, None, under("repo", root), bundled=False)
    assert listing.text == captured("desc_cut")
    shown = dict(zip(listing.ids, descriptions(listing), strict=True))
    assert len(shown["d1023"]) == 1023 and shown["d1023"].endswith("WXYZ")
    assert len(shown["d1024"]) == 1024 and shown["d1024"].endswith("WXYZ")
    assert shown["d1025"] == ("abcdefghij" * 103)[:1021] + "..."
    assert shown["d1025e"] == "é" * 1021 + "..."
    states = {entry.id: entry.state for entry in listing.entries}
    assert states == {
        "d1023": "full",
        "d1024": "full",
        "d1025": "cut",
        "d1025e": "cut",
        "d2000": "cut",
        "sd2000": "full",
    }
    entry = listing.entry("d2000")
    assert entry is not None and entry.full_line == entry.line


def test_whitespace_runs_become_one_space_and_the_ends_are_trimmed() -> None:
    """`desc_ws`: `"  a  b\\tc\\n\\nd  "` was sent as `a b c d`, a `|` block as one line."""
    assert collapse_whitespace("  a  b\tc\n\nd  ") == "a b c d"
    assert collapse_whitespace("para one\n\npara two\n   indented\n") == (
        "para one para two indented"
    )
    # Rust's White_Space set, not Python's (which splits on U+001C too): inferred, not captured
    assert collapse_whitespace("a\u3000\u00a0b\x1cc") == "a b\x1cc"
    listing = render(
        [skill("ws", "  a  b\tc\n\nd  "), skill("blank", " \n\t ")],
        None,
        under("repo", "/p/.agents/skills"),
        bundled=False,
    )
    assert listing.entries[0].line == "- ws: a b c d (file: r0/ws/SKILL.md)"
    assert listing.ids == ("ws",)  # a blank description is missing, so not listed


def test_the_name_is_the_frontmatter_name_else_the_folder_and_at_most_64() -> None:
    listing = render(
        [
            skill("dir-x", "X.", "fm-name"),
            skill("plain", "P."),
            skill("long", "L.", "n" * 65),
            skill("edge", "E.", "m" * 64),
        ],
        None,
        under("repo", "/p/.agents/skills"),
        bundled=False,
    )
    assert [entry.line for entry in listing.entries] == [
        "- fm-name: X. (file: r0/dir-x/SKILL.md)",
        f"- {'m' * 64}: E. (file: r0/edge/SKILL.md)",
        "- plain: P. (file: r0/plain/SKILL.md)",
    ]
    assert listing.ids == ("dir-x", "edge", "plain")


# --- the budget -----------------------------------------------------------------------------


def test_the_budget_is_two_percent_of_the_context_window() -> None:
    assert budget_for(None) == 10000  # gpt-6.2-sol, 500,000
    assert budget_for("gpt-5.5") == 5440
    assert budget_for("gpt-daybreak-red-latest") == 7440
    assert budget_for("my-local-model") == 5440  # the 272,000 fallback
    assert budget_for(None, context_window=20000) == 400
    assert budget_for(None, context_window=49) == 1
    assert line_cost("abc") == 1  # 3 bytes and the newline
    assert line_cost("abcd") == 2
    assert line_cost("é" * 3) == 2  # 6 bytes + 1


def test_when_the_bare_lines_fit_the_spare_tokens_are_spread_round_robin() -> None:
    """`budget_default`: 300 descriptions of 1,000 characters at 10,000 tokens became 100 of
    92 characters and 200 of 88, exactly 10,000 tokens, cut mid-word with no ellipsis."""
    listing = render(many(300, 1000), None, under("repo", "/r/.agents/skills"), bundled=False)
    lengths = [len(text) for text in descriptions(listing)]
    assert lengths == [92] * 100 + [88] * 200
    assert listing.width == listing.budget == 10000
    assert listing.full_width == 78300
    lorem = "description lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum"
    assert listing.entries[0].line == (
        f"- skill-000: Skill 000 {lorem} dolo (file: r0/skill-000/SKILL.md)"
    )
    assert listing.entries[299].line == (
        f"- skill-299: Skill 299 {lorem}  (file: r0/skill-299/SKILL.md)"  # its space kept
    )
    assert {entry.state for entry in listing.entries} == {"cut"}


def test_round_robin_gives_each_description_one_character_a_pass() -> None:
    """Two bare lines of 28 bytes: 8 tokens each with the newline (32 bytes, so a text and
    its space take 3 bytes for free), and 19 - 16 = 3 spare tokens. One character a pass:
    a1 b1 a2 b2 are free, a3 b3 cost one each, a4..a6 b4..b6 are free, a7 takes the last
    token, a8..a10 fill it, and b7 finds nothing left."""
    skills = [skill("aa", "a" * 40), skill("bb", "b" * 40)]
    bare = "- aa: (file: r0/aa/SKILL.md)"
    assert len(bare) == 28 and line_cost(bare) == 8
    listing = render(
        skills, None, under("repo", "/r/.agents/skills"), context_window=950, bundled=False
    )
    assert listing.budget == 19
    assert [entry.line for entry in listing.entries] == [
        f"- aa: {'a' * 10} (file: r0/aa/SKILL.md)",
        f"- bb: {'b' * 6} (file: r0/bb/SKILL.md)",
    ]
    assert listing.width == 10 + 9 == listing.budget
    assert [entry.state for entry in listing.entries] == ["cut", "cut"]


def test_a_description_can_get_nothing_and_show_the_bare_line() -> None:
    """Bare lines of 30 bytes leave one free byte, too few for a character and its space."""
    listing = render(
        [skill("abc", "a" * 40), skill("xyz", "b" * 40)],
        None,
        under("repo", "/r/.agents/skills"),
        context_window=800,  # 16 tokens: the two bare lines, nothing to spare
        bundled=False,
    )
    assert [entry.line for entry in listing.entries] == [
        "- abc: (file: r0/abc/SKILL.md)",
        "- xyz: (file: r0/xyz/SKILL.md)",
    ]
    assert [entry.state for entry in listing.entries] == ["collapsed", "collapsed"]
    assert listing.entries[0].full_line == f"- abc: {'a' * 40} (file: r0/abc/SKILL.md)"
    assert listing.width == 16


@pytest.mark.parametrize(
    ("case", "window", "kept"), [("budget_ctx20k", 20000, 36), ("budget_ctx5k", 5000, 9)]
)
def test_when_even_bare_lines_do_not_fit_they_are_kept_greedily(
    case: str, window: int, kept: int
) -> None:
    root = f"{SCRATCH}/codex-{case}/proj/.agents/skills"
    listing = render(many(40, 300), None, under("repo", root), context_window=window, bundled=False)
    assert listing.text == captured(case)
    assert len(listing.entries) == kept
    assert listing.ids == tuple(f"skill-{i:03d}" for i in range(kept))
    assert {entry.state for entry in listing.entries} == {"collapsed"}
    assert listing.full_width == 3440


def test_a_line_that_does_not_fit_is_skipped_and_the_scan_goes_on() -> None:
    skills = [skill("a", "x"), skill("long-name-here", "y"), skill("b", "z")]
    # bare lines cost 7, 14 and 7 tokens (28 in all); a limit of 20 keeps a and b
    listing = render(
        skills, None, under("repo", "/r/.agents/skills"), context_window=1000, bundled=False
    )
    assert listing.budget == 20
    assert listing.ids == ("a", "b")
    assert listing.width == 14
    assert listing.full_width == 8 + 14 + 8


# --- text_in_order --------------------------------------------------------------------------


def test_text_in_order_reorders_only_the_entry_lines() -> None:
    root = f"{SCRATCH}/codex-nobundled/proj/.agents/skills"
    listing = render(basic(), None, under("repo", root), bundled=False)
    other, target = (entry.line for entry in listing.entries)
    reordered = listing.text_in_order(["target-skill", "other-skill"])
    assert reordered == captured("nobundled").replace(f"{other}\n{target}", f"{target}\n{other}")
    assert reordered != listing.text
    with pytest.raises(ValueError):
        listing.text_in_order(["target-skill"])
    empty = render([], None, under("repo", root), bundled=False)
    assert empty.text == ""
