"""Pure parts of Stage A: the menu, the answer schema and parser, the dry-run diff."""

from __future__ import annotations

import pytest

from activation._models import Case, Skill
from activation.report.plan import groups, word_diff
from activation.trials.classifier.answer import Unanswered, parse_answer
from activation.trials.classifier.prompt import (
    HEADING,
    answer_schema,
    build_menu,
    permutation,
    render_menu,
)

TARGET = Skill("billing:refunds", "Use when issuing refunds.")
OTHERS = (Skill("charts", "Draw charts."), Skill("tests", "Write tests.\n  Fast ones."))


def test_menu_is_the_agents_listing_format() -> None:
    assert render_menu(build_menu(TARGET, OTHERS, (2, 0, 1))) == (
        f"{HEADING}\n\n"
        "- tests: Write tests. Fast ones.\n"
        "- billing:refunds: Use when issuing refunds.\n"
        "- charts: Draw charts."
    )


def test_permutation_is_seeded_per_case_and_trial_not_per_variant() -> None:
    first = permutation(7, "case-a", 0, 9)
    assert first == permutation(7, "case-a", 0, 9)
    assert sorted(first) == list(range(9))
    orders = {permutation(7, "case-a", trial, 9) for trial in range(20)}
    assert len(orders) > 10
    seeds_differ = [permutation(7, "a", t, 9) != permutation(8, "a", t, 9) for t in range(5)]
    cases_differ = [permutation(7, "a", t, 9) != permutation(7, "b", t, 9) for t in range(5)]
    assert any(seeds_differ)
    assert any(cases_differ)


def test_schema_enumerates_menu_names() -> None:
    schema = answer_schema(["b", "a", "b"])
    assert schema["properties"] == {
        "skills": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
    }
    assert schema["required"] == ["skills"]
    assert schema["additionalProperties"] is False


def text(value: str) -> dict[str, object]:
    return {"type": "text", "text": value}


def test_answer_read_from_text_blocks_after_thinking() -> None:
    content = [{"type": "thinking", "thinking": '{"skills": ["x"]}'}, text('{"skills": ["a"]}')]
    assert parse_answer(content, "end_turn", ["a", "b"]) == ("a",)
    assert parse_answer([text('{"skills": []}')], "end_turn", ["a"]) == ()


def test_answer_in_a_code_fence_or_a_tool_call_is_read() -> None:
    fenced = text('Here you go:\n```json\n{"skills": ["b"]}\n```')
    assert parse_answer([fenced], "end_turn", ["a", "b"]) == ("b",)
    call = {"type": "tool_use", "name": "choose", "input": {"skills": ["a", "b"]}}
    assert parse_answer([text("Choosing."), call], "tool_use", ["a", "b"]) == ("a", "b")


@pytest.mark.parametrize(
    ("content", "stop", "message"),
    [
        ([text('{"skills": ["a"]}')], "refusal", "stop reason refusal"),
        ([text('{"skills": ["a"')], "max_tokens", "stop reason max_tokens"),
        ([text("I would use a")], "end_turn", "not JSON: 'I would use a'"),
        ([text('{"skill": "a"}')], "end_turn", "no 'skills' list: '{\"skill\":\"a\"}'"),
        ([text('{"skills": "a"} and {')], "end_turn", "no 'skills' list: '{\"skills\":\"a\"}'"),
        ([text('{"skills": ["zzz"]}')], "end_turn", "names not on the menu: zzz"),
        ([], "end_turn", "not JSON: ''"),
    ],
)
def test_unusable_answers(content: list[dict[str, object]], stop: str, message: str) -> None:
    with pytest.raises(Unanswered) as raised:
        parse_answer(content, stop, ["a", "b"])
    assert str(raised.value) == message


def test_word_diff() -> None:
    assert word_diff("Use for login with Auth0", "Use for signup with Auth0 today") == [
        ("=", "Use for"),
        ("-", "login"),
        ("+", "signup"),
        ("=", "with Auth0"),
        ("+", "today"),
    ]
    assert word_diff("same words", "same   words") == [("=", "same words")]


def test_groups_by_tag_in_file_order() -> None:
    cases = [
        Case("a", "p", True, "w", ("kw", "fw")),
        Case("b", "p", False, "w", ("negative",)),
        Case("c", "p", True, "w", ()),
        Case("d", "p", True, "w", ("kw",)),
    ]
    assert groups(cases) == {
        "kw": ["a", "d"],
        "fw": ["a"],
        "negative": ["b"],
        "(untagged)": ["c"],
    }
