"""Stage A's requests to the Messages API, through the `anthropic` SDK: the one module (with
the batch backend beside it) that imports it.

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
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import anthropic
import httpx2
import orjson

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Prices, Usage
from activation.trials.backend import shown_url
from activation.trials.providers.asking import Reply, SharedClient, pushed_back

KIND = "messages-api"
"""The backend kind in Stage A's cache keys (batches ask the same, so they share it)."""
THROTTLED = frozenset({429, 529})
"""Too many requests, overloaded: the API asks for fewer requests at once."""
SENT = Usage(requests=1)
"""The usage of a request that brought no answer back."""
_UNREACHABLE = (httpx2.ConnectError, httpx2.UnsupportedProtocol)


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
    return anthropic.AsyncAnthropic(
        max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT, middleware=[_watch]
    )


class MessagesAPI(SharedClient[anthropic.AsyncAnthropic]):
    """Stage A's requests over one shared `AsyncAnthropic` client."""

    kind = KIND

    def client(self) -> anthropic.AsyncAnthropic:
        return client()

    async def _ask(self, client: anthropic.AsyncAnthropic, request: dict[str, Any]) -> Reply:
        try:
            raw = await client.messages.with_raw_response.create(**request)
            message = orjson.loads(await raw.read())
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
            raise refused(error) from None
        except anthropic.APIStatusError as error:
            return Reply(SENT, problem=f"API error HTTP {error.status_code}")
        except anthropic.APIConnectionError as error:
            if isinstance(error.__cause__, _UNREACHABLE):
                raise unreachable(client) from None
            kind = "timed out" if isinstance(error, anthropic.APITimeoutError) else "failed"
            return Reply(SENT, problem=f"connection {kind}")
        except orjson.JSONDecodeError:
            return Reply(SENT, problem="the response is not JSON", again=True)
        return Reply(message_usage(message, self.prices), message=message)
