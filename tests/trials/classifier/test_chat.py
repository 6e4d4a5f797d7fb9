"""A Messages API request as the Chat Completions request an OpenAI-compatible server gets."""

from __future__ import annotations

from activation.trials.providers.openai_compatible import chat_request

SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}}}
REQUEST = {
    "model": "openai-compatible:qwen3",
    "max_tokens": 512,
    "system": "Judge the files.",
    "messages": [{"role": "user", "content": "Is it right?"}],
}


def test_a_structured_answer_is_asked_with_its_schema() -> None:
    asked = chat_request({**REQUEST, "output_config": {"format": {"schema": SCHEMA}}})
    assert asked == {
        "model": "qwen3",
        "messages": [
            {"role": "system", "content": "Judge the files."},
            {"role": "user", "content": "Is it right?"},
        ],
        "max_tokens": 512,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "skill_choice", "schema": SCHEMA, "strict": True},
        },
    }


def test_a_request_for_no_structured_answer_asks_for_text() -> None:
    """Stage C's `llm` arm: the model's reply as it is."""
    asked = chat_request(REQUEST)
    assert "response_format" not in asked
    assert asked["max_tokens"] == 512
    assert asked["messages"][1] == {"role": "user", "content": "Is it right?"}
