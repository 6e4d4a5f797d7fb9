"""Stage A's answer: read from the content blocks by type; anything else is unanswered."""

from __future__ import annotations

import pytest

from activation.trials.classifier.answer import parse_answer
from activation.trials.providers.asking import Unanswered


def text(value: str) -> dict[str, object]:
    return {"type": "text", "text": value}


def test_answer_read_from_text_blocks_after_thinking() -> None:
    content: list[dict[str, object]] = [
        {"type": "thinking", "thinking": '{"skills": ["x"]}'},
        text('{"skills": ["a"]}'),
    ]
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
