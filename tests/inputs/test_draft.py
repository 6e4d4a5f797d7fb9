"""`activation init`'s drafting (inputs/draft.py): the mock's placeholders in the seeds' case
matrix, a model's answer built into cases (echoes and repeats left out, twins linked,
routing between siblings), and each format read back by this tool's own readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._models import Skill
from activation.inputs import draft
from activation.inputs.cases import CaseFile
from activation.inputs.lint import Menu, lint
from activation.inputs.repo_cases import read_source

REFUNDS = draft.Listed("billing:refunds", "Issue refunds for orders, whole or partial.")
DISPUTES = draft.Listed("billing:disputes", "Answer chargebacks opened by a customer's bank.")
ALONE = draft.Ask(REFUNDS)
PAIRED = draft.Ask(REFUNDS, (DISPUTES,))


def pair(group: str, prompt: str, twin: str) -> draft.Pair:
    return draft.Pair(group, prompt, f"why {prompt}", twin, f"why not {twin}")


ANSWER = draft.Answer(
    (
        pair("keyword-loss", "give order 41 its money back", "give order 41 a new address"),
        pair("framework-loss", "stripe refund for ch_123 please", "stripe payout for ch_123"),
        pair("indirect", "the customer wants what they paid", "the customer wants a receipt"),
    ),
    (("disputes", "the bank pulled 40 euros from us on order 9", "a chargeback, not a refund"),),
    (("rename the orders table", "a schema change: no skill"),),
)


def test_the_mocks_placeholders_make_the_four_groups_with_a_twin_per_positive(
    tmp_path: Path,
) -> None:
    built = draft.build(ALONE, draft.placeholders(ALONE))
    assert [(c.id, c.should_activate, c.tags, c.twin, c.expect) for c in built.cases] == [
        ("refunds-keyword-loss-1", True, ("keyword-loss",), "refunds-keyword-loss-1-twin", None),
        ("refunds-keyword-loss-1-twin", False, ("negative",), None, None),
        ("refunds-framework-loss-1", True, ("framework-loss",),
         "refunds-framework-loss-1-twin", None),
        ("refunds-framework-loss-1-twin", False, ("negative",), None, None),
        ("refunds-indirect-1", True, ("indirect",), "refunds-indirect-1-twin", None),
        ("refunds-indirect-1-twin", False, ("negative",), None, None),
        ("refunds-none-1", False, ("negative",), None, None),
    ]  # fmt: skip
    assert all(c.prompt.startswith(draft.PLACEHOLDER) for c in built.cases)
    assert all(c.why.startswith(draft.PLACEHOLDER) for c in built.cases)
    assert built.refused == ()
    checked = read_back(built, "activation", tmp_path)
    assert lint(checked, REFUNDS.description, strict=True) == ()


def test_a_skill_with_siblings_drafts_routing_cases_that_lint_strict_passes(
    tmp_path: Path,
) -> None:
    built = draft.build(PAIRED, draft.placeholders(PAIRED))
    assert all(c.expect is not None for c in built.cases)
    routed = {c.id: (c.expect, c.twin) for c in built.cases}
    assert routed["refunds-keyword-loss-1"] == (("refunds",), "refunds-keyword-loss-1-twin")
    assert routed["refunds-keyword-loss-1-twin"] == ((), None)
    assert routed["refunds-routes-disputes-1"] == (("disputes",), "refunds-keyword-loss-1")
    assert routed["refunds-none-1"] == ((), None)
    ours = (Skill("billing:refunds", REFUNDS.description),
            Skill("billing:disputes", DISPUTES.description))  # fmt: skip
    menu = Menu("billing:refunds", ours)
    assert lint(read_back(built, "activation", tmp_path), REFUNDS.description, True, menu) == ()


def test_a_models_answer_keeps_its_prompts_and_reasons_as_written() -> None:
    built = draft.build(PAIRED, ANSWER)
    by_id = {c.id: c for c in built.cases}
    assert by_id["refunds-framework-loss-1"].prompt == "stripe refund for ch_123 please"
    assert by_id["refunds-framework-loss-1"].why == "why stripe refund for ch_123 please"
    assert by_id["refunds-framework-loss-1-twin"].prompt == "stripe payout for ch_123"
    assert by_id["refunds-routes-disputes-1"].why == "a chargeback, not a refund"
    assert len(built.cases) == 8


def test_a_prompt_that_echoes_a_description_is_left_out_with_its_twin() -> None:
    echoing = pair("indirect", "please issue refunds for orders, whole or partial", "ship it")
    answer = draft.Answer((ANSWER.positives[0], echoing), (), ())
    built = draft.build(ALONE, answer)
    assert [c.id for c in built.cases] == ["refunds-keyword-loss-1", "refunds-keyword-loss-1-twin"]
    assert built.refused[0].startswith("refunds-indirect-1: left out, echoes refunds's description")


def test_a_twin_that_echoes_a_siblings_description_takes_its_positive_with_it() -> None:
    twin = "answer chargebacks opened by a customer's bank today"
    answer = draft.Answer((pair("indirect", "money back for order 3", twin),), (), ())
    built = draft.build(PAIRED, answer)
    assert built.cases == ()
    assert built.refused[0].startswith("refunds-indirect-1-twin: left out, echoes disputes's")
    assert built.refused[1] == "refunds-indirect-1: left out with its twin"


def test_a_repeated_prompt_and_an_unknown_sibling_are_left_out_and_said() -> None:
    answer = draft.Answer(
        ANSWER.positives[:1],
        (("shipping", "track parcel 7", "not ours"),),
        (("Give order 41 its money back", "again"),),
    )
    built = draft.build(PAIRED, answer)
    assert [c.id for c in built.cases] == ["refunds-keyword-loss-1", "refunds-keyword-loss-1-twin"]
    assert built.refused == (
        "refunds-routes-shipping-1: left out, 'shipping' is no sibling of refunds",
        "refunds-none-1: left out, a prompt already drafted",
    )


def test_an_answer_is_read_when_it_has_the_schemas_shape_only() -> None:
    assert draft.read_answer(draft.answer_data(ANSWER)) == ANSWER
    assert draft.read_answer({"positives": []}) is None
    assert draft.read_answer([1]) is None
    data = draft.answer_data(ANSWER)
    data["positives"][0]["group"] = "vibes"
    assert draft.read_answer(data) is None
    assert draft.read_answer({**draft.answer_data(ANSWER), "positives": []}) is None


def test_the_instructions_name_the_groups_the_siblings_and_the_rules() -> None:
    said = draft.instructions(PAIRED, 2)
    assert "Skill refunds: Issue refunds for orders, whole or partial." in said
    assert "- disputes: Answer chargebacks opened by a customer's bank." in said
    assert "Write 2 positives in each group: keyword-loss" in said
    assert "never a sentence shaped like the description" in said


def read_back(built: draft.Draft, format: str, root: Path) -> CaseFile:
    """The draft written in `format` under `root` and read by the reader `--cases` uses."""
    files = draft.rendered(built, format)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return read_source(root / next(iter(files)))


@pytest.mark.parametrize(
    ("format", "names"),
    [
        ("activation", ["cases.json"]),
        ("skill-creator", ["evals/trigger-evals.json"]),
        ("jsonl", ["evals/refunds.jsonl", "evals/negatives.jsonl"]),
        ("yaml", ["trigger_tests.yaml"]),
    ],
)
def test_every_format_reads_back_with_its_prompts_labels_and_reasons(
    format: str, names: list[str], tmp_path: Path
) -> None:
    built = draft.build(PAIRED, ANSWER)
    assert list(draft.rendered(built, format)) == names
    assert draft.file_names("refunds", format) == tuple(names)
    checked = read_back(built, format, tmp_path)
    assert checked.problems == ()
    assert sorted((c.prompt, c.why) for c in checked.cases) == sorted(
        (c.prompt, c.why) for c in built.cases
    )
    if format == "activation":  # routing: what each expects, resolved against a menu later
        assert {c.prompt: c.expect for c in checked.cases} == {
            c.prompt: c.expect for c in built.cases
        }
    else:
        assert {c.prompt: c.should_activate for c in checked.cases} == {
            c.prompt: c.should_activate for c in built.cases
        }


def test_the_behavior_skeleton_has_a_grader_at_each_level_and_a_holistic_judge() -> None:
    files = draft.behavior_skeleton(ALONE)
    assert list(files) == [
        "evals/refunds_draft/PROMPT.md",
        "evals/refunds_draft/graders.yaml",
        "evals/refunds_draft/scaffold/README.md",
    ]
    from activation._yaml import load_yaml

    graders = load_yaml(files["evals/refunds_draft/graders.yaml"])
    assert isinstance(graders, list)
    assert [g.get("level") for g in graders] == ["L1", "L2", "L3", "L4", "L5", None]
    assert graders[-1]["type"] == "judge"
    assert all("TODO" in str(g) for g in graders)
    assert files["evals/refunds_draft/PROMPT.md"].startswith(b"---\nid: refunds_draft\n")
    assert draft.behavior_folder("9-Web.App") == "evals/web_app_draft"
