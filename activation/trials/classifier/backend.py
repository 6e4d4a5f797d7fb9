"""Stage A's backend: ask a model, as a classifier, which skills of a menu it would invoke.

The answer is a JSON-schema structured output (models that think by default reject forced
tool calls). Each trial is one `call` (trials/providers/asking.py): a response that holds no
usable answer is asked again once, then the trial is an error; so is a request that failed
(the provider says why). The batch backend beside it asks the same requests in Message
Batches through the same `call`, and makes its trials the same way (`trial_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from activation._models import ErrorClass, Trial, TrialKey
from activation.trials.backend import Round, Wrapper, request_digest
from activation.trials.classifier.answer import parse_answer
from activation.trials.classifier.prompt import Requests
from activation.trials.providers.asking import Answer, Provider, Throttled, call, ignored


def chosen(message: Mapping[str, Any], names: Sequence[str]) -> tuple[str, ...]:
    """The skills a response chose; Unanswered when it holds no usable answer."""
    return parse_answer(message.get("content") or [], message.get("stop_reason"), names)


def trial_of(key: TrialKey, requests: Requests, target_id: str,
             answer: Answer[tuple[str, ...]]) -> Trial:  # fmt: skip
    """The trial a call made: the skills the model chose, in its order, or why none (the
    model's error: the API failed after its retries, or the answer was unusable)."""
    if answer.value is None:
        return key.failed(answer.problem, answer.usage, kind=ErrorClass.MODEL)
    names = requests.ids_of(answer.value)
    return key.fired(names, target_id, f"chose {', '.join(names) or 'nothing'}", answer.usage)


class ClassifierBackend(Wrapper[Provider]):
    """The Stage A backend over one provider (`inner`: the Messages API, or the mock)."""

    def __init__(self, requests: Requests, provider: Provider, target_id: str) -> None:
        super().__init__(provider)
        self.requests = requests
        self.target_id = target_id

    def cache_key(self, key: TrialKey) -> str:
        """The trial's cache key, from the very request `run` sends."""
        return request_digest(self.inner.kind, self.requests.request(key), key)

    async def run_round(self, round: Round) -> None:
        await round.each(partial(self.run, throttled=round.slots.throttled))

    async def run(self, key: TrialKey, throttled: Throttled = ignored) -> Trial:
        read = partial(chosen, names=self.requests.names)
        answer = await call(self.inner, self.requests.request(key), read, throttled=throttled)
        return trial_of(key, self.requests, self.target_id, answer)
