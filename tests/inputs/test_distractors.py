"""Which distractors a menu gets, and the note that names where they come from."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._models import Skill
from activation.inputs.skill_set import NO_DISTRACTORS, distractors_folder, distractors_note
from activation.inputs.suite import BUNDLED_DISTRACTORS


@pytest.mark.parametrize(
    ("siblings", "catalog", "expected"),
    [
        (False, False, BUNDLED_DISTRACTORS),  # alone on the menu: the bundled company
        (True, False, None),
        (False, True, None),
        (True, True, None),
    ],
)
def test_unset_the_bundled_ones_keep_only_a_lone_skill_company(
    siblings: bool, catalog: bool, expected: Path | None
) -> None:
    assert distractors_folder(None, siblings, catalog) == expected


@pytest.mark.parametrize(("siblings", "catalog"), [(False, False), (True, True)])
def test_a_folder_or_none_is_taken_as_given(siblings: bool, catalog: bool) -> None:
    assert distractors_folder(Path("mine"), siblings, catalog) == Path("mine")
    assert distractors_folder(NO_DISTRACTORS, siblings, catalog) is None


def test_the_note_names_the_bundled_origin_or_the_folder() -> None:
    bundled = [Skill(f"d{i}", "text", path=str(BUNDLED_DISTRACTORS / f"d{i}.md")) for i in range(2)]
    assert distractors_note(bundled) == (
        "the menu adds 2 distractor skill(s): the bundled auth0-adjacent distractors "
        "(activation/suite/distractors), written for the bundled auth0 suite; they can take "
        "trials from your skills (--distractors DIR for your own, --distractors none for none)"
    )
    own = [Skill("charts", "text", path="/work/mine/charts.md")]
    assert distractors_note(own) == (
        "the menu adds 1 distractor skill(s) from /work/mine "
        "(--distractors; none: --distractors none)"
    )
    assert distractors_note([]) is None
