"""Stage A's backend: ask a model, as a classifier, which skills of a menu it would invoke.

The answer is a JSON-schema structured output (models that think by default reject forced
tool calls). The SDK retries 408/409/429/5xx itself, honouring `retry-after`; what still
fails after that, or cannot be parsed after one re-ask, becomes an error trial. Refused
credentials and an API that cannot be reached at all stop the run instead: no later trial
could do better. The SDK is imported here and nowhere else.
"""

from __future__ import annotations

from typing import Self

import anthropic
import httpx2

from activation import _config
from activation._errors import ApiUnreachable, AuthError
from activation._models import Inputs, RunSpec, Skill, Trial, TrialKey, Usage
from activation.trials.backend import shown_url
from activation.trials.classifier.answer import Unanswered, parse_answer
from activation.trials.classifier.prompt import (
    answer_schema,
    build_menu,
    permutation,
    system_prompt,
)

_UNREACHABLE = (httpx2.ConnectError, httpx2.UnsupportedProtocol)


class ClassifierBackend:
    """The Stage A backend over one shared `AsyncAnthropic` client."""

    def __init__(self, spec: RunSpec, inputs: Inputs) -> None:
        self.model = spec.model or _config.MODEL
        self.seed = spec.seed
        self.target_id = inputs.target.skill_id
        self.descriptions = {
            "baseline": inputs.baseline.description,
            "candidate": inputs.candidate.description,
        }
        self.distractors = inputs.distractors
        self._client: anthropic.AsyncAnthropic | None = None

    async def __aenter__(self) -> Self:
        self._client = anthropic.AsyncAnthropic(
            max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def menu(self, key: TrialKey) -> tuple[Skill, ...]:
        target = Skill(self.target_id, self.descriptions[key.variant])
        order = permutation(self.seed, key.case.id, key.index, len(self.distractors) + 1)
        return build_menu(target, self.distractors, order)

    async def run(self, key: TrialKey) -> Trial:
        assert self._client is not None, "enter the backend before running trials"
        menu = self.menu(key)
        names = [entry.name for entry in menu]
        request = {
            "model": self.model,
            "max_tokens": _config.MAX_TOKENS,
            "system": system_prompt(menu),
            "messages": [{"role": "user", "content": key.case.prompt}],
            "output_config": {"format": {"type": "json_schema", "schema": answer_schema(names)}},
        }
        usage = Usage()
        problem = ""
        for _attempt in range(2):
            try:
                response = await self._client.messages.create(**request)
            except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
                raise AuthError(
                    f"the API refused the credentials (HTTP {error.status_code}); "
                    "check ANTHROPIC_API_KEY"
                ) from None
            except anthropic.APIStatusError as error:
                usage += Usage(requests=1)
                return Trial(key, None, error=f"API error HTTP {error.status_code}", usage=usage)
            except anthropic.APIConnectionError as error:
                if isinstance(error.__cause__, _UNREACHABLE):
                    raise ApiUnreachable(
                        f"cannot reach {shown_url(self._client.base_url)} "
                        "(check ANTHROPIC_BASE_URL and the network)"
                    ) from None
                usage += Usage(requests=1)
                kind = "timed out" if isinstance(error, anthropic.APITimeoutError) else "failed"
                return Trial(key, None, error=f"connection {kind}", usage=usage)
            usage += Usage(1, response.usage.input_tokens, response.usage.output_tokens)
            try:
                chosen = parse_answer(
                    [block.model_dump() for block in response.content],
                    response.stop_reason,
                    names,
                )
            except Unanswered as error:
                problem = str(error)
                continue
            activated = self.target_id in chosen
            evidence = f"chose {', '.join(chosen) if chosen else 'nothing'}"
            return Trial(key, activated, evidence=evidence, usage=usage)
        return Trial(key, None, error=f"unusable answer after a re-ask ({problem})", usage=usage)
