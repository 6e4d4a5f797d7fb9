"""Anthropic's models (a bare `--model` id): the Messages API through the `anthropic` SDK
(trials/classifier/messages.py), one by one or in Message Batches, with the free
token-counting endpoint for a dry run's estimate (trials/classifier/tokens.py). The SDK
reads the key and the base URL from the environment itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from activation._models import ModelRef, Prices
from activation.trials.classifier.provider import Provider as Asker
from activation.trials.providers import ModelProvider, Uncounted, needs_id

KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
URL = "ANTHROPIC_BASE_URL"


class Anthropic:
    name = "anthropic"
    key_variables: tuple[str, ...] = KEYS
    default_url: str | None = "https://api.anthropic.com"
    api = "messages"
    url_variable: str | None = URL
    batches = True
    free: str | None = None
    proposes = True

    def check(self, model: ModelRef) -> None:
        needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        from activation.trials import api_check

        if calls:
            api_check.require_key(KEYS)
            api_check.check_reachable(URL)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        """Counted by the API; a set base URL that cannot be reached is found with one
        connection first, not after the SDK's retries of every count (seconds of backoff)."""
        import anyio

        from activation._errors import ApiUnreachable
        from activation.trials import api_check

        if not api_check.has_key(KEYS):
            raise Uncounted("no API key to count with")
        try:
            api_check.check_reachable(URL)
        except ApiUnreachable:
            raise Uncounted("token counting failed (the API could not be reached)") from None
        from activation.trials.classifier.tokens import count_input_tokens, counting_failed

        try:
            return anyio.run(count_input_tokens, requests, limit)
        except Exception as error:
            why = counting_failed(error)
            if why is None:
                raise
            raise Uncounted(f"token counting failed ({why})") from None

    def notice(self) -> str | None:
        return None

    def asker(self, prices: Prices | None) -> Asker:
        from activation.trials.classifier.messages import MessagesAPI

        return MessagesAPI(prices)


PROVIDER: ModelProvider = Anthropic()
