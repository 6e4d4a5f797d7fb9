"""Other tools' case formats, each read by a pure function from parsed data: exact cases,
exact problems, the format told by the shape, and one line for a file that fits none."""

from __future__ import annotations

import orjson
import pytest

from activation._errors import InputError
from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, check_cases
from activation.inputs.formats import (
    NATIVE,
    PROMPTS_JSONL,
    SKILL_CREATOR,
    SKILL_JSON,
    TRIGGER_YAML,
    native,
    prompts_jsonl,
    skill_creator,
    skill_json,
    trigger_yaml,
)
from activation.inputs.formats.detect import detect, fits, read
from activation.inputs.formats.shape import Document

# --- skill-creator's trigger eval set --------------------------------------------------------


def test_skill_creator_rows_become_cases_about_the_measured_skill_or_a_routing_case() -> None:
    document = Document(
        "evals/trigger-eval.json",
        [
            {"query": "refund order 12", "should_trigger": True},
            {"query": "a chargeback on 991", "should_trigger": False, "expected_skill": "disputes"},
            {"query": "what is a refund?", "should_trigger": False},
            {"query": "a haiku", "should_trigger": False, "expected_skill": None},
            {"query": "fix invoice 7", "should_trigger": True, "expected_skill": "invoices"},
        ],
    )
    checked = skill_creator.read(document)
    assert checked.cases == (
        Case("trigger-eval-1", "refund order 12", True, "", ("positive",)),
        Case(
            "trigger-eval-2", "a chargeback on 991", False, "", ("negative",), expect=("disputes",)
        ),
        Case("trigger-eval-3", "what is a refund?", False, "", ("negative",)),
        Case("trigger-eval-4", "a haiku", False, "", ("negative",), expect=()),
        Case("trigger-eval-5", "fix invoice 7", True, "", ("positive",), expect=("invoices",)),
    )
    assert (checked.problems, checked.written_for, checked.format) == ((), None, SKILL_CREATOR)
    assert checked.unexplained == tuple(f"trigger-eval-{n}" for n in range(1, 6))


def test_skill_creator_under_an_evals_key_takes_prompt_and_the_file_names_its_skill() -> None:
    data = {"skill_name": "refunds", "evals": [{"prompt": "refund 12", "should_trigger": True}]}
    checked = skill_creator.read(Document("set.json", data, folder_skill="other"))
    assert checked.cases == (Case("refunds-set-1", "refund 12", True, "", ("positive",)),)
    assert checked.written_for == "refunds"


def test_skill_creator_queries_beside_the_skill_name_are_that_skills_trigger_cases() -> None:
    data = {
        "skill_name": "palette",
        "purpose": "trigger eval for the palette skill",
        "queries": [
            {"query": "pick accent colours for my app", "should_trigger": True},
            {"query": "resize these PNGs", "should_trigger": False},
        ],
    }
    document = Document("evals/trigger-eval.json", data)
    assert detect(document) == SKILL_CREATOR
    checked = skill_creator.read(document)
    assert checked.cases == (
        Case("palette-trigger-eval-1", "pick accent colours for my app", True, "", ("positive",)),
        Case("palette-trigger-eval-2", "resize these PNGs", False, "", ("negative",)),
    )
    assert (checked.problems, checked.written_for) == ((), "palette")


def test_skill_creator_ids_are_unique_per_skill_when_every_skill_names_its_file_alike() -> None:
    rows = [
        {"query": "q", "should_trigger": True},
        {"id": 7, "query": "r", "should_trigger": False},
    ]
    ids = {
        skill: [
            case.id
            for case in skill_creator.read(
                Document(f"{skill}/evals/trigger-eval.json", rows, folder_skill=skill)
            ).cases
        ]
        for skill in ("commit", "refactor")
    }
    assert ids == {
        "commit": ["commit-trigger-eval-1", "commit-trigger-eval-7"],
        "refactor": ["refactor-trigger-eval-1", "refactor-trigger-eval-7"],
    }
    named = skill_creator.read(Document("commit-triggers.json", rows, folder_skill="commit"))
    assert [case.id for case in named.cases] == ["commit-triggers-1", "commit-triggers-7"]


def test_skill_creator_problems_name_the_row() -> None:
    document = Document(
        "t.json",
        [
            {"query": " ", "should_trigger": True},
            {"query": "x", "should_trigger": "yes"},
            {"query": "y", "should_trigger": True, "expected_skill": None},
            {"query": "z", "should_trigger": False, "expected_skill": 3},
            {"query": "dup", "should_trigger": True},
            {"query": "DUP ", "should_trigger": False},
        ],
    )
    assert skill_creator.read(document).problems == (
        Problem("t-1", "'query' must be non-empty text"),
        Problem("t-2", "'should_trigger' must be true or false"),
        Problem("t-3", "'should_trigger' is true but 'expected_skill' names no skill"),
        Problem("t-4", "'expected_skill': must be a skill name, \"\" or null"),
        Problem("t-6", "same prompt as 't-5'"),
    )


# --- JSON Lines per skill, with shared negatives ---------------------------------------------


POSITIVES = Document(
    "evals/refunds.jsonl",
    [{"id": "r1", "prompt": "refund order 12"}, {"id": "r2", "prompt": "undo payment 3"}],
    "jsonl",
)
NEGATIVES = Document(
    "evals/negatives.jsonl",
    [
        {"id": "n1", "prompt": "a haiku", "expected_skill": ""},
        {"id": "r1", "prompt": "fix invoice 7", "expected_skill": "invoices", "why": "invoices"},
    ],
    "jsonl",
)


def test_jsonl_positives_are_the_file_skills_and_shared_negatives_expect_none_or_a_sibling() -> (
    None
):
    checked = prompts_jsonl.read(POSITIVES, [NEGATIVES])
    assert checked.cases == (
        Case("r1", "refund order 12", True, "", ("positive",)),
        Case("r2", "undo payment 3", True, "", ("positive",)),
        Case("n1", "a haiku", False, "", ("negative",), expect=()),
        Case(
            "negatives/r1", "fix invoice 7", False, "invoices", ("negative",), expect=("invoices",)
        ),
    )
    assert (checked.written_for, checked.problems) == ("refunds", ())
    assert dict(checked.origin) == {
        "r1": "refunds.jsonl",
        "r2": "refunds.jsonl",
        "n1": "negatives.jsonl",
        "negatives/r1": "negatives.jsonl",
    }


def test_jsonl_a_skill_folder_names_the_skill_and_a_negatives_file_names_none() -> None:
    inside = Document("skills/refunds/evals/prompts.jsonl", POSITIVES.data, "jsonl", "refunds")
    assert prompts_jsonl.read(inside).written_for == "refunds"
    assert prompts_jsonl.read(NEGATIVES).written_for is None
    assert (prompts_jsonl.is_negatives(NEGATIVES), prompts_jsonl.is_negatives(POSITIVES)) == (
        True,
        False,
    )


def test_jsonl_a_prompt_in_the_positives_and_the_negatives_names_both_files() -> None:
    shared = Document(
        "evals/negatives.jsonl", [{"prompt": "Refund order 12", "expected_skill": ""}], "jsonl"
    )
    assert prompts_jsonl.read(POSITIVES, [shared]).problems == (
        Problem("negatives-1", "same prompt as 'r1' (in refunds.jsonl and negatives.jsonl)"),
    )


# --- YAML trigger tests ------------------------------------------------------------------------


def test_yaml_items_are_text_or_prompt_and_reason() -> None:
    data = {
        "skill": "refunds",
        "should_trigger_prompts": [
            {"prompt": "refund order 12", "reason": "a plain refund", "confidence": "high"},
            "undo payment 3",
        ],
        "should_not_trigger_prompts": [{"prompt": "a chargeback", "reason": "disputes'"}],
    }
    checked = trigger_yaml.read(Document("trigger_tests.yaml", data, "yaml"))
    assert checked.cases == (
        Case("refunds-should-1", "refund order 12", True, "a plain refund", ("positive",)),
        Case("refunds-should-2", "undo payment 3", True, "", ("positive",)),
        Case("refunds-should-not-1", "a chargeback", False, "disputes'", ("negative",)),
    )
    assert (checked.written_for, checked.unexplained) == ("refunds", ("refunds-should-2",))


def test_yaml_without_a_skill_takes_the_folder_and_names_bad_items() -> None:
    data = {"should_trigger_prompts": [{"reason": "no prompt"}], "should_not_trigger_prompts": "x"}
    checked = trigger_yaml.read(Document("t.yaml", data, "yaml", folder_skill="refunds"))
    assert checked.written_for == "refunds"
    assert checked.problems == (
        Problem("refunds-should-1", "item 1 of 'should_trigger_prompts' has no prompt"),
        Problem(None, "'should_not_trigger_prompts' must be a list"),
    )


# --- one JSON file per skill ------------------------------------------------------------------


SKILL_FILE = {
    "skill_name": "refunds",
    "trigger": {
        "positive": [{"prompt": "refund order 12", "top_k": 1}],
        "negative": [
            {"prompt": "a chargeback", "owner": "disputes"},
            {"prompt": "a haiku", "owner": ""},
            {"prompt": "what is a refund?"},
        ],
    },
    "evals": [
        {
            "id": 1,
            "prompt": "Refund order 12 and write refund.md",
            "expected_output": "refund.md says order 12 was refunded",
            "files": ["evals/files/order.csv"],
            "expectations": ["refund.md names order 12"],
        },
        {"id": "plain", "prompt": "Say hello", "expectations": []},
    ],
}


def test_skill_json_trigger_part_becomes_routing_cases_with_owner_as_expect() -> None:
    checked = skill_json.read(Document("cases/refunds.json", SKILL_FILE))
    assert checked.cases == (
        Case("refunds-positive-1", "refund order 12", True, "", ("positive",)),
        Case("refunds-negative-1", "a chargeback", False, "", ("negative",), expect=("disputes",)),
        Case("refunds-negative-2", "a haiku", False, "", ("negative",), expect=()),
        Case("refunds-negative-3", "what is a refund?", False, "", ("negative",)),
    )
    assert (checked.written_for, checked.problems) == ("refunds", ())


def test_skill_json_trigger_items_may_be_plain_prompts_and_bad_ones_are_named() -> None:
    data = {"skill_name": "refunds", "trigger": {"positive": ["refund 12", 7], "negative": "x"}}
    checked = skill_json.read(Document("r.json", data))
    assert checked.cases == (Case("refunds-positive-1", "refund 12", True, "", ("positive",)),)
    assert checked.problems == (
        Problem("refunds-positive-2", "must be a prompt, or an object with a 'prompt'"),
        Problem(None, "'trigger.negative' must be a list"),
    )


# --- this tool's own format, written and read back --------------------------------------------


def test_native_write_reads_back_the_same_cases_with_no_reason_kept_null() -> None:
    cases = (
        Case("a", "refund 12", True, "a refund", ("positive",)),
        Case("b", "a haiku", False, "", ("negative",), expect=()),
        Case("c", "a chargeback", False, "", (), expect=("disputes", "refunds"), must_not=("x",)),
    )
    written = native.write(CaseFile(cases, (), "refunds"), "from t.json")
    assert written.startswith(b'{\n  "_about": "from t.json",\n  "skill": "refunds",\n')
    again = check_cases(orjson.loads(written))
    assert (again.cases, again.problems, again.written_for) == (cases, (), "refunds")
    assert again.unexplained == ("b", "c")


# --- detection ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (Document("c.json", {"cases": []}), NATIVE),
        (Document("c.json", [{"id": "a", "prompt": "p", "expect": None, "why": "w"}]), NATIVE),
        (Document("t.json", [{"query": "q", "should_trigger": True}]), SKILL_CREATOR),
        (Document("t.json", {"evals": [{"prompt": "q", "should_trigger": False}]}), SKILL_CREATOR),
        (Document("r.jsonl", [{"id": "1", "prompt": "p"}], "jsonl"), PROMPTS_JSONL),
        (Document("t.yaml", {"should_not_trigger_prompts": ["p"]}, "yaml"), TRIGGER_YAML),
        (Document("r.json", {"trigger": {"positive": []}}), SKILL_JSON),
    ],
    ids=[
        "native",
        "native-list",
        "skill-creator",
        "skill-creator-evals",
        "jsonl",
        "yaml",
        "skill-json",
    ],
)
def test_each_format_is_told_by_its_shape(document: Document, expected: str) -> None:
    assert detect(document) == expected
    assert [fit.format for fit in fits(document) if fit.lacks is None] == [expected]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            Document("t.json", [{"query": "q"}]),
            "t.json: matches no cases format; the nearest is skill-creator's trigger eval set "
            "(--cases-format skill-creator), and it lacks 'should_trigger' in item 1",
        ),
        (
            Document("e.json", {"skill_name": "r", "evals": [{"prompt": "p", "expectations": []}]}),
            "e.json: matches no cases format; the nearest is a per-skill JSON case file "
            "(--cases-format skill-json), and it lacks a 'trigger' part (its 'evals' are "
            "behavior cases: pass it to activation behavior --suite)",
        ),
        (
            Document("r.jsonl", [{"id": "1", "text": "p"}], "jsonl"),
            "r.jsonl: matches no cases format; the nearest is per-skill JSON Lines prompts "
            "(--cases-format prompts-jsonl), and it lacks 'prompt' in row 1",
        ),
        (
            Document("x.yaml", {"tests": []}, "yaml"),
            "x.yaml: matches no cases format; the nearest is this tool's cases file "
            "(--cases-format activation), and it lacks a 'cases' list",
        ),
    ],
    ids=["skill-creator", "behavior-only", "jsonl", "nothing"],
)
def test_a_file_that_fits_no_format_is_one_line_naming_the_nearest(
    document: Document, message: str
) -> None:
    with pytest.raises(InputError) as raised:
        detect(document)
    assert str(raised.value) == message


def test_a_forced_format_the_file_does_not_fit_says_what_it_lacks() -> None:
    document = Document("r.json", SKILL_FILE)
    with pytest.raises(InputError) as raised:
        read(document, TRIGGER_YAML)
    assert str(raised.value) == (
        "r.json: not YAML trigger tests (--cases-format trigger-yaml): it lacks "
        "'should_trigger_prompts' or 'should_not_trigger_prompts'"
    )
    assert read(document, SKILL_JSON).format == SKILL_JSON
