"""A model on a local OpenAI-compatible server (`--model openai-compatible:<id>`: vLLM,
llama.cpp's server), asked through the `openai` SDK's Chat Completions with a JSON-schema
answer (trials/classifier/chat.py). The server's address is a setting of its own (its
OpenAI base URL, with its `/v1`), and so is its key, which such servers rarely ask for.
Its cost is unknown unless `--price-in`/`--price-out` give one; no batches, no counting.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from activation._errors import InputError
from activation._models import ModelRef, Prices
from activation.trials.classifier.provider import Provider as Asker
from activation.trials.providers import NO_COUNTING, ModelProvider, Uncounted, needs_id

KEY = "ACTIVATION_OPENAI_COMPATIBLE_API_KEY"
URL = "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL"
WHOM = "an openai-compatible: model"
NOTICE = (
    "answers from an OpenAI-compatible server: such a server may cut a prompt longer than "
    "its context window without an error, and its model then answers what is left"
)


class OpenAICompatible:
    name = "openai-compatible"
    key_variables: tuple[str, ...] = (KEY,)
    default_url: str | None = None
    api = "chat-completions"
    url_variable: str | None = URL
    batches = False
    free: str | None = None
    proposes = True

    def check(self, model: ModelRef) -> None:
        needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        from activation.trials import api_check

        api_check.require_package("openai", "openai", WHOM)
        if not calls:
            return
        if not os.environ.get(URL):
            raise InputError(f"no base URL: set {URL} for {WHOM} (--dry-run needs none)")
        api_check.check_reachable(URL)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return NOTICE

    def asker(self, prices: Prices | None) -> Asker:
        from activation.trials.classifier.chat import ChatCompletions

        return ChatCompletions(prices)


PROVIDER: ModelProvider = OpenAICompatible()
