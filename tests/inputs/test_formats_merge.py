"""Merging case files (`activation import`): one case per prompt, the union of what its
copies expect, and a conflict between copies named with its files, never guessed."""

from __future__ import annotations

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem
from activation.inputs.formats.merge import merge

NONE_EXPECTED = Case("n1", "a haiku", False, "", ("negative",), expect=())


def per_skill(skill: str, *cases: Case) -> CaseFile:
    return CaseFile(cases, (), skill, "prompts-jsonl")


def test_shared_negatives_in_per_skill_files_become_one_case_each() -> None:
    refunds = per_skill("refunds", Case("r1", "refund 12", True, "", ("positive",)), NONE_EXPECTED)
    disputes = per_skill("disputes", Case("d1", "a chargeback", True, "", ()), NONE_EXPECTED)
    merged = merge([("evals/refunds.jsonl", refunds), ("evals/disputes.jsonl", disputes)])
    assert merged.file.cases == (
        Case("r1", "refund 12", True, "", ("positive",), expect=("refunds",)),
        NONE_EXPECTED,
        Case("d1", "a chargeback", True, "", (), expect=("disputes",)),
    )
    assert (merged.file.problems, merged.file.written_for) == ((), None)
    assert merged.repeats == (("n1", ("refunds.jsonl", "disputes.jsonl")),)


def test_a_prompt_two_skills_claim_expects_either_and_one_skills_negative_is_must_not() -> None:
    refunds = per_skill(
        "refunds",
        Case("r1", "money back for 12", True, "a refund", ()),
        Case("r2", "a chargeback", False, "", ()),
    )
    disputes = per_skill(
        "disputes",
        Case("d1", "Money back for 12", True, "or a dispute", ()),
        Case("d2", "a chargeback", True, "", ()),
    )
    merged = merge([("a/refunds.json", refunds), ("b/disputes.json", disputes)])
    assert merged.file.cases == (
        Case(
            "r1",
            "money back for 12",
            True,
            "a refund; or a dispute",
            (),
            expect=("refunds", "disputes"),
        ),
        Case("r2", "a chargeback", True, "", (), expect=("disputes",), must_not=("refunds",)),
    )
    assert merged.file.problems == ()


def test_one_skills_files_stay_about_the_measured_skill() -> None:
    first = per_skill("refunds", Case("a", "refund 12", True, "why", ("x",)))
    second = per_skill("refunds", Case("b", "refund 12", True, "", ("y",)))
    merged = merge([("one.yaml", first), ("two.json", second)])
    assert merged.file.cases == (Case("a", "refund 12", True, "why", ("x", "y")),)
    assert merged.file.written_for == "refunds"


def test_copies_that_contradict_each_other_are_a_problem_naming_the_files() -> None:
    first = per_skill("refunds", Case("a", "refund 12", True, "", ()), NONE_EXPECTED)
    second = per_skill(
        "refunds",
        Case("b", "refund 12", False, "", ()),
        Case("c", "a haiku", False, "", (), expect=("refunds",)),
    )
    merged = merge([("one.yaml", first), ("two.yaml", second)])
    assert merged.file.problems == (
        Problem(
            "a",
            "one copy says the skill should fire, another that it should not (one.yaml, two.yaml)",
        ),
        Problem("n1", "one copy expects no skill, another refunds (one.yaml, two.yaml)"),
    )


def test_ids_two_files_share_for_different_prompts_are_kept_apart() -> None:
    first = per_skill("refunds", Case("1", "refund 12", True, "", ()))
    second = per_skill("refunds", Case("1", "refund 13", True, "", ()))
    merged = merge([("x/refunds.jsonl", first), ("y/more.jsonl", second)])
    assert [case.id for case in merged.file.cases] == ["1", "more/1"]
    assert merged.file.problems == ()


def test_ids_several_skills_files_of_one_name_share_are_kept_apart_by_skill() -> None:
    """The skill-test action's files are all `skill-tests.yaml`: the skill tells them apart."""
    research = per_skill("toolkit:research", Case("unrelated", "fix this bug", False, "", ()))
    notes = per_skill("toolkit:notes", Case("unrelated", "fix that typo", False, "", ()))
    merged = merge([("a/research/skill-tests.yaml", research), ("a/notes/skill-tests.yaml", notes)])
    assert [case.id for case in merged.file.cases] == ["unrelated", "notes/unrelated"]
    assert merged.file.problems == ()


def test_a_negative_of_one_skill_alone_expects_any_skill_but_that_one() -> None:
    """Not `should_activate: false`, which a run would apply to whichever skill it
    measures: the file of `aspire` says nothing about the router."""
    router = per_skill("router", Case("r1", "deploy my app", True, "", ()))
    aspire = per_skill("aspire", Case("a1", "set up a cluster", False, "not aspire", ()))
    merged = merge([("router.yaml", router), ("aspire.yaml", aspire)])
    assert merged.file.cases == (
        Case("r1", "deploy my app", True, "", (), expect=("router",)),
        Case(
            "a1", "set up a cluster", False, "not aspire", (), expect=("*",), must_not=("aspire",)
        ),
    )
    assert merged.file.problems == ()
