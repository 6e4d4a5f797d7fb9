"""Google's Gemini models (`--model google:<id>`): the Gemini API through Google's official
`google-genai` SDK (the `activation[google]` extra; trials/classifier/genai.py), for Stage A
and as Gemini CLI's model. One request at a time: no batches, and no token counting (a dry
run estimates from characters). The SDK reads the key (GEMINI_API_KEY, or GOOGLE_API_KEY
before it) and the base URL (GOOGLE_GEMINI_BASE_URL) from the environment itself, and so
does Gemini CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from activation._models import ModelRef, Prices
from activation.trials.classifier.provider import Provider as Asker
from activation.trials.providers import NO_COUNTING, ModelProvider, Uncounted, needs_id

KEY = "GEMINI_API_KEY"
OTHER_KEY = "GOOGLE_API_KEY"
URL = "GOOGLE_GEMINI_BASE_URL"
WHOM = "a google: model"


class Google:
    name = "google"
    key_variables: tuple[str, ...] = (KEY, OTHER_KEY)
    default_url: str | None = "https://generativelanguage.googleapis.com"
    api = "generate-content"
    url_variable: str | None = URL
    batches = False
    free: str | None = None
    proposes = True

    def check(self, model: ModelRef) -> None:
        needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        from activation.trials import api_check

        api_check.require_package("google.genai", "google", WHOM)
        if calls:
            api_check.require_key(self.key_variables, f" for {WHOM}")
            api_check.check_reachable(URL)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return None

    def asker(self, prices: Prices | None) -> Asker:
        from activation.trials.classifier.genai import GenerateContent

        return GenerateContent(prices)


PROVIDER: ModelProvider = Google()
