"""The mock model (`--model mock`): offline, keyless and free (trials/classifier/mock.py).
It answers Stage A's requests only: it proposes no descriptions, and has no batches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from activation._errors import InputError
from activation._models import ModelRef, Prices
from activation.trials.classifier import mock
from activation.trials.classifier.provider import Provider as Asker
from activation.trials.providers import NO_COUNTING, ModelProvider, Uncounted


class Mock:
    name = "mock"
    key_variables: tuple[str, ...] = ()
    default_url: str | None = None
    api = "none"
    url_variable: str | None = None
    batches = False
    free: str | None = "the mock model is free"
    proposes = False

    def check(self, model: ModelRef) -> None:
        if model.id != mock.MODEL:
            raise InputError(f"--model mock:{model.id}: the mock has one model: pass --model mock")

    def preflight(self, *, calls: bool) -> None:
        return None

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return mock.NOTICE

    def asker(self, prices: Prices | None) -> Asker:
        return mock.MockModel()


PROVIDER: ModelProvider = Mock()
