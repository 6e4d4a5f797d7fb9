"""Stage A's backend: ask a model, as a classifier, which skills of a menu it would invoke.

The answer is a JSON-schema structured output (models that think by default reject forced
tool calls). A response that holds no usable answer is asked again once, then the trial is
an error; so is a request that failed (the provider says why). The batch backend beside it
asks the same requests in Message Batches and reads them the same way (`read`, `chose`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Self

from activation._models import Trial, TrialKey, Usage
from activation.trials.backend import Round, request_digest
from activation.trials.classifier.answer import Unanswered, parse_answer
from activation.trials.classifier.prompt import Requests
from activation.trials.classifier.provider import Provider, Throttled


def read(message: Mapping[str, Any], names: tuple[str, ...]) -> tuple[tuple[str, ...] | None, str]:
    """The skills a response chose, or (None, why it holds no usable answer)."""
    try:
        return parse_answer(message.get("content") or [], message.get("stop_reason"), names), ""
    except Unanswered as error:
        return None, str(error)


def chose(key: TrialKey, target_id: str, chosen: tuple[str, ...], usage: Usage) -> Trial:
    """The trial the model's answer makes: the skills it chose, in its order."""
    return key.fired(chosen, target_id, f"chose {', '.join(chosen) or 'nothing'}", usage)


def unusable(key: TrialKey, problem: str, usage: Usage) -> Trial:
    return key.failed(f"unusable answer after a re-ask ({problem})", usage)


class ClassifierBackend:
    """The Stage A backend over one provider (the Messages API, or the mock)."""

    def __init__(self, requests: Requests, provider: Provider, target_id: str) -> None:
        self.requests = requests
        self.provider = provider
        self.target_id = target_id

    async def __aenter__(self) -> Self:
        await self.provider.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.provider.__aexit__(*exc_info)

    def cache_key(self, key: TrialKey) -> str:
        """The trial's cache key, from the very request `run` sends."""
        return request_digest(self.provider.kind, self.requests.request(key), key)

    async def run_round(self, round: Round) -> None:
        await round.each(partial(self.run, throttled=round.slots.throttled))

    async def run(self, key: TrialKey, throttled: Throttled = lambda _sent: None) -> Trial:
        request = self.requests.request(key)
        usage = Usage()
        problem = ""
        for _attempt in range(2):
            reply = await self.provider.ask(request, throttled)
            usage += reply.usage
            if reply.message is None:
                if not reply.again:
                    return key.failed(reply.problem, usage)
                problem = reply.problem
                continue
            chosen, problem = read(reply.message, self.requests.names)
            if chosen is not None:
                return chose(key, self.target_id, self.requests.ids_of(chosen), usage)
        return unusable(key, problem, usage)
