"""The Responses API provider (`--model openai:<id>`): the real `openai` SDK over real HTTP
to the local stand-in. What it sends, how the answer comes back in the Messages API's
shape, what it counts, and how each failure is told."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from activation._errors import ApiUnreachable, AuthError
from activation._models import Prices, Usage
from activation.trials.classifier.backend import chosen
from activation.trials.classifier.prompt import CACHED, answer_schema
from activation.trials.providers.asking import Reply, Throttled, Unanswered
from activation.trials.providers.openai import ResponsesAPI
from tests.support.responses_api import (
    Error,
    FakeResponsesAPI,
    Incomplete,
    Refusal,
    ResponsesRequest,
    Text,
    Tokens,
)

KEY = "sk-openai-test-SECRET-0123456789"
NAMES = ("billing:refunds", "charts")
SYSTEM = "You are the skill router.\n\n- billing:refunds: Use when issuing refunds.\n- charts: ..."
PROMPT = "refund order 1234"
REQUEST: dict[str, Any] = {
    "model": "openai:gpt-5.5",
    "max_tokens": 4096,
    "system": [{"type": "text", "text": SYSTEM, "cache_control": CACHED}],
    "messages": [{"role": "user", "content": PROMPT}],
    "output_config": {"format": {"type": "json_schema", "schema": answer_schema(NAMES)}},
}
"""A Messages API request as `Requests.request` builds it."""
TOKENS = Tokens(input=1500, cached=1024, output=12)
PRICES = Prices(input=2.0, output=10.0, cache_write=2.5, cache_read=0.2)
USAGE = Usage(
    requests=1,
    input_tokens=476,
    output_tokens=12,
    cache_read_tokens=1024,
    cost_usd=(476 * 2.0 + 12 * 10.0 + 1024 * 0.2) / 1_000_000,
)
"""What one answered request counts: the cached tokens are cache reads, not input."""
REFUNDS = Text('{"skills": ["billing:refunds"]}')


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeResponsesAPI]:
    """The stand-in, with the SDK's environment pointed at it."""
    with FakeResponsesAPI(tokens=TOKENS) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.base_url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield fake


def ask(throttled: Throttled = lambda _sent: None) -> Reply:
    """REQUEST, asked once through a fresh provider."""

    async def asking() -> Reply:
        async with ResponsesAPI(PRICES) as provider:
            return await provider.ask(REQUEST, throttled)

    return anyio.run(asking)


def test_the_request_is_translated_and_the_answer_read(api: FakeResponsesAPI) -> None:
    api.script = lambda _request: REFUNDS
    told: list[float] = []
    reply = ask(told.append)
    (sent,) = api.requests
    assert (sent.method, sent.path) == ("POST", "/v1/responses")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body == {
        "model": "gpt-5.5",
        "instructions": SYSTEM,
        "input": PROMPT,
        "text": {
            "format": {
                "type": "json_schema",
                "name": "skill_choice",
                "schema": {
                    "type": "object",
                    "properties": {
                        "skills": {
                            "type": "array",
                            "items": {"type": "string", "enum": ["billing:refunds", "charts"]},
                        }
                    },
                    "required": ["skills"],
                    "additionalProperties": False,
                },
                "strict": True,
            }
        },
        "max_output_tokens": 4096,
        "store": False,
    }
    assert reply.message is not None
    assert reply.message["content"] == [{"type": "text", "text": REFUNDS.text}]
    assert reply.message["stop_reason"] == "end_turn"
    assert reply.message["model"] == "gpt-5.5"
    assert chosen(reply.message, NAMES) == ("billing:refunds",)
    assert reply.usage == USAGE
    assert (reply.problem, reply.again, told) == ("", False, [])


def test_a_request_for_no_structured_answer_asks_for_text(api: FakeResponsesAPI) -> None:
    """Stage C's `llm` arm asks for the model's reply as it is (no JSON schema): the
    request has no `text.format`, and the text comes back."""
    api.script = lambda _request: Text("```python\nprint('hi')\n```")
    plain = {key: value for key, value in REQUEST.items() if key != "output_config"}

    async def asking() -> Reply:
        async with ResponsesAPI(PRICES) as provider:
            return await provider.ask(plain, lambda _sent: None)

    reply = anyio.run(asking)
    (sent,) = api.requests
    assert sent.body == {
        "model": "gpt-5.5",
        "instructions": SYSTEM,
        "input": PROMPT,
        "max_output_tokens": 4096,
        "store": False,
    }
    assert reply.message is not None
    assert reply.message["content"] == [{"type": "text", "text": "```python\nprint('hi')\n```"}]
    assert reply.message["stop_reason"] == "end_turn"


def test_a_refusal_is_no_answer(api: FakeResponsesAPI) -> None:
    api.script = lambda _request: Refusal("I can't help with that.")
    reply = ask()
    assert reply.message is not None
    assert reply.message["content"] == []
    assert reply.message["stop_reason"] == "refusal"
    with pytest.raises(Unanswered) as raised:
        chosen(reply.message, NAMES)
    assert str(raised.value) == "stop reason refusal"
    assert reply.usage == USAGE


def test_an_answer_cut_at_max_output_tokens_is_no_answer(api: FakeResponsesAPI) -> None:
    api.script = lambda _request: Incomplete('{"skills": ["billing:ref')
    reply = ask()
    assert reply.message is not None
    assert reply.message["content"] == [{"type": "text", "text": '{"skills": ["billing:ref'}]
    assert reply.message["stop_reason"] == "max_tokens"
    with pytest.raises(Unanswered) as raised:
        chosen(reply.message, NAMES)
    assert str(raised.value) == "stop reason max_tokens"
    assert reply.usage == USAGE


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_stop_the_run_without_showing_the_key(
    api: FakeResponsesAPI, status: int
) -> None:
    api.script = lambda _request: Error(status, f"Incorrect API key provided: {KEY}")
    with pytest.raises(AuthError) as raised:
        ask()
    assert str(raised.value) == (
        f"the API refused the credentials (HTTP {status}); check OPENAI_API_KEY"
    )
    assert KEY not in str(raised.value)
    assert raised.value.__cause__ is None
    assert len(api.requests) == 1  # the SDK does not retry refused credentials


def test_a_429_is_told_once_and_the_retry_answers(api: FakeResponsesAPI) -> None:
    answers: Iterator[Error | Text] = iter(
        [Error(429, "Rate limit reached", "requests", retry_after_ms=10), REFUNDS]
    )
    api.script = lambda _request: next(answers)
    told: list[float] = []
    before = time.monotonic()
    reply = ask(told.append)
    after = time.monotonic()
    assert len(told) == 1
    assert before <= told[0] <= after  # when the refused attempt was sent, not a duration
    assert len(api.requests) == 2
    assert api.requests[0].body == api.requests[1].body
    assert reply.message is not None
    assert chosen(reply.message, NAMES) == ("billing:refunds",)
    assert reply.usage == Usage(
        requests=1,
        input_tokens=476,
        output_tokens=12,
        cache_read_tokens=1024,
        cost_usd=USAGE.cost_usd,
        throttled=1,
    )


def test_another_api_error_fails_the_trial(api: FakeResponsesAPI) -> None:
    def bad_request(_request: ResponsesRequest) -> Error:
        return Error(400, "Invalid schema for response_format 'skill_choice'")

    api.script = bad_request
    reply = ask()
    assert reply == Reply(Usage(requests=1), problem="API error HTTP 400")
    assert len(api.requests) == 1


def test_a_refused_connection_is_an_unreachable_api(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://user:pw@127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr("activation._config.API_RETRIES", 0)
    with pytest.raises(ApiUnreachable) as raised:
        ask()
    assert str(raised.value) == (
        f"cannot reach http://127.0.0.1:{port}/v1/ (check OPENAI_BASE_URL and the network)"
    )
