"""OpenAI's models (`--model openai:<id>`): the Responses API through the optional `openai`
SDK (the `activation[openai]` extra; trials/classifier/responses.py). One request at a
time: no batches, and no token counting (a dry run estimates from characters). The SDK
reads the key and the base URL from the environment itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from activation._models import ModelRef, Prices
from activation.trials.classifier.provider import Provider as Asker
from activation.trials.providers import NO_COUNTING, ModelProvider, Uncounted, needs_id

KEY = "OPENAI_API_KEY"
URL = "OPENAI_BASE_URL"
WHOM = "an openai: model"


class OpenAI:
    name = "openai"
    key_variables: tuple[str, ...] = (KEY,)
    default_url: str | None = "https://api.openai.com/v1"
    api = "responses"
    url_variable: str | None = URL
    batches = False
    free: str | None = None
    proposes = True

    def check(self, model: ModelRef) -> None:
        needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        from activation.trials import api_check

        api_check.require_package("openai", "openai", WHOM)
        if calls:
            api_check.require_key((KEY,), f" for {WHOM}")
            api_check.check_reachable(URL)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return None

    def asker(self, prices: Prices | None) -> Asker:
        from activation.trials.classifier.responses import ResponsesAPI

        return ResponsesAPI(prices)


PROVIDER: ModelProvider = OpenAI()
