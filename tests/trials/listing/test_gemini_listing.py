"""Gemini CLI's listing rules without the CLI (the fidelity test checks them against it):
the wording per model, the listed name, who is listed, an empty listing."""

from __future__ import annotations

import pytest

from activation.trials.agents.gemini.listing import (
    discovery_order,
    is_modern,
    listed_name,
    render,
    visibility,
)
from activation.trials.listing.model import UNBOUNDED, ListedSkill


@pytest.mark.parametrize(
    ("model", "modern"),
    [("gemini-3.1-pro-preview", True), ("gemini-3-flash-preview", True), ("gemini-3", True),
     ("gemini-2.5-pro", False), ("gemini-2.0-flash", False), ("gemini-30-pro", False),
     ("auto", True), ("pro", True), ("auto-gemini-2.5", False), ("my-local-model", True),
     (None, True)],
)  # fmt: skip
def test_the_wording_follows_the_model(model: str | None, modern: bool) -> None:
    assert is_modern(model) is modern


def test_the_listed_name_has_no_path_or_shell_characters() -> None:
    assert listed_name('db:tune/a\\b<c>d*e?f"g|h') == "db-tune-a-b-c-d-e-f-g-h"


def skill(folder: str, name: object, description: object) -> ListedSkill:
    return ListedSkill(id=folder, folder=folder, source="project", name=name,
                       description=description)  # fmt: skip


def test_who_is_listed_and_in_what_order() -> None:
    skills = [
        skill("a", "alpha", "First."),
        skill("b", "beta", None),  # no description: not listed
        skill("c", None, "No name."),  # no name: not listed
        skill("d", "alpha", "Replaces the first, in its place."),
        skill("e", "epsilon", "Last."),
    ]
    listing = render(skills, "gemini-2.5-pro", lambda s: f"/w/.agents/skills/{s.folder}/SKILL.md")
    assert listing.ids == ("d", "e")
    assert listing.budget == UNBOUNDED and listing.width == len(listing.text)
    assert listing.text.startswith(
        "# Available Agent Skills\n\nYou have access to the following specialized skills. To "
        "activate a skill and receive its detailed instructions, you can call the "
        "`activate_skill` tool with the skill's name.\n\n<available_skills>\n  <skill>\n"
        "    <name>alpha</name>\n    <description>Replaces the first, in its place."
        "</description>\n    <location>/w/.agents/skills/d/SKILL.md</location>\n  </skill>\n"
    )
    assert listing.text.endswith("</skill>\n</available_skills>")


def test_no_skill_no_section_and_the_folder_order() -> None:
    assert render([], None, str).text == ""
    order = discovery_order([skill(f, f, "x") for f in ("Mid", "a10", "a9", "b_one", "b-two")])
    assert [s.folder for s in order] == ["b_one", "b-two", "a9", "a10", "Mid"]


def test_visibility_says_which_rule_hid_a_skill_and_what_opens_the_load() -> None:
    skills = [
        skill("a", "alpha", "First."),
        skill("b", "beta", None),
        skill("c", None, "No name."),
        skill("d", "alpha", "Takes alpha's name."),
    ]
    listing = render(skills, None, lambda s: f"/w/{s.folder}/SKILL.md")
    seen = {v.id: v for v in visibility(skills, listing)}
    assert [seen[i].state for i in "abcd"] == ["hidden", "hidden", "hidden", "full"]
    assert seen["a"].rule == (
        "a skill of the same name ('alpha') replaces it: Gemini CLI lists the one it finds "
        "later (user skills after its built-ins, the project's after the user's: "
        "SkillManager.addSkillsWithPrecedence)"
    )
    assert seen["b"].rule == "no `description` in the frontmatter (Gemini CLI skips the file)"
    assert seen["c"].rule == "no `name` in the frontmatter (Gemini CLI skips the file)"
    assert (seen["d"].kept, seen["d"].loadable) == (len("Takes alpha's name."), True)
    assert seen["d"].load_rule.startswith("headless, Gemini CLI removes activate_skill")


def test_a_skill_of_the_same_id_and_name_found_later_hides_the_earlier_one() -> None:
    """Two skills folders that both hold `a/` (the id is the folder): the CLI lists the
    later one in the earlier one's place, so the earlier one is not seen."""
    skills = [skill("a", "alpha", "First."), skill("a", "alpha", "Second.")]
    listing = render(skills, None, lambda s: f"/w/{s.folder}/SKILL.md")
    assert [entry.line.count("Second.") for entry in listing.entries] == [1]
    first, second = visibility(skills, listing)
    assert (first.state, first.rule) == (
        "hidden",
        "a skill of the same name ('alpha') replaces it: Gemini CLI lists the one it finds "
        "later (user skills after its built-ins, the project's after the user's: "
        "SkillManager.addSkillsWithPrecedence)",
    )
    assert (second.state, second.kept) == ("full", len("Second."))


def test_of_two_folders_sharing_a_name_the_one_the_listing_shows_is_listed() -> None:
    """A copied folder (`tdd-copy/` with `name: tdd`, QA3 E20): the CLI finds `tdd-copy`
    first (reverse byte order) and `tdd` replaces it; visibility, given the skills in
    another order, calls exactly that one listed."""
    skills = [skill("tdd", "tdd", "Test first."), skill("tdd-copy", "tdd", "Test first.")]
    listing = render(discovery_order(skills), None, lambda s: f"/w/{s.folder}/SKILL.md")
    assert [(e.id, e.name) for e in listing.entries] == [("tdd", "tdd")]
    assert "<location>/w/tdd/SKILL.md</location>" in listing.text
    tdd, copy = visibility(skills, listing)
    assert (tdd.id, tdd.state) == ("tdd", "full")
    assert (copy.id, copy.state) == ("tdd-copy", "hidden")
    assert copy.rule.startswith("a skill of the same name ('tdd') replaces it: ")


def test_a_project_skill_replaces_the_users_copy() -> None:
    """User skills are found before the project's, so the project's copy is listed."""
    mine = ListedSkill(id="tdd", folder="tdd", source="user", name="tdd", description="Mine.")
    ours = skill("tdd", "tdd", "Ours.")
    listing = render([mine, ours], None, lambda s: f"/{s.source}/{s.folder}/SKILL.md")
    assert [(e.id, e.source) for e in listing.entries] == [("tdd", "project")]
    user, project = visibility([mine, ours], listing)
    assert (user.state, project.state) == ("hidden", "full")
    assert user.rule.startswith("a project skill of the same name ('tdd') replaces it: ")
