"""skill-creator's `evals/evals.json` read as skill-creator's own runs and grader read it
(its references/schemas.md and agents/grader.md): every expectation and assertion is a judge
of its own, a folder in `files` is laid in whole, and every key not used is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from activation._errors import InputError
from activation.graders.judge import Judge
from activation.inputs.behavior_skill_creator import behavior_cases, eval_files, judge
from activation.inputs.formats.shape import Document
from activation.inputs.lint import MANUAL, Finding, lint_behavior, unread_text
from activation.inputs.load import load_behavior_suite

EVALS = {
    "skill_name": "invoices",
    "owner": "finance-team",
    "evals": [
        {
            "id": 1,
            "prompt": "Total the invoices in evals/files/march/ and write total.md",
            "expected_output": "total.md gives the March total",
            "files": ["evals/files/march/", "evals/files/rates.csv"],
            "expectations": ["total.md names March"],
            "assertions": ["total.md says 300.00 EUR", "total.md names March"],
            "weight": 2,
        },
        {
            "id": "draft",
            "name": "Reminder for invoice 7",
            "prompt": "Write a reminder for invoice 7",
            "expected_output": "a polite reminder naming invoice 7",
            "files": [],
        },
        {"id": 3, "prompt": "Say hello"},
    ],
}
FILES = {
    "evals/files/march/a.txt": b"100.00 EUR\n",
    "evals/files/march/deep/b.txt": b"200.00 EUR\n",
    "evals/files/rates.csv": b"EUR,1\n",
}


def question(expectation: str) -> str:
    return f"Do the files meet this expectation?\n- {expectation}"


def test_each_expectation_and_assertion_is_a_judge_of_its_own() -> None:
    first, draft, hello = behavior_cases(Document("evals/evals.json", EVALS), FILES)
    assert (first.id, first.skills, first.prompt) == (
        "invoices-1",
        ("invoices",),
        "Total the invoices in evals/files/march/ and write total.md",
    )
    assert first.graders == (
        Judge(description="total.md names March", question=question("total.md names March")),
        Judge(
            description="total.md says 300.00 EUR", question=question("total.md says 300.00 EUR")
        ),
    )
    # expected_output is kept for the reader and not judged: skill-creator's grader is
    # never given it when there are expectations.
    assert first.expectations == (
        "total.md gives the March total",
        "total.md names March",
        "total.md says 300.00 EUR",
    )
    assert first.scaffold == (
        ("evals/files/march/a.txt", b"100.00 EUR\n"),
        ("evals/files/march/deep/b.txt", b"200.00 EUR\n"),
        ("evals/files/rates.csv", b"EUR,1\n"),
    )
    assert first.unread == ("owner", "weight")
    # A first draft (no assertions yet) is judged on its expected output.
    assert draft.graders == (judge("a polite reminder naming invoice 7"),)
    assert (draft.id, draft.unread, draft.scaffold) == ("invoices-draft", (), ())
    # skill-creator's `name` is the eval's readable name, read as the case's
    assert (draft.name, first.name) == ("Reminder for invoice 7", "invoices-1")
    assert (hello.id, hello.manual) == ("invoices-3", True)


def test_lint_names_every_unused_key_and_the_judges_need_no_level() -> None:
    cases = behavior_cases(Document("evals/evals.json", EVALS), FILES)
    assert lint_behavior(cases) == [
        Finding("warning", "invoices-1", unread_text("owner")),
        Finding("warning", "invoices-1", unread_text("weight")),
        Finding("warning", "invoices-3", MANUAL),
    ]


def test_eval_files_lists_each_named_path_once() -> None:
    assert eval_files(Document("e.json", EVALS)) == ("evals/files/march/", "evals/files/rates.csv")


def test_assertions_as_named_objects_are_judged_by_their_description() -> None:
    """skill-creator asks for assertions "with descriptive names": `{name, description}`
    (or `text`, as its grader's grading.json writes one) is the check labelled by its name."""
    document = Document(
        "evals/evals.json",
        {
            "skill_name": "invoices",
            "evals": [
                {
                    "id": 1,
                    "prompt": "Total March",
                    "assertions": [
                        {"name": "names-march", "description": "total.md names March"},
                        {"text": "total.md says 300.00 EUR"},
                        "total.md is one page",
                    ],
                }
            ],
        },
    )
    (case,) = behavior_cases(document, {})
    assert case.expectations == (
        "total.md names March",
        "total.md says 300.00 EUR",
        "total.md is one page",
    )
    assert case.graders == (
        Judge(description="names-march", question=question("total.md names March")),
        judge("total.md says 300.00 EUR"),
        judge("total.md is one page"),
    )


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"id": 4, "prompt": ""}, "case 'invoices-4': 'prompt' must be non-empty text"),
        (
            {"id": 4, "prompt": "p", "assertions": "one"},
            "case 'invoices-4': 'assertions' must be a list",
        ),
        (
            {"id": 4, "prompt": "p", "assertions": [{"name": "label only"}]},
            "case 'invoices-4': each of 'assertions' must be text or an object with a "
            "'description' (or 'text' or 'check') and an optional 'name'",
        ),
        (
            {"id": 4, "prompt": "p", "files": ["evals/empty"]},
            "case 'invoices-4': the input file 'evals/empty' is missing (or an empty folder)",
        ),
    ],
)
def test_a_bad_eval_is_one_line(item: dict[str, object], message: str) -> None:
    document = Document("r.json", {"skill_name": "invoices", "evals": [item]})
    with pytest.raises(InputError) as raised:
        behavior_cases(document, {})
    assert str(raised.value) == f"r.json: {message}"


def test_a_folder_in_files_is_laid_into_the_workspace_from_the_skills_folder(
    tmp_path: Path,
) -> None:
    skill = tmp_path / "skills" / "invoices"
    (skill / "evals" / "files" / "march" / "deep").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: invoices\ndescription: Use for invoices.\n---\n")
    for path, content in FILES.items():
        (skill / path).write_bytes(content)
    (skill / "evals" / "evals.json").write_text(json.dumps(EVALS))
    suite = load_behavior_suite(skill / "evals" / "evals.json")
    assert [case.id for case in suite.graded] == ["invoices-1", "invoices-draft"]
    assert suite.cases[0].scaffold == tuple(sorted(FILES.items()))
