"""A model on a local OpenAI-compatible server (`--model openai-compatible:<id>`: vLLM,
llama.cpp's server), the record and the client together: asked through the `openai` SDK's
Chat Completions (the `skill-activation[openai]` extra) with a JSON-schema answer. The server's
address is a setting of its own (its OpenAI base URL, with its `/v1`), and so is its key,
which such servers rarely ask for. Its cost is unknown unless `--price-in`/`--price-out`
give one; no batches, no counting.

As openai.py does for OpenAI's own API, it translates the Messages API request every
provider gets (the system text a system message, the case prompt a user message, the
answer's JSON schema a `response_format`) and the response back into the Messages API's
shape. The client, its retries and 429 counting, and how a failure is told are openai.py's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from activation import _config
from activation._errors import InputError
from activation._models import Prices, Usage
from activation.trials.classifier.prompt import system_text, user_prompt
from activation.trials.providers import ModelProvider, PricedModels, parse_model
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, SharedClient
from activation.trials.providers.openai import FORMAT_NAME, answered, client, counted_usage

if TYPE_CHECKING:
    import openai

KEY = "ACTIVATION_OPENAI_COMPATIBLE_API_KEY"
URL = "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL"
WHOM = "an openai-compatible: model"
NOTICE = (
    "answers from an OpenAI-compatible server: such a server may cut a prompt longer than "
    "its context window without an error, and its model then answers what is left"
)
KIND = "openai-compatible-chat"
"""The provider kind in Stage A's cache keys."""
STOP_REASONS = {"length": "max_tokens", "content_filter": "refusal"}
"""A choice's `finish_reason` as the Messages API's stop reason (any other: the end)."""


def chat_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The Chat Completions request that asks what a Messages API request asks: a
    structured answer when it asks for one (Stage A, a judge), else plain text (Stage C's
    `llm` arm)."""
    asked: dict[str, Any] = {
        "model": parse_model(str(request["model"])).id,
        "messages": [
            {"role": "system", "content": system_text(request)},
            {"role": "user", "content": user_prompt(request)},
        ],
        "max_tokens": request["max_tokens"],
    }
    if "output_config" in request:
        schema = request["output_config"]["format"]["schema"]
        answer = {"name": FORMAT_NAME, "schema": schema, "strict": True}
        asked["response_format"] = {"type": "json_schema", "json_schema": answer}
    return asked


def message_of(completion: Mapping[str, Any]) -> dict[str, Any]:
    """A chat completion as a Messages API body: its first choice's text as a text block
    (a reasoning server's separate reasoning skipped), and its stop reason."""
    choices = completion.get("choices") or [{}]
    choice = choices[0]
    message = choice.get("message") or {}
    text = message.get("content")
    refused = bool(message.get("refusal"))
    reason = "refusal" if refused else STOP_REASONS.get(str(choice.get("finish_reason")))
    return {
        "type": "message",
        "role": "assistant",
        "model": completion.get("model"),
        "content": [{"type": "text", "text": str(text)}] if text else [],
        "stop_reason": reason or "end_turn",
    }


def completion_usage(completion: Mapping[str, Any], prices: Prices | None) -> Usage:
    """One completion's tokens and their cost (unknown without prices: a local model has
    none unless given). Cached prompt tokens, when the server says, are cache reads."""
    names = ("prompt_tokens", "completion_tokens", "prompt_tokens_details")
    return counted_usage(completion.get("usage") or {}, names, prices)


class ChatCompletions(SharedClient["openai.AsyncOpenAI"]):
    """Stage A's requests over one shared `AsyncOpenAI` client at the server's address."""

    kind = KIND

    def client(self) -> openai.AsyncOpenAI:
        key = os.environ.get(KEY) or _config.OPENAI_COMPATIBLE_KEY
        return client(base_url=os.environ.get(URL), api_key=key)

    async def _ask(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> Reply:
        call = client.chat.completions.with_raw_response.create(**chat_request(request))
        return await answered(client, call, self._read, KEY, URL)

    def _read(self, completion: Mapping[str, Any]) -> Reply:
        return Reply(completion_usage(completion, self.prices), message=message_of(completion))


class OpenAICompatible(PricedModels):
    name = "openai-compatible"
    key_variables: tuple[str, ...] = (KEY,)
    default_url: str | None = None
    api = "chat-completions"
    url_variable: str | None = URL
    sdk = ("openai", "openai")
    whom = WHOM

    def require_credentials(self) -> None:
        """A base URL (its key is optional: a local server may want none)."""
        if not os.environ.get(URL):
            raise InputError(f"no base URL: set {URL} for {WHOM} (--dry-run needs none)")

    def notice(self) -> str | None:
        return NOTICE

    def asker(self, prices: Prices | None) -> Asker:
        return ChatCompletions(prices)


PROVIDER: ModelProvider = OpenAICompatible()
