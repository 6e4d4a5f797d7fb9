"""Which distractors a menu gets, and the note that names the set every output shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._config import DESCRIPTION_LIMIT
from activation._models import Skill
from activation.inputs.distractors import (
    NO_DISTRACTORS,
    choose_distractors,
    distractors_folder,
    distractors_note,
)
from activation.inputs.load import load_distractors
from activation.inputs.suite import BUNDLED_SKILL, DISTRACTOR_SETS

AUTH0 = DISTRACTOR_SETS["auth0"]
GENERIC = DISTRACTOR_SETS["generic"]


@pytest.mark.parametrize(
    ("siblings", "catalog", "target", "expected"),
    [
        (False, False, "godot", GENERIC),  # a lone skill of any field: the generic company
        (False, False, "games:godot", GENERIC),
        (False, False, BUNDLED_SKILL, AUTH0),  # the bundled skill: its own suite's company
        (True, False, "godot", None),
        (False, True, "godot", None),
        (True, True, BUNDLED_SKILL, None),
    ],
)
def test_unset_only_a_lone_skill_gets_company_realistic_for_its_field(
    siblings: bool, catalog: bool, target: str, expected: Path | None
) -> None:
    assert distractors_folder(None, siblings, catalog, target) == expected


@pytest.mark.parametrize(("siblings", "catalog"), [(False, False), (True, True)])
def test_a_folder_a_set_or_none_is_taken_as_given(siblings: bool, catalog: bool) -> None:
    assert distractors_folder(Path("mine"), siblings, catalog, "godot") == Path("mine")
    assert distractors_folder(AUTH0, siblings, catalog, "godot") == AUTH0
    assert distractors_folder(NO_DISTRACTORS, siblings, catalog, BUNDLED_SKILL) is None


def test_the_flag_names_a_bundled_set_none_or_a_folder() -> None:
    assert choose_distractors("auth0") == AUTH0
    assert choose_distractors("generic") == GENERIC
    assert choose_distractors("none") == NO_DISTRACTORS
    assert choose_distractors("./auth0") == Path("auth0")
    assert choose_distractors("my/distractors") == Path("my/distractors")


def test_the_note_names_the_set_used() -> None:
    def skills(folder: Path) -> list[Skill]:
        return [Skill(f"d{i}", "text", path=str(folder / f"d{i}.md")) for i in range(2)]

    assert distractors_note(skills(AUTH0)) == (
        "the menu adds 2 distractor skill(s) from the bundled auth0 set (auth0-adjacent on "
        "purpose, written for the bundled auth0 suite); --distractors generic, "
        "--distractors DIR for your own, --distractors none for none"
    )
    assert distractors_note(skills(GENERIC)) == (
        "the menu adds 2 distractor skill(s) from the bundled generic set (common developer "
        "skills tied to no vendor); --distractors auth0, --distractors DIR for your own, "
        "--distractors none for none"
    )
    own = [Skill("charts", "text", path="/work/mine/charts.md")]
    assert distractors_note(own) == (
        "the menu adds 1 distractor skill(s) from /work/mine "
        "(--distractors; none: --distractors none)"
    )
    assert distractors_note([]) is None


VENDORS = ("auth0", "okta", "stripe", "aws", "azure", "google", "github", "vercel")


def test_the_generic_set_is_tied_to_no_vendor_and_reads_like_real_skills() -> None:
    skills = load_distractors(GENERIC)
    names = [skill.name for skill in skills]
    assert names == [
        "dependency-updates",
        "docs-writer",
        "git-helper",
        "pdf-tools",
        "pr-reviewer",  # not code-review: that is a Claude Code built-in, which it would hide
        "shell-scripts",
        "spreadsheet-data",
        "test-runner",
    ]
    auth0 = {skill.name for skill in load_distractors(AUTH0)}
    assert not auth0 & set(names)
    for skill in skills:
        assert skill.description is not None
        assert skill.description.startswith("Use ")
        assert 100 < len(skill.description) < DESCRIPTION_LIMIT // 2
        assert not any(vendor in skill.description.lower() for vendor in VENDORS), skill.name
