"""Anthropic's models (a bare `--model` id), the record and the client together: the
Messages API through the `anthropic` SDK, one by one or in Message Batches (the batch
backend, trials/classifier/batch.py, builds on this client), with the free token-counting
endpoint for a dry run's estimate. The SDK is imported only when a client is made or a
response read, so reading a model names no SDK; it reads the key and the base URL from the
environment itself.

The SDK retries 408/409/429/5xx itself, honouring `retry-after`; what still fails after
that is a failed request. Refused credentials and an API that cannot be reached at all stop
the run instead: no later trial could do better. Every 429 or 529 the API answers (also one
the SDK then retries) is seen by a middleware, which runs once per attempt: it counts the
pushback in the trial's usage and tells the run's limit at once, so an adaptive limit halves
while the retry waits.

Client CPU is what limits a large run (thousands of calls in flight on one core), so the
response is read as raw JSON with orjson instead of being built into the SDK's typed models,
which cost more than the whole rest of a call's bookkeeping.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Prices, Usage
from activation.trials.backend import shown_url
from activation.trials.providers import ModelProvider, PricedModels, Uncounted
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, SharedClient, pushed_back

if TYPE_CHECKING:
    import anthropic

KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
URL = "ANTHROPIC_BASE_URL"
KIND = "messages-api"
"""The backend kind in Stage A's cache keys (batches ask the same, so they share it)."""
THROTTLED = frozenset({429, 529})
"""Too many requests, overloaded: the API asks for fewer requests at once."""
SENT = Usage(requests=1)
"""The usage of a request that brought no answer back."""


async def _watch(request: Any, call_next: Any) -> Any:
    """Runs once per attempt, retries included."""
    sent_at = time.monotonic()
    response = await call_next(request)
    if response.status_code in THROTTLED:
        pushed_back(sent_at)
    return response


def refused(error: anthropic.APIStatusError) -> AuthError:
    return AuthError(
        f"the API refused the credentials (HTTP {error.status_code}); check ANTHROPIC_API_KEY"
    )


def unreachable(client: anthropic.AsyncAnthropic, what: str = "") -> ApiUnreachable:
    return ApiUnreachable(
        f"cannot reach {shown_url(client.base_url)}{what} "
        "(check ANTHROPIC_BASE_URL and the network)"
    )


def message_usage(data: Mapping[str, Any], prices: Prices | None, discount: float = 1.0) -> Usage:
    """One response's tokens and their cost (unknown without prices)."""
    usage = data.get("usage") or {}
    tokens = Usage(
        requests=1,
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
    )
    return replace(tokens, cost_usd=None if prices is None else prices.cost(tokens, discount))


def client() -> anthropic.AsyncAnthropic:
    """The SDK's client as Stage A uses it; ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are
    read by the SDK itself."""
    import anthropic

    return anthropic.AsyncAnthropic(
        max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT, middleware=[_watch]
    )


class MessagesAPI(SharedClient["anthropic.AsyncAnthropic"]):
    """Stage A's requests over one shared `AsyncAnthropic` client."""

    kind = KIND

    def client(self) -> anthropic.AsyncAnthropic:
        return client()

    async def _ask(self, client: anthropic.AsyncAnthropic, request: dict[str, Any]) -> Reply:
        import anthropic
        import httpx2
        import orjson

        try:
            raw = await client.messages.with_raw_response.create(**request)
            message = orjson.loads(await raw.read())
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
            raise refused(error) from None
        except anthropic.APIStatusError as error:
            return Reply(SENT, problem=f"API error HTTP {error.status_code}")
        except anthropic.APIConnectionError as error:
            if isinstance(error.__cause__, (httpx2.ConnectError, httpx2.UnsupportedProtocol)):
                raise unreachable(client) from None
            kind = "timed out" if isinstance(error, anthropic.APITimeoutError) else "failed"
            return Reply(SENT, problem=f"connection {kind}")
        except orjson.JSONDecodeError:
            return Reply(SENT, problem="the response is not JSON", again=True)
        return Reply(message_usage(message, self.prices), message=message)


async def count_input_tokens(requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
    """Input tokens of each request, counted `limit` at a time; each request is counted as
    it would be sent (`max_tokens` is not a parameter of the count)."""
    import anthropic
    import anyio

    counts = [0] * len(requests)
    limiter = anyio.CapacityLimiter(limit)
    async with anthropic.AsyncAnthropic(
        max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT
    ) as client:

        async def one(position: int) -> None:
            params = {k: v for k, v in requests[position].items() if k != "max_tokens"}
            async with limiter:
                counted = await client.messages.count_tokens(**params)
            counts[position] = counted.input_tokens

        async with anyio.create_task_group() as group:
            for position in range(len(requests)):
                group.start_soon(one, position)
    return counts


def counting_failed(error: Exception) -> str | None:
    """Why counting failed, for a dry run that then estimates from characters; None for an
    error that is not the API's (a bug: let it surface). The requests are counted in a task
    group, so the API's error comes wrapped in an exception group."""
    import anthropic

    while isinstance(error, ExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, anthropic.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, anthropic.APIConnectionError):
        return "the API could not be reached"
    return None


class Anthropic(PricedModels):
    name = "anthropic"
    key_variables: tuple[str, ...] = KEYS
    default_url: str | None = "https://api.anthropic.com"
    api = "messages"
    url_variable: str | None = URL
    batches = True

    def preflight(self, *, calls: bool) -> None:
        from activation.trials import api_check

        if calls:
            api_check.require_key(KEYS)
            api_check.check_reachable(URL)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        """Counted by the API (free, no message made), imported only when a dry run has a
        key to count with; a set base URL that cannot be reached is found with one
        connection first, not after the SDK's retries of every count (seconds of backoff)."""
        import anyio

        from activation.trials import api_check

        if not api_check.has_key(KEYS):
            raise Uncounted("no API key to count with")
        try:
            api_check.check_reachable(URL)
        except ApiUnreachable:
            raise Uncounted("token counting failed (the API could not be reached)") from None
        try:
            return anyio.run(count_input_tokens, requests, limit)
        except Exception as error:
            why = counting_failed(error)
            if why is None:
                raise
            raise Uncounted(f"token counting failed ({why})") from None

    def asker(self, prices: Prices | None) -> Asker:
        return MessagesAPI(prices)


PROVIDER: ModelProvider = Anthropic()
