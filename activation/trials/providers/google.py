"""Google's Gemini models (`--model google:<id>`), the record and the client together: the
Gemini API through Google's official `google-genai` SDK (the `skill-activation[google]` extra),
imported only when a client is made or a request built; for Stage A and as Gemini CLI's
model. One request at a time: no batches, and no token counting (a dry run estimates from
characters). The SDK reads the key (GEMINI_API_KEY, or GOOGLE_API_KEY before it) and the
base URL (GOOGLE_GEMINI_BASE_URL) from the environment itself, and so does Gemini CLI.

As openai.py does for OpenAI's API, it translates the Messages API request every provider
gets (the system text a `system_instruction`, the case prompt the contents, the answer's
JSON schema a `response_json_schema` with `application/json` answers) and the response back
into the Messages API's shape, so `answer.py` reads it as it reads Claude's. Errors go as on
the Messages API: refused credentials (401, 403, or the API's 400 `API_KEY_INVALID`) and an
unreachable API stop the run, any other failure fails the trial. The SDK retries 408, 429
and 5xx itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Prices, Usage
from activation.trials.backend import shown_url
from activation.trials.classifier.prompt import system_text, user_prompt
from activation.trials.providers import ModelProvider, PricedModels, parse_model
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, SharedClient

if TYPE_CHECKING:
    from google.genai import errors

KEY = "GEMINI_API_KEY"
OTHER_KEY = "GOOGLE_API_KEY"
URL = "GOOGLE_GEMINI_BASE_URL"
WHOM = "a google: model"
KIND = "google-genai"
"""The provider kind in Stage A's cache keys."""
SENT = Usage(requests=1)
"""The usage of a request that brought no answer back."""
AUTH_STATUSES = (401, 403)
BAD_KEY = "API_KEY_INVALID"
STOP_REASONS = {"MAX_TOKENS": "max_tokens", "SAFETY": "refusal", "PROHIBITED_CONTENT": "refusal",
                "BLOCKLIST": "refusal", "RECITATION": "refusal"}  # fmt: skip
"""A candidate's `finishReason` as the Messages API's stop reason (any other: the end)."""


def generate_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The `generate_content` arguments that ask what a Messages API request asks: a JSON
    answer to its schema, or (no schema: the `llm` arm) plain text."""
    from google.genai import types

    answer: dict[str, Any] = {}
    if "output_config" in request:
        schema = request["output_config"]["format"]["schema"]
        answer = {"response_mime_type": "application/json", "response_json_schema": schema}
    config = types.GenerateContentConfig(
        system_instruction=system_text(request),
        max_output_tokens=request["max_tokens"],
        **answer,
    )
    return {
        "model": parse_model(str(request["model"])).id,
        "contents": user_prompt(request),
        "config": config,
    }


def message_of(response: Mapping[str, Any]) -> dict[str, Any]:
    """A `generateContent` response as a Messages API body: the first candidate's text parts
    (thoughts skipped) as text blocks, and its stop reason (a blocked prompt: a refusal)."""
    candidates = response.get("candidates") or [{}]
    candidate = candidates[0]
    parts = (candidate.get("content") or {}).get("parts") or ()
    content = [
        {"type": "text", "text": str(part["text"])}
        for part in parts
        if "text" in part and not part.get("thought")
    ]
    blocked = bool((response.get("promptFeedback") or {}).get("blockReason"))
    reason = "refusal" if blocked else STOP_REASONS.get(str(candidate.get("finishReason")))
    return {
        "type": "message",
        "role": "assistant",
        "model": response.get("modelVersion"),
        "content": content,
        "stop_reason": reason or "end_turn",
    }


def response_usage(response: Mapping[str, Any], prices: Prices | None) -> Usage:
    """One response's tokens and their cost (unknown without prices). Gemini counts cached
    tokens within the prompt (here cache reads) and bills thinking as output."""
    usage = response.get("usageMetadata") or {}
    cached = int(usage.get("cachedContentTokenCount") or 0)
    output = int(usage.get("candidatesTokenCount") or 0) + int(usage.get("thoughtsTokenCount") or 0)
    tokens = Usage(
        requests=1,
        input_tokens=int(usage.get("promptTokenCount") or 0) - cached,
        output_tokens=output,
        cache_read_tokens=cached,
    )
    return replace(tokens, cost_usd=None if prices is None else prices.cost(tokens))


class Session:
    """The SDK's client as Stage A uses it (its retries and time-out the run's), closed as
    every provider's client is."""

    def __init__(self) -> None:
        from google import genai
        from google.genai import types

        retry = types.HttpRetryOptions(attempts=_config.API_RETRIES + 1)
        timeout = int(_config.REQUEST_TIMEOUT * 1000)
        self.client = genai.Client(
            http_options=types.HttpOptions(timeout=timeout, retry_options=retry)
        )

    @property
    def base_url(self) -> str:
        return str(self.client._api_client._http_options.base_url or "")

    async def close(self) -> None:
        await self.client.aio.aclose()


def refused(error: errors.APIError) -> bool:
    """Whether the API refused the credentials: 401, 403, or its 400 for a bad key."""
    return error.code in AUTH_STATUSES or BAD_KEY in str(error.details)


class GenerateContent(SharedClient[Session]):
    """Stage A's requests over one shared `genai.Client`."""

    kind = KIND

    def client(self) -> Session:
        return Session()

    async def _ask(self, session: Session, request: dict[str, Any]) -> Reply:
        import httpx
        import httpx2
        from google.genai import errors

        try:
            call = session.client.aio.models.generate_content(**generate_request(request))
            response = await call
        except errors.APIError as error:
            if refused(error):
                raise AuthError(
                    f"the API refused the credentials (HTTP {error.code}); check {KEY}"
                ) from None
            return Reply(SENT, problem=f"API error HTTP {error.code}")
        except (httpx.ConnectError, httpx2.ConnectError):
            raise ApiUnreachable(
                f"cannot reach {shown_url(session.base_url)} (check {URL} and the network)"
            ) from None
        except (httpx.TransportError, httpx2.TransportError) as error:
            kind = "timed out" if "Timeout" in type(error).__name__ else "failed"
            return Reply(SENT, problem=f"connection {kind}")
        body = response.model_dump(mode="json", by_alias=True, exclude_none=True)
        return Reply(response_usage(body, self.prices), message=message_of(body))


class Google(PricedModels):
    name = "google"
    key_variables: tuple[str, ...] = (KEY, OTHER_KEY)
    default_url: str | None = "https://generativelanguage.googleapis.com"
    api = "generate-content"
    url_variable: str | None = URL
    sdk = ("google.genai", "google")
    whom = WHOM

    def asker(self, prices: Prices | None) -> Asker:
        return GenerateContent(prices)


PROVIDER: ModelProvider = Google()
