"""Stage A, the classifier: a model asked which skills of the agent's menu it would invoke.

Its requests go to the Messages API (one by one, or in Message Batches with `--batch`), with
`--model openai:<id>` to OpenAI's Responses API, or with `--model mock` to the offline mock
model. Nothing heavy is imported here: the SDK comes with the backend that uses it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from activation import _config, state
from activation._errors import InputError
from activation._models import FLAGGED, Inputs, RunOutcome, RunSpec, VariantName
from activation.inputs.identity import run_identity
from activation.trials import api_check
from activation.trials.agents import agent_named
from activation.trials.backend import Backend
from activation.trials.classifier import mock
from activation.trials.classifier.prompt import Requests, system_text
from activation.trials.listing.model import Listing
from activation.trials.stage import CostEstimate, Say, priced

CHARS = "estimated from characters / 4"
COUNTED = "counted by the token-counting endpoint"


def chars_tokens(request: Mapping[str, Any]) -> int:
    """Input tokens estimated from characters (about 4 a token), without any call."""
    text = system_text(request) + "".join(
        str(message.get("content", "")) for message in request.get("messages", ())
    )
    return len(text) // 4


def is_mock(spec: RunSpec) -> bool:
    return spec.model == mock.MODEL


def is_openai(spec: RunSpec) -> bool:
    """An OpenAI model, asked through the Responses API."""
    return (spec.model or "").startswith(_config.OPENAI_PREFIX)


class ClassifierStage:
    name = "A"
    noun = "model call"
    flags: tuple[str, ...] = ()
    confirmed_by: tuple[str, ...] | None = ("--real",)

    def configure(self, spec: RunSpec) -> RunSpec:
        model = spec.model or _config.MODEL
        if spec.batch and model == mock.MODEL:
            raise InputError("--batch is for the Messages API: the mock model answers at once")
        if model == _config.OPENAI_PREFIX:
            raise InputError("--model openai: names no model: pass --model openai:<id>")
        if spec.batch and model.startswith(_config.OPENAI_PREFIX):
            raise InputError("--batch is for the Messages API: an openai: model is asked at once")
        if spec.batch:
            # A batch holds a whole round; only the API's limit on a batch's size bounds it.
            return replace(spec, model=model, concurrency=_config.BATCH_MAX_REQUESTS,
                           max_concurrency=None)  # fmt: skip
        if spec.concurrency is not None:
            return replace(spec, model=model)
        ceiling = spec.max_concurrency or _config.MAX_CONCURRENCY
        start = min(_config.CONCURRENCY, ceiling)
        return replace(spec, model=model, concurrency=start, max_concurrency=ceiling)

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        if is_openai(spec):
            api_check.require_openai_sdk()
            if calls:
                api_check.require_openai_credentials()
                api_check.check_reachable(api_check.OPENAI_URL)
        elif calls and not is_mock(spec):
            api_check.require_credentials()
            api_check.check_reachable()
        return spec

    def open(self, spec: RunSpec, inputs: Inputs) -> Backend:
        requests = Requests.for_run(spec, inputs)
        target_id = inputs.target.skill_id
        if is_mock(spec):
            from activation.trials.classifier.backend import ClassifierBackend

            return ClassifierBackend(requests, mock.MockModel(), target_id)
        if spec.batch:
            from activation.trials.classifier.batch import BatchBackend

            identity = spec.shard.fingerprint if spec.shard else run_identity(spec, inputs)
            run_key = f"{identity}-{spec.shard.index}" if spec.shard else identity
            return BatchBackend(
                requests, target_id, spec.prices, inputs.target.repo, run_key, spec.resume
            )
        from activation.trials.classifier.backend import ClassifierBackend

        if is_openai(spec):
            from activation.trials.classifier.responses import ResponsesAPI

            return ClassifierBackend(requests, ResponsesAPI(spec.prices), target_id)
        from activation.trials.classifier.messages import MessagesAPI

        return ClassifierBackend(requests, MessagesAPI(spec.prices), target_id)

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        """Input tokens of every case's first request (later trials differ only in the
        menu's order), counted by the API when `count` and a key allow, else (always for
        an OpenAI model) from characters; the answer is assumed to be short."""
        made = Requests.for_run(spec, inputs)
        requests = made.first_requests(inputs.cases)
        discount = _config.BATCH_DISCOUNT if spec.batch else 1.0
        output = _config.STAGE_A_OUTPUT_ESTIMATE
        if is_mock(spec):
            return CostEstimate(
                "the mock model reads no tokens", "the mock model's price: nothing", 0, 0, 0.0,
                0.0, 0.0,
            )  # fmt: skip
        tokens, how = None, CHARS
        if count and is_openai(spec):
            how = f"{CHARS}: the token-counting endpoint is Anthropic's"
        elif count and api_check.has_credentials():
            tokens, how = self._count(spec, requests)
        elif count:
            how = f"{CHARS}: no API key to count with"
        counted = tokens or [chars_tokens(request) for request in requests]
        mean = sum(counted) / len(counted) if counted else 0.0
        share = [len(system_text(r)) / max(1, chars_tokens(r) * 4) for r in requests]
        prefix = min(1.0, sum(share) / len(share) if share else 0.0) * mean
        if spec.batch or prefix < _config.CACHE_MIN_TOKENS:
            # too short for the API to cache, or a batch (its cache hits are best effort)
            return priced(spec, inputs, how, mean, output, discount)
        return priced(spec, inputs, how, mean, output, discount, prefix, made.prefixes())

    @staticmethod
    def _count(spec: RunSpec, requests: list[dict[str, Any]]) -> tuple[list[int] | None, str]:
        import anyio

        from activation.trials.classifier.tokens import count_input_tokens, counting_failed

        try:
            limit = spec.max_concurrency or spec.concurrency or _config.CONCURRENCY
            return anyio.run(count_input_tokens, requests, limit), COUNTED
        except Exception as error:
            why = counting_failed(error)
            if why is None:
                raise
            return None, f"{CHARS}: token counting failed ({why})"

    def cost_basis(self, spec: RunSpec) -> str | None:
        if is_mock(spec):
            return "the mock model is free"
        if spec.pricing is None:
            return None
        batch = " at the batch discount" if spec.batch else ""
        return f"list prices of {spec.pricing.date}{batch}"

    def notice(self, spec: RunSpec) -> str | None:
        return mock.NOTICE if is_mock(spec) else None

    def plan(self, spec: RunSpec, inputs: Inputs) -> list[str]:
        shown = self.listings(spec, inputs)["candidate"]
        by_source = Counter(entry.source for entry in shown.entries)
        siblings = len(inputs.candidate.siblings)
        return [
            f"listing: {inputs.target.skill_id}, {siblings} sibling(s), "
            f"{len(inputs.distractors)} distractor(s), {len(inputs.catalog)} catalog skill(s), "
            f"{by_source['builtin']} of {agent_named(spec.coding_agent).title}'s own "
            f"({shown.size_text}), in {len(Requests.for_run(spec, inputs).orders)} orders",
            "an unusable answer is asked again once",
        ]

    def listings(self, spec: RunSpec, inputs: Inputs) -> Mapping[VariantName, Listing]:
        return Requests.for_run(spec, inputs).listings

    def select(self, inputs: Inputs, say: Say) -> Inputs:
        return inputs

    def remember(self, outcomes: Sequence[RunOutcome]) -> None:
        """What Stage A flagged in any cell, for a later `--real` on the same two
        descriptions."""
        if not outcomes or any(outcome.interrupted for outcome in outcomes):
            return
        first = outcomes[0]
        ran = [verdict.id for outcome in outcomes for verdict in outcome.verdicts]
        flagged = [case_id for outcome in outcomes for case_id in outcome.ids_with(*FLAGGED)]
        state.record_flagged(
            first.inputs.target.repo,
            state.pair_key(first.inputs),
            list(dict.fromkeys(ran)),
            list(dict.fromkeys(flagged)),
            ",".join(dict.fromkeys(outcome.spec.model or "" for outcome in outcomes)),
        )


STAGE = ClassifierStage()
