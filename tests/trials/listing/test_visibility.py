"""Visibility verdicts, rule by rule for each agent, on listings the real CLIs sent.

Where a capture exists (captures/<agent>/*.txt, the listings the pinned CLIs sent), the test
first checks that the listing the verdict is read from is byte for byte the captured one, so
each verdict says what the real CLI showed its model.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation.trials.agents.claude_code import listing as claude
from activation.trials.agents.codex import listing as codex
from activation.trials.agents.opencode import listing as opencode
from activation.trials.listing.model import ListedSkill
from activation.trials.listing.visibility import Visibility, entry_visibility, less_visible
from tests.trials.listing import test_codex as codex_captures
from tests.trials.listing import test_opencode as opencode_captures

POLICY_OFF = "policy:\n  allow_implicit_invocation: false\n"


def by_id(seen: tuple[Visibility, ...]) -> dict[str, Visibility]:
    return {item.id: item for item in seen}


# --- Claude Code ----------------------------------------------------------------------------


def project(folder: str, description: object, **more: object) -> ListedSkill:
    return ListedSkill(folder, folder, "project", description, **more)  # type: ignore[arg-type]


def test_claude_code_cuts_an_entry_over_1536_utf16_units_to_1535() -> None:
    skills = [project("long", "x" * 2000), project("short", "y" * 1536)]
    listing = claude.render(skills, None, builtins=())
    seen = by_id(claude.visibility(skills, listing))
    assert seen["long"] == Visibility(
        "long", "cut", 2000, 1535, "over 1,536 UTF-16 units, the entry keeps its first 1,535 "
        "and '…'",
    )  # fmt: skip
    assert seen["short"] == Visibility("short", "full", 1536, 1536)


def test_claude_code_names_the_skills_that_took_the_budget() -> None:
    skills = [project("a", "x" * 2000), project("b", "y" * 2000), project("c", "z" * 10)]
    listing = claude.render(skills, "claude-sonnet-4-5")  # the capture-backed greedy case
    seen = by_id(claude.visibility(skills, listing))
    assert (seen["a"].state, seen["b"].state, seen["c"].state) == ("cut", "collapsed", "full")
    assert seen["b"].kept == 0 and seen["b"].chars == 2000
    assert seen["b"].rule == (
        f"over the listing budget ({listing.full_width:,} of 8,000 columns): entries "
        "collapse to their id in listing order until the rest fits"
    )
    assert seen["b"].budget_by[0] == "a"  # the widest entry that kept its text
    assert "b" not in seen["b"].budget_by and "c" in seen["b"].budget_by


def test_claude_code_hides_disable_model_invocation_and_a_bare_plugin_skill() -> None:
    skills = [
        project("quiet", "Some text.", disable_model_invocation=True),
        ListedSkill("p:bare", "bare", "plugin", body="# Heading\n"),
        ListedSkill("p:when", "when", "plugin", when_to_use="when asked"),
    ]
    seen = by_id(claude.visibility(skills, claude.render(skills, None, builtins=())))
    assert seen["quiet"].state == "hidden"
    assert seen["quiet"].rule == (
        "disable-model-invocation: true (the Skill tool refuses the model too)"
    )
    assert not seen["quiet"].loadable
    assert seen["p:bare"].rule == "a plugin skill with neither a description nor a when_to_use"
    assert seen["p:when"].state == "full"  # listed with the fallback text and its when_to_use


def test_claude_code_lists_the_users_copy_of_a_project_skill() -> None:
    """The pinned CLI lists `- tdd: USER copy of tdd.` for a user and a project skill `tdd`
    (QA3 E29, measured at a local stand-in): user skills come first, the first of one id
    wins; a user's copy the model may not invoke leaves the project's listed."""
    mine = ListedSkill("tdd", "tdd", "user", "USER copy of tdd.")
    ours = project("tdd", "PROJECT copy of tdd.")
    listing = claude.render([ours, mine], None, builtins=())
    assert listing.text.endswith("\n- tdd: USER copy of tdd.")
    assert claude.visibility([ours, mine], listing) == (
        Visibility("tdd", "hidden", 20, 0, "a user skill of the same name ('tdd') replaces it: "
                   "Claude Code lists the user's skills, then the project's, then the "
                   "plugins', and the first skill of one id is listed and loaded",
                   loadable=False, load_rule="not listed, so the model is never told of it"),
        Visibility("tdd", "full", 17, 17),
    )  # fmt: skip
    quiet = ListedSkill("tdd", "tdd", "user", "Mine.", disable_model_invocation=True)
    listing = claude.render([ours, quiet], None, builtins=())
    assert [seen.state for seen in claude.visibility([ours, quiet], listing)] == [
        "full",
        "hidden",
    ]


# --- OpenCode -------------------------------------------------------------------------------


def test_opencode_lists_whole_or_not_at_all_on_its_captured_listing() -> None:
    tree = opencode_captures.listing_tree()
    listing = opencode_captures.listing_of(tree)
    assert listing.text == opencode_captures.captured("listing")
    seen = tree.skills
    verdicts = {
        tree.location(skill).split("/proj/", 1)[1]: item
        for skill, item in zip(seen, opencode.visibility(seen, listing), strict=True)
    }
    rules = {path: item.rule for path, item in verdicts.items() if item.state != "full"}
    assert rules == {
        ".claude/skills/dup/SKILL.md": (
            "a skill of the same name ('dup') replaces it: OpenCode lists one skill per name, "
            "the one it reads last: it reads its skill folders concurrently, so which copy "
            "that is (the project's or the user's, or of two in one project) can differ "
            "between runs; this tool shows the project's"
        ),
        ".opencode/skills/no-desc/SKILL.md": "no description (OpenCode lists only skills with one)",
        ".opencode/skills/num-desc/SKILL.md": (
            "a description that is not text (OpenCode skips the file)"
        ),
        ".opencode/skills/no-name/SKILL.md": (
            "no `name` in the frontmatter (OpenCode skips the file)"
        ),
    }
    assert {item.state for item in verdicts.values()} == {"full", "hidden"}
    long = verdicts[".opencode/skills/long-desc/SKILL.md"]
    assert long.state == "full" and long.kept == long.chars == 5499  # no cut, no budget
    assert verdicts[".opencode/skills/empty-desc/SKILL.md"].state == "full"


# --- Codex ----------------------------------------------------------------------------------


def test_codex_cuts_a_description_over_1024_to_1021_on_its_captured_listing() -> None:
    root = f"{codex_captures.SCRATCH}/codex-desc_cut/proj/.agents/skills"
    skills = [
        codex_captures.skill(f"d{n}", ("abcdefghij" * 300)[: n - 4] + "WXYZ", f"d{n}")
        for n in (1023, 1024, 1025, 2000)
    ]
    skills += [codex_captures.skill("d1025e", "é" * 1025), codex_captures.skill("sd2000", "plain")]
    listing = codex.render(skills, None, codex_captures.under("repo", root), bundled=False)
    assert listing.text == codex_captures.captured("desc_cut")
    seen = by_id(codex.visibility(skills, listing))
    assert seen["d1024"] == Visibility("d1024", "full", 1024, 1024)
    assert seen["d1025"] == Visibility(
        "d1025", "cut", 1025, 1021, "over 1,024 characters, Codex keeps 1,021 and '...'"
    )
    assert seen["d2000"].kept == 1021 and seen["d2000"].chars == 2000


def test_codex_leaves_out_what_its_budget_has_no_room_for_on_its_captured_listing() -> None:
    root = f"{codex_captures.SCRATCH}/codex-budget_ctx5k/proj/.agents/skills"
    skills = codex_captures.many(40, 300)
    listing = codex.render(
        skills, None, codex_captures.under("repo", root), context_window=5000, bundled=False
    )
    assert listing.text == codex_captures.captured("budget_ctx5k")
    seen = codex.visibility(skills, listing)
    assert [item.state for item in seen] == ["collapsed"] * 9 + ["hidden"] * 31
    assert (
        seen[0].rule == "over the listing budget (3,440 of 100 tokens, 2 % of the context window)"
    )
    assert seen[9].rule == "over the listing budget: not even its name fits (Codex leaves it out)"
    assert seen[9].budget_by == ()  # every kept line is bare: nobody kept a description
    assert not seen[9].loadable


def test_codex_spreads_the_spare_budget_and_says_the_budget_cut_it() -> None:
    skills = [codex_captures.skill("abc", "a" * 400), codex_captures.skill("xyz", "b" * 40)]
    location = codex_captures.under("repo", "/r/.agents/skills")
    listing = codex.render(skills, None, location, context_window=2000, bundled=False)
    seen = by_id(codex.visibility(skills, listing))
    assert seen["abc"].state == "cut"
    assert seen["abc"].rule.startswith("over the listing budget (")
    assert seen["abc"].rule.endswith("its spare tokens spread over the descriptions")
    assert 0 < seen["abc"].kept < 400
    shown = listing.entry("abc")
    assert (
        shown is not None
        and shown.line == f"- abc: {'a' * seen['abc'].kept} (file: r0/abc/SKILL.md)"
    )


@pytest.mark.parametrize(
    ("policy", "listed"),
    [
        (POLICY_OFF, False),
        ("policy:\n  allow_implicit_invocation: true\n", True),
        ("interface:\n  display_name: X\n", True),
        (
            "policy:\n  allow_implicit_invocation: 'no'\n",
            True,
        ),  # a wrong type: Codex ignores the file
        ("policy: [unclosed\n", True),  # not YAML: ignored
    ],
)
def test_codex_hides_a_skill_its_agents_openai_yaml_keeps_from_implicit_use(
    policy: str, listed: bool
) -> None:
    quiet = ListedSkill(
        "quiet", "quiet", "project", "Quiet.", files=(("agents/openai.yaml", policy),)
    )
    skills = [quiet, codex_captures.skill("loud", "Loud.")]
    location = codex_captures.under("repo", "/r/.agents/skills")
    listing = codex.render(codex.allowed(skills), None, location, bundled=False)
    assert ("quiet" in listing.ids) is listed
    seen = by_id(codex.visibility(skills, listing))
    if listed:
        assert seen["quiet"].state == "full"
    else:
        assert seen["quiet"] == Visibility(
            "quiet", "hidden", 6, 0,
            "agents/openai.yaml says policy.allow_implicit_invocation: false",
            loadable=False, load_rule="not listed, so the model is never told of it",
        )  # fmt: skip


def test_codex_hides_a_skill_without_description_or_with_a_long_name() -> None:
    skills = [codex_captures.skill("none", None), codex_captures.skill("x", "Fine.", "n" * 65)]
    location = codex_captures.under("repo", "/r/.agents/skills")
    seen = codex.visibility(skills, codex.render(skills, None, location, bundled=False))
    assert [item.rule for item in seen] == [
        "no description (Codex rejects the skill)",
        "a name over 64 characters (Codex rejects the skill)",
    ]


# --- the comparison -------------------------------------------------------------------------


FULL = Visibility("s", "full", 100, 100)


@pytest.mark.parametrize(
    ("candidate", "less"),
    [
        (FULL, False),
        (Visibility("s", "full", 300, 300), False),
        (Visibility("s", "cut", 2000, 1535, "cut rule"), True),
        (Visibility("s", "collapsed", 100, 0, "budget"), True),
        (Visibility("s", "hidden", 100, 0, "hidden", loadable=False), True),
        (Visibility("s", "full", 100, 100, loadable=False, load_rule="consent"), True),
    ],
)
def test_less_visible_is_a_worse_state_or_a_refused_load(candidate: Visibility, less: bool) -> None:
    assert candidate.less_visible_than(FULL) is less
    assert FULL.less_visible_than(candidate) is False


def test_a_cut_entry_that_keeps_fewer_characters_is_less_visible() -> None:
    before = Visibility("s", "cut", 3000, 1021, "r")
    assert Visibility("s", "cut", 3000, 600, "r").less_visible_than(before)
    assert not Visibility("s", "cut", 3000, 1021, "r").less_visible_than(before)


def test_findings_name_the_agent_the_skill_and_the_rule() -> None:
    baseline = (FULL, Visibility("t", "full", 10, 10), Visibility("gone", "full", 5, 5))
    candidate = (
        Visibility("s", "collapsed", 100, 0, "over the listing budget", ("big",)),
        Visibility("t", "full", 12, 12),
        Visibility("new", "hidden", 5, 0, "x", loadable=False),
    )
    found = less_visible("A/codex/mock", "Codex 0.171.0", baseline, candidate)
    assert [finding.line for finding in found] == [
        "Codex 0.171.0: s is less visible in the candidate: listed whole -> name only: "
        "over the listing budget"
    ]
    assert found[0].cell == "A/codex/mock"


def test_two_copies_of_one_id_are_each_compared_with_itself() -> None:
    """A project's copy not listed beside the user's listed one, on both sides: no finding;
    the user's copy hidden in the candidate: one, about that copy."""
    ours = Visibility("tdd", "hidden", 5, 0, "a user skill replaces it", loadable=False)
    mine = Visibility("tdd", "full", 5, 5)
    assert less_visible("c", "Claude Code", (ours, mine), (ours, mine)) == ()
    (found,) = less_visible("c", "Claude Code", (ours, mine), (ours, replace(mine, state="cut")))
    assert (found.baseline, found.candidate.state) == (mine, "cut")


def test_an_agent_without_rules_of_its_own_gets_verdicts_read_from_its_entries() -> None:
    """A newly registered agent's package may add `visibility` later: until then the
    verdicts come from its listing's entries (here Claude Code's, read without its rules)."""
    skills = [
        project("long", "x" * 2000),
        project("quiet", "Q.", disable_model_invocation=True),
        project("short", "S."),
    ]
    listing = claude.render(skills, None, builtins=())
    seen = by_id(entry_visibility(skills, listing))
    assert (seen["long"].state, seen["long"].rule) == ("cut", "cut by the agent")
    # its lengths are the lines' (Claude Code's whole line is already cut): only the
    # agent's own rules know the text's length before the cut
    assert seen["long"].kept == seen["long"].chars == len("- long: ") + 1535 + 1
    assert seen["quiet"] == Visibility(
        "quiet", "hidden", 0, 0, "not listed by the agent", loadable=False,
        load_rule="not listed, so the model is never told of it",
    )  # fmt: skip
    assert seen["short"] == Visibility("short", "full", len("- short: S."), len("- short: S."))
