"""The mock model (`--model mock`): Stage A offline, with no key, in the blink of an eye.

It answers the very request a real model would get, in the Messages API's shape, so the
whole pipeline runs (the menu, the structured answer and its parsing, the cache, every
verdict, report and exit code). Its rule is plain word overlap: it picks the menu entry that
shares the most content words with the prompt (the words `lint` counts: not stop words),
when it shares at least MIN_SHARED of them; on a tie, the entry listed first in this trial's
menu order, which is shuffled per trial, so a tied case can come out unstable. The verdicts
say how a description's words meet the prompts' words, and nothing about any real agent:
every output says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import orjson

from activation._models import Usage
from activation.inputs.words import content_words
from activation.trials.classifier.prompt import menu_entries, system_text, user_prompt
from activation.trials.classifier.provider import Reply, Throttled

MODEL = "mock"
KIND = "mock"
MIN_SHARED = 2
NOTICE = (
    "answers from the mock model (word overlap, offline): the verdicts show how the "
    "pipeline works and mean nothing about the real agent"
)


def choose(prompt: str, entries: list[tuple[str, str]]) -> list[str]:
    """The entry sharing the most content words with the prompt (at least MIN_SHARED)."""
    words = content_words(prompt)
    best, best_shared = None, MIN_SHARED - 1
    for name, description in entries:
        shared = len(words & content_words(f"{name} {description}"))
        if shared > best_shared:
            best, best_shared = name, shared
    return [] if best is None else [best]


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    chosen = choose(user_prompt(request), menu_entries(system_text(request)))
    return {
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": orjson.dumps({"skills": chosen}).decode()}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


class MockModel:
    kind = KIND

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        return Reply(Usage(requests=1, cost_usd=0.0), message=answer(request))
