"""The proposer: one request asking a model for new descriptions of a skill, as a
structured answer (a JSON-schema output holding a list of strings).

It goes through the same provider clients as Stage A's requests (trials/providers: the
SDKs, their retries, refused credentials and an unreachable API stopping the run). Its
answer is kept in the response cache under a digest of the exact request, so a rerun of
`suggest` asks nothing it asked before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import orjson

from activation._models import Prices, Usage
from activation.trials.classifier.answer import Unanswered, answer_payload
from activation.trials.classifier.provider import Provider
from activation.trials.providers import provider_of

SCHEMA = {
    "type": "object",
    "properties": {"descriptions": {"type": "array", "items": {"type": "string"}}},
    "required": ["descriptions"],
    "additionalProperties": False,
}
KIND = "suggest-proposer"


class Store(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, trial: Mapping[str, Any]) -> None: ...


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


def provider_for(model: str, prices: Prices | None) -> Provider:
    """The client that asks `model`, imported only then (each imports its SDK)."""
    return provider_of(model)[1].asker(prices)


def request_key(request: Mapping[str, Any]) -> str:
    body = {"kind": KIND, "request": request}
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


async def propose(request: dict[str, Any], prices: Prices | None, store: Store | None) -> Proposed:
    """The proposals for `request`, from the cache when an earlier run asked it; asked once
    more when the answer cannot be read."""
    key = request_key(request)
    kept = store.get(key) if store is not None else None
    if kept is not None and isinstance(kept.get("descriptions"), list):
        return Proposed(tuple(kept["descriptions"]), Usage(cost_usd=0.0, from_cache=1),
                        cached=True)  # fmt: skip
    spent = Usage()
    problem = "no answer"
    async with provider_for(str(request["model"]), prices) as api:
        for _attempt in range(2):
            reply = await api.ask(request, lambda _sent_at: None)
            spent += reply.usage
            if reply.message is None:
                problem = reply.problem
                if not reply.again:
                    break
                continue
            try:
                found = parse_proposals(reply.message)
            except Unanswered as error:
                problem = f"unusable answer ({error})"
                continue
            if store is not None:
                store.put(key, {"descriptions": list(found), "usage": asdict(spent)})
            return Proposed(found, spent)
    return Proposed((), spent, problem)
