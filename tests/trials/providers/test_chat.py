"""The OpenAI-compatible provider's client (`--model openai-compatible:<id>`): the real
`openai` SDK's Chat Completions over real HTTP to the local stand-in. What it sends, how
the answer comes back in the Messages API's shape, what it counts, how each failure is
told."""

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
from activation.trials.providers import provider_named
from activation.trials.providers.asking import Reply, Throttled, Unanswered
from tests.support.chat_api import Answer, ChatRequest, Error, FakeChatAPI, Tokens

KEY = "local-test-SECRET-0123456789"
NAMES = ("billing:refunds", "charts")
SYSTEM = "You are the skill router.\n\n- billing:refunds: Use when issuing refunds.\n- charts: ..."
PROMPT = "refund order 1234"
REQUEST: dict[str, Any] = {
    "model": "openai-compatible:qwen3",
    "max_tokens": 4096,
    "system": [{"type": "text", "text": SYSTEM, "cache_control": CACHED}],
    "messages": [{"role": "user", "content": PROMPT}],
    "output_config": {"format": {"type": "json_schema", "schema": answer_schema(NAMES)}},
}
"""A Messages API request as `Requests.request` builds it."""
TOKENS = Tokens(prompt=1500, completion=12)
PRICES = Prices(input=2.0, output=10.0, cache_write=2.5, cache_read=0.2)
USAGE = Usage(
    requests=1, input_tokens=1500, output_tokens=12, cost_usd=(1500 * 2.0 + 12 * 10.0) / 1e6
)
REFUNDS = Answer('{"skills": ["billing:refunds"]}')
URL = "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL"
KEY_VARIABLE = "ACTIVATION_OPENAI_COMPATIBLE_API_KEY"


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatAPI]:
    """The stand-in, its base URL set, no key (such a server asks for none)."""
    with FakeChatAPI(tokens=TOKENS) as fake:
        monkeypatch.setenv(URL, fake.base_url_v1)
        monkeypatch.delenv(KEY_VARIABLE, raising=False)
        yield fake


def ask(throttled: Throttled = lambda _sent: None, prices: Prices | None = PRICES) -> Reply:
    """REQUEST, asked once through a fresh client of the provider."""

    async def asking() -> Reply:
        async with provider_named("openai-compatible").asker(prices) as asker:
            return await asker.ask(REQUEST, throttled)

    return anyio.run(asking)


def test_the_request_is_translated_and_the_answer_read(api: FakeChatAPI) -> None:
    api.script = lambda _request: REFUNDS
    told: list[float] = []
    reply = ask(told.append)
    (sent,) = api.requests
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer not-needed"  # the dummy: none was set
    assert sent.body == {
        "model": "qwen3",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
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
            },
        },
        "max_tokens": 4096,
    }
    assert reply.message == {
        "type": "message",
        "role": "assistant",
        "model": "qwen3",
        "content": [{"type": "text", "text": REFUNDS.text}],
        "stop_reason": "end_turn",
    }
    assert chosen(reply.message, NAMES) == ("billing:refunds",)
    assert reply.usage == USAGE
    assert (reply.problem, reply.again, told) == ("", False, [])


def test_a_set_key_is_sent(api: FakeChatAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    api.key = KEY
    api.script = lambda _request: REFUNDS
    reply = ask()
    assert api.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert reply.message is not None
    assert chosen(reply.message, NAMES) == ("billing:refunds",)


def test_without_prices_the_cost_is_unknown(api: FakeChatAPI) -> None:
    api.script = lambda _request: REFUNDS
    unpriced = Usage(requests=1, input_tokens=1500, output_tokens=12, cost_usd=None)
    assert ask(prices=None).usage == unpriced


def test_an_answer_cut_at_the_token_limit_is_no_answer(api: FakeChatAPI) -> None:
    api.script = lambda _request: Answer('{"skills": ["billing:ref', finish_reason="length")
    reply = ask()
    assert reply.message is not None
    assert reply.message["stop_reason"] == "max_tokens"
    with pytest.raises(Unanswered) as raised:
        chosen(reply.message, NAMES)
    assert str(raised.value) == "stop reason max_tokens"
    assert reply.usage == USAGE


def test_a_refused_key_stops_the_run_without_showing_it(
    api: FakeChatAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    api.key = "another-key"
    with pytest.raises(AuthError) as raised:
        ask()
    assert str(raised.value) == (
        f"the API refused the credentials (HTTP 401); check {KEY_VARIABLE}"
    )
    assert KEY not in str(raised.value)
    assert len(api.requests) == 1


def test_a_429_is_told_once_and_the_retry_answers(
    api: FakeChatAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: Iterator[Error | Answer] = iter([Error(429, "too many requests"), REFUNDS])
    api.script = lambda _request: next(answers)
    told: list[float] = []
    before = time.monotonic()
    reply = ask(told.append)
    after = time.monotonic()
    assert len(told) == 1
    assert before <= told[0] <= after
    assert len(api.requests) == 2
    assert reply.message is not None
    assert chosen(reply.message, NAMES) == ("billing:refunds",)
    assert reply.usage == Usage(
        requests=1, input_tokens=1500, output_tokens=12, cost_usd=USAGE.cost_usd, throttled=1
    )


def test_another_error_fails_the_trial(api: FakeChatAPI) -> None:
    def too_long(_request: ChatRequest) -> Error:
        return Error(400, "This model's maximum context length is 4096 tokens")

    api.script = too_long
    assert ask() == Reply(Usage(requests=1), problem="API error HTTP 400")
    assert len(api.requests) == 1


def test_a_refused_connection_is_an_unreachable_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(URL, f"http://127.0.0.1:{port}/v1")
    monkeypatch.setattr("activation._config.API_RETRIES", 0)
    with pytest.raises(ApiUnreachable) as raised:
        ask()
    assert str(raised.value) == (
        f"cannot reach http://127.0.0.1:{port}/v1/ (check {URL} and the network)"
    )
