"""The attribution chain (verdicts/chain.py): of each arm's trials with the skill, how many
were listed, loaded and followed it, and how many passed at each step."""

from __future__ import annotations

import pytest

from activation._errors import InputError
from activation._models import Arm, Grade, GradeOutcome, Trial
from activation.inputs.behavior_graders import parse_graders
from activation.verdicts.behavior import Rate
from activation.verdicts.chain import ArmChain, chain, followed

SKILL = "billing:refunds"


def trial(arm: Arm, index: int, *, loaded: bool, follows: GradeOutcome | None,
          passed: bool) -> Trial:  # fmt: skip
    """A graded trial: a file grader (its pass), and a `follows` grader when given."""
    grades = [Grade("cards.txt holds the cards", "file_contains", None,
                    "passed" if passed else "failed")]  # fmt: skip
    if follows is not None:
        grades.append(Grade("ran the checker", "command_ran", None, follows, follows=True))
    return Trial("cards", arm, index, loaded, chose=(SKILL,) if loaded else (),
                 correct=passed, grades=tuple(grades))  # fmt: skip


def errored(arm: Arm, index: int) -> Trial:
    return Trial("cards", arm, index, None, error="agent timed out after 600 s")


def counts(rate: Rate | None) -> tuple[int, int, int] | None:
    return None if rate is None else (rate.passed, rate.applied, rate.errors)


def shape(found: ArmChain) -> tuple[object, ...]:
    return (found.arm, found.listing, *(counts(rate) for _, rate in found.steps))


CANDIDATE = (
    errored("candidate", 0),
    trial("candidate", 1, loaded=False, follows="failed", passed=True),
    trial("candidate", 2, loaded=True, follows="passed", passed=True),
    trial("candidate", 3, loaded=True, follows="passed", passed=True),
    trial("candidate", 4, loaded=True, follows="passed", passed=False),
    trial("candidate", 5, loaded=True, follows="failed", passed=False),
)


def test_each_step_counts_the_trials_that_reached_it_and_those_of_them_that_passed() -> None:
    baseline = (
        trial("baseline", 0, loaded=False, follows="failed", passed=False),
        trial("baseline", 1, loaded=False, follows="failed", passed=True),
    )
    found = chain((*baseline, *CANDIDATE), {"baseline": "hidden", "candidate": "full"})
    assert [shape(arm) for arm in found] == [
        ("baseline", "hidden", (1, 2, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)),
        ("candidate", "full", (3, 5, 1), (3, 5, 0), (2, 4, 0), (2, 3, 0)),
    ]


def test_a_skill_listed_by_name_only_or_cut_is_listed() -> None:
    for listing in ("collapsed", "cut"):
        (_, candidate) = chain(CANDIDATE, {"candidate": listing})
        assert counts(candidate.listed) == (3, 5, 0)


def test_without_a_visibility_verdict_or_a_follows_grader_those_steps_are_unknown() -> None:
    unmarked = tuple(
        Trial(
            t.case_id,
            t.variant,
            t.index,
            t.activated,
            error=t.error,
            chose=t.chose,
            correct=t.correct,
            grades=t.grades[:1],
        )
        for t in CANDIDATE
    )
    (baseline, candidate) = chain(unmarked, {})
    assert shape(candidate) == ("candidate", None, (3, 5, 1), None, (2, 4, 0), None)
    assert shape(baseline) == ("baseline", None, (0, 0, 0), None, (0, 0, 0), None)


def test_followed_needs_every_follows_grader_that_applied_to_pass() -> None:
    def with_grades(*outcomes: GradeOutcome) -> Trial:
        grades = tuple(Grade(f"g{i}", "command_ran", None, o, follows=True)
                       for i, o in enumerate(outcomes))  # fmt: skip
        return Trial("cards", "candidate", 0, True, correct=True, grades=grades)

    assert followed(with_grades("passed", "void")) is True
    assert followed(with_grades("passed", "failed")) is False
    assert followed(with_grades("void")) is False
    assert followed(with_grades()) is False


def test_a_case_file_marks_a_grader_follows_and_a_non_boolean_is_refused() -> None:
    (marked, plain) = parse_graders(
        [{"type": "command_ran", "pattern": "check_cards", "follows": True},
         {"type": "file_contains", "file_pattern": "cards.txt", "value": "To Ada"}],
        "evals/cards.yaml",
    )  # fmt: skip
    assert (marked.follows, plain.follows) == (True, False)
    with pytest.raises(InputError, match=r"grader 1 \(command_ran\): .*follows"):
        parse_graders([{"type": "command_ran", "pattern": "x", "follows": "yes"}], "e.yaml")
