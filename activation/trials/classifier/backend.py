"""Stage A's backend: ask a model, as a classifier, which skills of a menu it would invoke.

The answer is a JSON-schema structured output (models that think by default reject forced
tool calls). The SDK retries 408/409/429/5xx itself, honouring `retry-after`; what still
fails after that, or cannot be parsed after one re-ask, becomes an error trial. Refused
credentials and an API that cannot be reached at all stop the run instead: no later trial
could do better. The SDK is imported here and in the batch backend beside it, nowhere else.

Client CPU is what limits a large run (thousands of calls in flight on one core), so the
request's constant parts are built once (`Requests`) and the response is read as raw JSON
with orjson instead of being built into the SDK's typed models, which cost more than the
whole rest of a call's bookkeeping.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import anthropic
import httpx2
import orjson

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Inputs, Prices, RunSpec, Trial, TrialKey, Usage
from activation.trials.backend import request_digest, shown_url
from activation.trials.classifier.answer import Unanswered, parse_answer
from activation.trials.classifier.prompt import Requests

_UNREACHABLE = (httpx2.ConnectError, httpx2.UnsupportedProtocol)
KIND = "messages-api"
"""The backend kind in Stage A's cache keys (batches ask the same, so they share it)."""


SENT = Usage(requests=1)
"""The usage of a request that brought no answer back."""


@dataclass(frozen=True)
class Asked:
    """What one request brought: the skills chosen, or why there are none (`final`: a failed
    request, not worth asking again; otherwise an unusable answer, asked again once)."""

    usage: Usage
    chosen: tuple[str, ...] | None = None
    problem: str = ""
    final: bool = False


def refused(error: anthropic.APIStatusError) -> AuthError:
    return AuthError(
        f"the API refused the credentials (HTTP {error.status_code}); check ANTHROPIC_API_KEY"
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
    cost = None if prices is None else prices.cost(tokens, discount)
    return Usage(
        tokens.requests,
        tokens.input_tokens,
        tokens.output_tokens,
        cost,
        tokens.cache_write_tokens,
        tokens.cache_read_tokens,
    )


class ClassifierBackend:
    """The Stage A backend over one shared `AsyncAnthropic` client."""

    def __init__(self, spec: RunSpec, inputs: Inputs) -> None:
        self.model = spec.model or _config.MODEL
        self.prices = spec.pricing.for_model(self.model) if spec.pricing else None
        self.target_id = inputs.target.skill_id
        self.requests = Requests.for_run(spec, inputs)
        self._client: anthropic.AsyncAnthropic | None = None

    async def __aenter__(self) -> Self:
        self._client = anthropic.AsyncAnthropic(
            max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def cache_key(self, key: TrialKey) -> str:
        """The trial's cache key, from the very request `run` sends."""
        return request_digest(KIND, self.requests.request(key), key)

    def read(self, message: Mapping[str, Any], usage: Usage) -> Asked:
        """The skills a response chose, or why it holds no usable answer."""
        try:
            chosen = parse_answer(
                message.get("content") or [], message.get("stop_reason"), self.requests.names
            )
        except Unanswered as error:
            return Asked(usage, problem=str(error))
        return Asked(usage, chosen=chosen)

    async def ask(self, key: TrialKey, request: dict[str, Any], attempt: int) -> Asked:
        """One request to the Messages API and what came of it."""
        assert self._client is not None, "enter the backend before running trials"
        try:
            raw = await self._client.messages.with_raw_response.create(**request)
            message = orjson.loads(await raw.read())
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
            raise refused(error) from None
        except anthropic.APIStatusError as error:
            return Asked(SENT, problem=f"API error HTTP {error.status_code}", final=True)
        except anthropic.APIConnectionError as error:
            if isinstance(error.__cause__, _UNREACHABLE):
                raise ApiUnreachable(
                    f"cannot reach {shown_url(self._client.base_url)} "
                    "(check ANTHROPIC_BASE_URL and the network)"
                ) from None
            kind = "timed out" if isinstance(error, anthropic.APITimeoutError) else "failed"
            return Asked(SENT, problem=f"connection {kind}", final=True)
        except orjson.JSONDecodeError:
            return Asked(SENT, problem="the response is not JSON")
        return self.read(message, message_usage(message, self.prices))

    async def run(self, key: TrialKey) -> Trial:
        """Ask; an unusable answer is asked again once, a failed request is an error trial."""
        request = self.requests.request(key)
        usage = Usage()
        problem = ""
        for attempt in range(2):
            asked = await self.ask(key, request, attempt)
            usage += asked.usage
            if asked.chosen is not None:
                chosen = ", ".join(asked.chosen) or "nothing"
                activated = self.target_id in asked.chosen
                return Trial(key, activated, evidence=f"chose {chosen}", usage=usage)
            if asked.final:
                return Trial(key, None, error=asked.problem, usage=usage)
            problem = asked.problem
        return Trial(key, None, error=f"unusable answer after a re-ask ({problem})", usage=usage)
