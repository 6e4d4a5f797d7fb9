"""Claude Code 2.1.332's skill listing, rule by rule, with the exact strings the CLI sends.

Every expected string here was seen in a request of the real CLI (research captures and the
fidelity test's runs); `test_fidelity.py` checks whole listings against the CLI itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from activation.trials.agents.claude_code.listing import (
    budget_for,
    canonical_model,
    cut_text,
    display_width,
    packaged_rules,
    placement,
    plugin_skill_id,
    render,
    sent_model,
)
from activation.trials.listing.model import ListedSkill, Listing, Source

HEADING = "The following skills are available for use with the Skill tool:"
BUNDLED = (
    "dataviz",
    "update-config",
    "keybindings-help",
    "code-review",
    "simplify",
    "fewer-permission-prompts",
    "loop",
    "claude-api",
    "workflow-authoring",
    "run",
    "plugin-authoring",
)
BUILTINS = (*BUNDLED, "init", "security-review")
BUILTINS_WIDTH = 6208
"""The built-in block's width with its 12 newlines, as the CLI's budget counts it."""
INIT = "- init: Initialize a new CLAUDE.md file with codebase documentation"
SECURITY = (
    "- security-review: Complete a security review of the pending changes on the current branch"
)


def skill(
    skill_id: str,
    description: object = None,
    source: Source = "user",
    **fields: Any,
) -> ListedSkill:
    folder = skill_id.partition(":")[2] if source == "plugin" else skill_id
    return ListedSkill(
        id=skill_id,
        folder=str(fields.pop("folder", folder)),
        source=source,
        description=description,
        **fields,
    )


def lines(skills: list[ListedSkill], model: str | None = None, **options: Any) -> list[str]:
    """The entries of a listing without the built-ins."""
    listing = render(skills, model, builtins=(), **options)
    return [entry.line for entry in listing.entries]


def one(description: object = None, **fields: Any) -> str:
    (line,) = lines([skill("s", description, **fields)])
    return line


# --- field normalisation and escaping ----------------------------------------------------


@pytest.mark.parametrize(
    ("description", "shown"),
    [
        ("x\n\n\n\ny", "x y"),
        ("x \n  y", "x    y"),  # the spaces around the newline stay
        ("a\t\tb", "a b"),
        ("tab\there   many    spaces\r\nCRLF line", "tab here   many    spaces CRLF line"),
        ("x\u200dy", "x y"),  # ZWJ outside an emoji
        ("x\u200b\u2028\u2029\x0b\x0cy", "x y"),
        ("nbsp\u00a0and\u3000ideographic", "nbsp\u00a0and\u3000ideographic"),
        ("e\u0301 stays decomposed", "e\u0301 stays decomposed"),
        ("red \x1b[31mRED\x1b[0m done", "red RED done"),
        ("link \x1b]8;;http://x\x07L\x1b]8;;\x07 done", "link L done"),
    ],
)
def test_runs_of_controls_and_invisibles_become_one_space(description: str, shown: str) -> None:
    assert one(description) == f"- s: {shown}"


def test_emoji_and_spelling_keep_their_joiners() -> None:
    text = (
        "warn \u26a0\ufe0f fam \U0001f468\u200d\U0001f469\u200d\U0001f467 heart \u2764\ufe0f "
        "keycap #\ufe0f\u20e3 tag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063"
        "\U000e0074\U000e007f hi \u0915\u094d\u200d\u0937 and \u0915\u094d\u200c\u0937 "
        "si \u0d9a\u0dca\u200d\u0dba ar \u0628\u200c\u0627"
    )
    assert one(text) == f"- s: {text}"
    assert one("text a\ufe0fb and \u26a0\u200d") == "- s: text a b and \u26a0 "


def test_angle_brackets_are_escaped_and_nothing_else() -> None:
    assert one('Use <b>bold</b> & "quotes"') == '- s: Use &lt;b&gt;bold&lt;/b&gt; & "quotes"'


def test_description_is_trimmed_and_when_to_use_is_not() -> None:
    assert one("  padded  ", when_to_use="  padded when  ") == "- s: padded -   padded when  "
    assert one("d", when_to_use="when line1\nwhen line2\n") == "- s: d - when line1 when line2 "
    assert one("  \u200b  x\u200b ") == "- s:    x "  # trimmed first, then normalised


def test_when_to_use_joins_with_a_spaced_hyphen_unless_empty() -> None:
    assert one("desc", when_to_use="when") == "- s: desc - when"
    assert one("desc", when_to_use="") == "- s: desc"
    assert one("desc", when_to_use="<now>") == "- s: desc - &lt;now&gt;"


@pytest.mark.parametrize(
    ("description", "when", "shown"),
    [
        (12345, 42, "12345 - 42"),
        (True, False, "true - false"),
        (1.5, 1.5e-7, "1.5 - 1.5e-7"),
        (1e21, 0.000001, "1e+21 - 0.000001"),
        (100.0, -2.5e-10, "100 - -2.5e-10"),
    ],
)
def test_numbers_and_booleans_are_strings_as_javascript_writes_them(
    description: object, when: object, shown: str
) -> None:
    assert one(description, when_to_use=when) == f"- s: {shown}"


# --- the per-entry cut ---------------------------------------------------------------------


@pytest.mark.parametrize("size", [1535, 1536])
def test_an_entry_text_up_to_1536_units_is_whole(size: int) -> None:
    (entry,) = render([skill("s", "d" * size)], builtins=()).entries
    assert entry.line == "- s: " + "d" * size
    assert entry.state == "full"


@pytest.mark.parametrize("size", [1537, 2000])
def test_a_longer_text_keeps_1535_units_and_an_ellipsis(size: int) -> None:
    (entry,) = render([skill("s", "d" * size)], builtins=()).entries
    assert entry.line == "- s: " + "d" * 1535 + "\u2026"
    assert entry.state == "cut"
    assert entry.full_line == entry.line


def test_the_cut_counts_the_joined_text() -> None:
    assert one("x" * 1000, when_to_use="W" * 533) == "- s: " + "x" * 1000 + " - " + "W" * 533
    assert one("x" * 1000, when_to_use="W" * 534) == (
        "- s: " + "x" * 1000 + " - " + "W" * 532 + "\u2026"
    )
    assert one("x" * 1600, when_to_use="lost") == "- s: " + "x" * 1535 + "\u2026"
    assert one("x" * 1534 + " yz") == "- s: " + "x" * 1534 + " \u2026"  # no trim before it


def test_the_cut_counts_utf16_units_not_bytes_or_characters() -> None:
    assert one("\u4e00" * 1536) == "- s: " + "\u4e00" * 1536
    assert one("\u4e00" * 1537) == "- s: " + "\u4e00" * 1535 + "\u2026"
    assert one("x" * 1534 + "\U0001f600") == "- s: " + "x" * 1534 + "\U0001f600"
    assert one("x" * 1535 + "\U0001f600") == "- s: " + "x" * 1535 + "\u2026"


def test_a_surrogate_pair_cut_in_half_is_sent_as_a_replacement_character() -> None:
    assert one("x" * 1534 + "\U0001f600z") == "- s: " + "x" * 1534 + "\ufffd\u2026"
    assert cut_text("a\U0001f600b", 3, "~") == "a\ud83d~"
    assert cut_text("abc", 3) == "abc"


# --- which skills are listed, and their fallbacks --------------------------------------------


def test_disable_model_invocation_hides_a_skill_of_every_source() -> None:
    hidden = [
        skill("u", "user", disable_model_invocation=True),
        skill("p", "project", "project", disable_model_invocation=True),
        skill("plug:x", "plugin", "plugin", disable_model_invocation=True),
        skill("kept", "kept"),
    ]
    assert lines(hidden) == ["- kept: kept"]


@pytest.mark.parametrize("source", ["user", "project"])
def test_a_user_or_project_skill_without_a_description_shows_its_first_body_line(
    source: Source,
) -> None:
    def shown(body: str, description: object = None) -> str:
        (line,) = lines([skill("q", description, source, body=body)])
        return line

    assert shown("\n\n# Heading of q\n\nFirst paragraph.\n") == "- q: Heading of q"
    assert shown("  Plain first line.  \nmore\n") == "- q: Plain first line."
    assert shown("#NoSpaceHeading\n") == "- q: #NoSpaceHeading"
    assert shown("## " + "L" * 150 + "\nsecond\n") == "- q: " + "L" * 97 + "..."
    assert shown("x" * 96 + "\U0001f600yyyy\n") == "- q: " + "x" * 96 + " ..."  # half a pair
    assert shown("# Use <this> \t tool & more\n") == "- q: Use &lt;this&gt;   tool & more"
    assert shown("") == "- q: Skill"
    assert shown("body line", description="   ") == "- q: body line"  # blank is missing


def test_a_plugin_skill_without_a_description_needs_a_when_to_use() -> None:
    listed = lines(
        [
            skill("plug:e", None, "plugin", body="# Heading of e\n"),
            skill("plug:f", "   ", "plugin", body="text"),
            skill("plug:g", None, "plugin", when_to_use="wg", body="# Heading g\n"),
            skill("plug:h", None, "plugin", when_to_use="wh"),
            skill("plug:i", None, "plugin", when_to_use=""),
        ]
    )
    assert listed == ["- plug:g: Heading g - wg", "- plug:h: Plugin skill - wh"]


# --- ids and display names -------------------------------------------------------------------


def test_plugin_skill_ids_sanitise_the_folder_name() -> None:
    assert plugin_skill_id("zplug", "\u00e9clair") == "zplug:-clair"
    assert plugin_skill_id("p", "x\U0001f600") == "p:x--"
    assert plugin_skill_id("p", "a b") == plugin_skill_id("p", "a.b") == "p:a-b"
    assert plugin_skill_id("p", "Ab_c-d09") == "p:Ab_c-d09"


def test_a_frontmatter_name_unlike_the_folder_shows_in_brackets() -> None:
    listed = lines(
        [
            skill("plug:i-dirname", "d", "plugin", name="other-name"),
            skill("plug:-clair", "d", "plugin", name="\u00e9clair", folder="\u00e9clair"),
            skill("plug:-x", "d", "plugin", folder="\u00e9x"),  # no name: the folder's
            skill("plug:num", "d", "plugin", name=123),
            skill("plug:same", "d", "plugin", name="same"),
            skill("q-name", "d", "project", name="other-q"),
            skill("caps", "d", "project"),
            skill("pd", "d", "project", name="Caps"),
        ]
    )
    assert listed == [
        "- caps: d",
        "- pd (Caps): d",
        "- q-name (other-q): d",
        "- plug:-clair (plug:\u00e9clair): d",
        "- plug:-x (plug:\u00e9x): d",
        "- plug:i-dirname (plug:other-name): d",
        "- plug:num (plug:123): d",
        "- plug:same: d",
    ]


def test_a_display_name_that_is_not_this_skills_alone_is_not_shown() -> None:
    listed = lines(
        [
            skill("pa", "first", "project", name="zz-disp"),
            skill("pb", "second", "project", name="zz-disp"),  # taken by pa
            skill("pc", "command", "project", name="compact"),  # a slash command's name
            skill("pe", "skill id", "project", name="gone"),  # the id of another skill
            skill("gone", "hidden", "project", disable_model_invocation=True),
            skill("pf", "spaces", "project", name="My Skill"),  # not a plain name
            skill("pg", "long", "project", name="n" * 257),  # over 256 units: ignored
            skill("pi", "init", "project", name="init"),  # a built-in's id
        ]
    )
    assert listed == [
        "- pa (zz-disp): first",
        "- pb: second",
        "- pc: command",
        "- pe: skill id",
        "- pf: spaces",
        "- pg: long",
        "- pi: init",
    ]


# --- order and de-duplication --------------------------------------------------------------

NAMES = ["zeta", "Alpha", "mid-1", "mid-10", "mid-2", "beta_x", "beta-x", "0num", "\u00e9clair"]
SORTED = ["0num", "Alpha", "beta_x", "beta-x", "\u00e9clair", "mid-1", "mid-10", "mid-2", "zeta"]
"""localeCompare: case-insensitive, `_` before `-`, accents with their letter, not numeric."""


def test_sources_come_in_order_and_each_is_sorted_by_locale_compare() -> None:
    skills = [
        *(skill(f"aplug:{n}", "a", "plugin") for n in NAMES),
        *(skill(f"zplug:{n}", "z", "plugin") for n in NAMES),
        *(skill(n, "proj", "project") for n in NAMES),
        *(skill(n, "user") for n in ["b-user", "D-user", "a-user"]),
    ]
    ids = list(render(skills, plugin_order=["zplug", "aplug"]).ids)
    assert ids == [
        "a-user",
        "b-user",
        "D-user",
        *SORTED,
        *(f"zplug:{n}" for n in SORTED),
        *(f"aplug:{n}" for n in SORTED),
        *BUILTINS,
    ]


def test_plugins_missing_from_the_plugin_order_follow_as_first_seen() -> None:
    skills = [skill("b:x", "d", "plugin"), skill("c:x", "d", "plugin"), skill("a:x", "d", "plugin")]
    assert lines(skills, plugin_order=["c"]) == ["- c:x: d", "- b:x: d", "- a:x: d"]


def test_the_first_skill_of_a_name_wins_and_can_replace_a_built_in() -> None:
    skills = [
        skill("shared", "user shared"),
        skill("shared", "proj shared", "project"),
        skill("loop", "user loop"),
        skill("init", "project init", "project"),
        skill("zz", "dmi named like a built-in", "project", disable_model_invocation=True),
    ]
    listing = render(skills)
    assert [entry.line for entry in listing.entries[:4]] == [
        "- loop: user loop",
        "- shared: user shared",
        "- init: project init",
        "- dataviz: " + packaged_texts()["dataviz"],
    ]
    assert [e.id for e in listing.entries if e.source == "builtin"] == [
        *(name for name in BUNDLED if name != "loop"),
        "security-review",
    ]


def test_a_hidden_skill_does_not_replace_a_built_in() -> None:
    listing = render([skill("loop", "hidden loop", "project", disable_model_invocation=True)])
    assert listing.ids == BUILTINS


# --- the built-ins -------------------------------------------------------------------------


def packaged_texts() -> dict[str, str]:
    return {str(b.id): str(b.description) for b in packaged_rules().builtins}


def test_the_built_ins_follow_every_other_skill_exactly_as_captured() -> None:
    listing = render([skill("mine", "my skill")])
    assert listing.ids == ("mine", *BUILTINS)
    assert listing.entries[-2].line == INIT
    assert listing.entries[-1].line == SECURITY
    claude_api = listing.entry("claude-api")
    assert claude_api is not None
    assert claude_api.line.startswith("- claude-api: Reference for the Claude API")
    assert claude_api.line.count("\n") == 2  # bundled texts are sent as they are
    assert render([]).width == BUILTINS_WIDTH


def test_the_listing_text_is_the_heading_a_blank_line_and_the_entries() -> None:
    listing = render([skill("a", "first"), skill("b", "second")], builtins=())
    assert listing.text == f"{HEADING}\n\n- a: first\n- b: second"
    assert listing.system_reminder == f"<system-reminder>\n{listing.text}\n</system-reminder>"
    assert render([], builtins=()).text == ""


def test_a_given_order_moves_whole_lines_and_changes_none() -> None:
    listing = render([skill("a", "first"), skill("b", "x" * 2000)], "claude-sonnet-4-5")
    order = list(reversed(listing.ids))
    shuffled = listing.text_in_order(order)
    assert shuffled.split("\n\n", 1)[0] == HEADING
    assert sorted(shuffled.split("\n\n", 1)[1].split("\n")) == sorted(listing.text.split("\n")[2:])
    assert shuffled.startswith(f"{HEADING}\n\n{SECURITY}\n{INIT}\n- plugin-authoring: ")
    with pytest.raises(ValueError, match="as often as it is listed"):
        listing.text_in_order(order[:-1])
    with pytest.raises(ValueError, match="as often as it is listed"):
        listing.text_in_order([*order[:-1], order[0]])


def test_an_order_keeps_two_entries_of_one_id_each_once() -> None:
    """A user's copy listed beside the project's, as Codex lists both: no crash, each once."""
    listing = render([skill("a", "first"), skill("b", "second")], builtins=())
    copy = replace(listing.entries[0], line="- a: the user's copy")
    twice = replace(listing, entries=(*listing.entries, copy))
    assert twice.text_in_order(["a", "b", "a"]) == (
        f"{HEADING}\n\n- a: first\n- b: second\n- a: the user's copy"
    )
    assert twice.text_in_order(["b", "a", "a"]) == (
        f"{HEADING}\n\n- b: second\n- a: first\n- a: the user's copy"
    )


# --- the budget ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "budget"),
    [
        (None, 30000),
        ("claude-opus-5-5", 30000),
        ("claude-sonnet-5-5", 30000),
        ("claude-fable-5", 30000),
        ("some-unknown-model", 30000),
        ("claude-opus-5-5[1m]", 30000),
        ("claude-sonnet-4-5", 8000),
        ("claude-haiku-4-5", 8000),
        ("claude-opus-4-6", 8000),
        ("claude-3-5-haiku-20241022", 8000),
        ("claude-3.7-sonnet", 8000),
        ("claude-sonnet-4-5[1m]", 40000),
        ("claude-opus-4-6[1M]", 40000),
    ],
)
def test_the_budget_is_one_percent_of_the_window_at_3_or_4_bytes_a_token(
    model: str | None, budget: int
) -> None:
    assert budget_for(model) == budget
    assert render([], model).budget == budget


@pytest.mark.parametrize(
    ("model", "runs_as", "budget", "where"),
    [
        (None, "claude-opus-5-5", 30000, "system"),
        ("claude-haiku-5-5", "claude-haiku-5-5", 30000, "system"),
        ("claude-sonnet-4-6", "claude-sonnet-4-6", 8000, "user"),
        ("claude-3-opus", "claude-3-opus", 8000, "user"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", 8000, "user"),
        ("claude-opus-4-1", "claude-opus-5-5", 30000, "system"),  # retired: replaced
        ("claude-opus-4-20250514", "claude-opus-5-5", 30000, "system"),
        ("claude-opus-4-1[1m]", "claude-opus-5-5[1m]", 30000, "system"),
    ],
)
def test_retired_ids_run_as_their_replacement_and_legacy_ids_list_in_the_user_message(
    model: str | None, runs_as: str, budget: int, where: str
) -> None:
    assert sent_model(model) == runs_as
    assert budget_for(model) == budget
    assert placement(model) == where
    listing = render([skill("a", "x")], model, builtins=())
    assert listing.placement == where
    assert listing.as_sent == (listing.system_reminder if where == "user" else listing.text)


def test_model_ids_are_compared_in_their_canonical_form() -> None:
    assert canonical_model("Claude-Sonnet-4.5[1m]") == "claude-sonnet-4-5"
    assert canonical_model("claude-3-5-haiku@20241022") == "claude-3-5-haiku"
    assert canonical_model("anthropic.claude-haiku-4-5-20251001-v1:0") == (
        "anthropic-claude-haiku-4-5"
    )


@pytest.mark.parametrize(
    ("text", "width"),
    [("\u4e00", 2), ("\U0001f600", 2), ("\u2014", 1), ("\u2026", 1), ("\n", 0), ("e\u0301", 1)],
)
def test_width_is_display_columns(text: str, width: int) -> None:
    assert display_width(text) == width
    assert display_width("a\ud83d") == 1


def filling(columns: int) -> list[ListedSkill]:
    """User skills whose lines, each with the newline after it, take exactly `columns`."""
    count = -(-columns // 1001)  # at most 1000 columns a line (entries are cut at 1536)
    shares = [columns // count + (i < columns % count) for i in range(count)]
    return [
        skill(f"f{i:02d}", "x" * (share - 1 - len(f"- f{i:02d}: ")))
        for i, share in enumerate(shares)
    ]


def states(listing: Listing) -> dict[str, str]:
    return {entry.id: entry.state for entry in listing.entries}


@pytest.mark.parametrize(("model", "budget"), [("claude-sonnet-4-5", 8000), (None, 30000)])
def test_a_listing_that_fits_the_budget_exactly_is_whole(model: str | None, budget: int) -> None:
    listing = render(filling(budget - BUILTINS_WIDTH), model)
    assert listing.width == listing.full_width == budget
    assert set(states(listing).values()) == {"full"}


@pytest.mark.parametrize(("model", "budget"), [("claude-sonnet-4-5", 8000), (None, 30000)])
def test_one_column_over_collapses_the_last_entry_that_can(model: str | None, budget: int) -> None:
    listing = render(filling(budget - BUILTINS_WIDTH + 1), model)
    assert listing.full_width == budget + 1
    assert [(e.id, e.state) for e in listing.entries if e.state != "full"] == [
        ("security-review", "collapsed")
    ]
    assert listing.entries[-1].line == "- security-review"
    assert listing.entries[-1].full_line == SECURITY
    assert listing.width == budget + 1 - (len(SECURITY) - len("- security-review"))


def test_the_greedy_pass_keeps_a_later_shorter_entry_after_a_longer_one_collapsed() -> None:
    skills = [skill("a", "x" * 2000), skill("b", "y" * 2000), skill("c", "z" * 10)]
    listing = render(skills, "claude-sonnet-4-5")
    assert states(listing) == {
        "a": "cut",
        "b": "collapsed",
        "c": "full",
        **dict.fromkeys(BUILTINS, "full"),
    }
    assert [entry.line for entry in listing.entries[:3]] == [
        "- a: " + "x" * 1535 + "\u2026",
        "- b",
        "- c: " + "z" * 10,
    ]
    assert listing.width == 7770
    assert listing.full_width == BUILTINS_WIDTH + 3 + 2 * len("- a: " + "x" * 1536) + 15


def test_collapsed_entries_keep_their_display_name() -> None:
    skills = [skill(f"s{i:03d}", "d" * 100, name=f"n{i:03d}") for i in range(100)]
    listing = render(skills, "claude-sonnet-4-5")
    assert listing.entries[99].line == "- s099 (n099)"
    assert listing.entries[99].state == "collapsed"


def test_bundled_built_ins_never_collapse_even_when_nothing_else_fits() -> None:
    skills = [skill(f"s{i:03d}", "d" * 100) for i in range(500)]
    listing = render(skills, "claude-opus-4-6")
    collapsed = [entry.id for entry in listing.entries if entry.state == "collapsed"]
    assert collapsed == [*(f"s{i:03d}" for i in range(500)), "init", "security-review"]
    assert all(listing.entry(name).state == "full" for name in BUNDLED)  # type: ignore[union-attr]
    assert listing.width == BUILTINS_WIDTH - len(INIT) - len(SECURITY) + 6 + 17 + 500 * 7
    assert listing.width > listing.budget


def test_a_budget_is_at_least_one_column_and_entries_that_never_collapse_stay() -> None:
    tiny = replace(packaged_rules(), budget_fraction=1e-12)
    assert budget_for(None, tiny) == 1
    listing = render([skill("a", "d")], rules=tiny)
    assert states(listing)["a"] == "collapsed"
    pinned = [skill("p", "pinned", "builtin", collapses=False)]
    only_pinned = render(pinned, builtins=(), rules=tiny)
    assert [entry.line for entry in only_pinned.entries] == ["- p: pinned"]
    assert only_pinned.width == 11 > only_pinned.budget


def test_a_built_in_entry_is_sent_as_given() -> None:
    given = skill("mine", "  keeps\n<spaces>  ", "builtin", when_to_use="too")
    assert lines([given]) == ["- mine:   keeps\n<spaces>   - too"]
