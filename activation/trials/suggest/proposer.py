"""The proposer: one request asking a model for new descriptions of a skill, as a
structured answer (a JSON-schema output holding a list of strings).

It is one `call` (trials/providers/asking.py), as every model call is: the same provider
clients as Stage A's requests (the SDKs, their retries, refused credentials and an
unreachable API stopping the run), one re-ask of an unusable answer, and the answer kept in
the response cache under the one request hasher's digest of the exact request, so a rerun
of `suggest` asks nothing it asked before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from activation._models import Prices, Usage
from activation.trials.backend import request_digest
from activation.trials.cache import Store
from activation.trials.providers import provider_of
from activation.trials.providers.asking import Kept, Unanswered, answer_payload, call

SCHEMA = {
    "type": "object",
    "properties": {"descriptions": {"type": "array", "items": {"type": "string"}}},
    "required": ["descriptions"],
    "additionalProperties": False,
}
KIND = "suggest-proposer"


@dataclass(frozen=True)
class Proposed:
    """What one proposer request brought: the descriptions, or why there are none."""

    descriptions: tuple[str, ...]
    usage: Usage
    problem: str | None = None
    cached: bool = False


def proposer_request(model: str, instructions: str, max_tokens: int) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": instructions}],
        "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
    }


def parse_proposals(message: Mapping[str, Any]) -> tuple[str, ...]:
    """The proposed descriptions; a refusal or a truncated answer is no answer."""
    if message.get("stop_reason") in ("refusal", "max_tokens"):
        raise Unanswered(f"stop reason {message.get('stop_reason')}")
    data = answer_payload(message.get("content") or ())
    found = data.get("descriptions") if isinstance(data, dict) else None
    if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
        raise Unanswered("no 'descriptions' list")
    return tuple(dict.fromkeys(item.strip() for item in found))


def kept_proposals(value: object) -> tuple[str, ...] | None:
    """Proposals as the cache holds them; None for an entry that holds none."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return tuple(value)


async def propose(request: dict[str, Any], prices: Prices | None, store: Store | None) -> Proposed:
    """The proposals for `request`, from the cache when an earlier run asked it; asked once
    more when the answer cannot be read."""
    kept = None
    if store is not None:
        kept = Kept(store, request_digest(KIND, request), "descriptions", kept_proposals, list)
    async with provider_of(str(request["model"]))[1].asker(prices) as asker:
        answer = await call(asker, request, parse_proposals, kept=kept)
    if answer.cached:
        return Proposed(answer.value or (), replace(answer.usage, from_cache=1), cached=True)
    if answer.value is None:
        return Proposed((), answer.usage, answer.problem)
    return Proposed(answer.value, answer.usage)
