"""OpenAI's models (`--model openai:<id>`), the record and the client together: the
Responses API through the optional `openai` SDK (the `skill-activation[openai]` extra), imported
only when a client is made or a response read. One request at a time: no batches, and no
token counting (a dry run estimates from characters). The SDK reads the key and the base
URL from the environment itself.

Every provider gets the same Messages API request; this one translates it (the system text
becomes `instructions`, the case prompt `input`, the answer's JSON schema a strict
`text.format`) and translates the response back into the Messages API's shape, so
`answer.py` reads it as it reads Claude's. Errors go as on the Messages API (anthropic.py):
refused credentials and an unreachable API stop the run, any other failure fails the trial.
The SDK retries 408/409/429/5xx itself; an httpx hook sees every attempt, so each 429 is
counted and told to the run's limit while the retry waits. The client and the reading of a
failure are shared with an OpenAI-compatible server's Chat Completions
(openai_compatible.py).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Prices, Usage
from activation.trials.backend import shown_url
from activation.trials.classifier.prompt import system_text, user_prompt
from activation.trials.providers import ModelProvider, PricedModels, parse_model
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, SharedClient, asking, pushed_back

if TYPE_CHECKING:
    import httpx
    import openai

KEY = "OPENAI_API_KEY"
URL = "OPENAI_BASE_URL"
WHOM = "an openai: model"

KIND = "openai-responses"
"""The provider kind in Stage A's cache keys."""
FORMAT_NAME = "skill_choice"
"""The structured answer's name, which the Responses API requires."""
THROTTLED = 429
SENT = Usage(requests=1)
"""The usage of a request that brought no answer back."""


async def _sending(request: httpx.Request) -> None:
    """Runs before each attempt, retries included."""
    pushback = asking()
    if pushback is not None:
        pushback.sent_at = time.monotonic()


async def _received(response: httpx.Response) -> None:
    """Runs after each attempt, retries included."""
    pushback = asking()
    if pushback is not None and response.status_code == THROTTLED:
        pushed_back(pushback.sent_at)


def responses_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The Responses API request that asks what a Messages API request asks: a structured
    answer when it asks for one (Stage A, a judge), else plain text (Stage C's `llm` arm).
    Nothing is stored on OpenAI's side: no later request refers to a response."""
    asked: dict[str, Any] = {
        "model": parse_model(str(request["model"])).id,
        "instructions": system_text(request),
        "input": user_prompt(request),
        "max_output_tokens": request["max_tokens"],
        "store": False,
    }
    if "output_config" in request:
        schema = request["output_config"]["format"]["schema"]
        answer = {"type": "json_schema", "name": FORMAT_NAME, "schema": schema, "strict": True}
        asked["text"] = {"format": answer}
    return asked


def stop_reason(response: Mapping[str, Any], refused: bool) -> str:
    """The Messages API's stop reason for a response: a refusal (also a content filter's
    cut), a cut at `max_output_tokens`, or the answer's end."""
    cut = (response.get("incomplete_details") or {}).get("reason")
    if refused or cut == "content_filter":
        return "refusal"
    return "max_tokens" if cut == "max_output_tokens" else "end_turn"


def message_of(response: Mapping[str, Any]) -> dict[str, Any]:
    """A Responses API response as a Messages API body: its output text as text blocks
    (reasoning items skipped), and its stop reason."""
    content: list[dict[str, Any]] = []
    refused = False
    for item in response.get("output") or ():
        if item.get("type") != "message":
            continue
        for part in item.get("content") or ():
            if part.get("type") == "output_text":
                content.append({"type": "text", "text": str(part.get("text", ""))})
            refused = refused or part.get("type") == "refusal"
    return {
        "type": "message",
        "role": "assistant",
        "model": response.get("model"),
        "content": content,
        "stop_reason": stop_reason(response, refused),
    }


def response_usage(response: Mapping[str, Any], prices: Prices | None) -> Usage:
    """One response's tokens and their cost (unknown without prices). OpenAI caches prompts
    by itself and counts the cached tokens within the input: here they are cache reads."""
    names = ("input_tokens", "output_tokens", "input_tokens_details")
    return counted_usage(response.get("usage") or {}, names, prices)


def counted_usage(usage: Mapping[str, Any], names: tuple[str, str, str],
                  prices: Prices | None) -> Usage:  # fmt: skip
    """Tokens as an OpenAI-shaped `usage` counts them (`names`: its input, output and input
    details fields), the cached input within the input split out as cache reads, priced."""
    given, taken, details = names
    cached = int((usage.get(details) or {}).get("cached_tokens") or 0)
    tokens = Usage(
        requests=1,
        input_tokens=int(usage.get(given) or 0) - cached,
        output_tokens=int(usage.get(taken) or 0),
        cache_read_tokens=cached,
    )
    return replace(tokens, cost_usd=None if prices is None else prices.cost(tokens))


def client(**settings: Any) -> openai.AsyncOpenAI:
    """The SDK's client as Stage A uses it, its hooks watching every attempt; `settings`
    (a base URL, a key) override what the SDK reads from the environment."""
    import openai

    hooks: dict[str, list[Any]] = {"request": [_sending], "response": [_received]}
    return openai.AsyncOpenAI(
        max_retries=_config.API_RETRIES,
        timeout=_config.REQUEST_TIMEOUT,
        http_client=openai.DefaultAsyncHttpxClient(event_hooks=hooks),
        **settings,
    )


async def answered(
    client: openai.AsyncOpenAI,
    call: Awaitable[Any],
    read: Callable[[Mapping[str, Any]], Reply],
    key: str,
    url: str,
) -> Reply:
    """The reply a raw SDK call brings, `read` from its JSON body; refused credentials and
    an unreachable API stop the run (telling which variable, `key` or `url`, to check)."""
    import httpx
    import openai
    import orjson

    try:
        raw = await call
        body = orjson.loads(raw.content)
    except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
        raise AuthError(
            f"the API refused the credentials (HTTP {error.status_code}); check {key}"
        ) from None
    except openai.APIStatusError as error:
        return Reply(SENT, problem=f"API error HTTP {error.status_code}")
    except openai.APIConnectionError as error:
        if isinstance(error.__cause__, (httpx.ConnectError, httpx.UnsupportedProtocol)):
            raise ApiUnreachable(
                f"cannot reach {shown_url(client.base_url)} (check {url} and the network)"
            ) from None
        kind = "timed out" if isinstance(error, openai.APITimeoutError) else "failed"
        return Reply(SENT, problem=f"connection {kind}")
    except orjson.JSONDecodeError:
        return Reply(SENT, problem="the response is not JSON", again=True)
    return read(body)


class ResponsesAPI(SharedClient["openai.AsyncOpenAI"]):
    """Stage A's requests over one shared `AsyncOpenAI` client."""

    kind = KIND

    def client(self) -> openai.AsyncOpenAI:
        return client()

    async def _ask(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> Reply:
        call = client.responses.with_raw_response.create(**responses_request(request))
        return await answered(client, call, self._read, KEY, URL)

    def _read(self, response: Mapping[str, Any]) -> Reply:
        return Reply(response_usage(response, self.prices), message=message_of(response))


class OpenAI(PricedModels):
    name = "openai"
    key_variables: tuple[str, ...] = (KEY,)
    default_url: str | None = "https://api.openai.com/v1"
    api = "responses"
    url_variable: str | None = URL
    sdk = ("openai", "openai")
    whom = WHOM

    def asker(self, prices: Prices | None) -> Asker:
        return ResponsesAPI(prices)


PROVIDER: ModelProvider = OpenAI()
