"""Stage A, the classifier: a model asked which skills of the agent's menu it would invoke.

Its requests go to the model's provider (trials/providers: Anthropic's Messages API, one by
one or in Message Batches with `--batch`, OpenAI's Responses API, an OpenAI-compatible
server, or the offline mock model); what differs between them is asked of the provider.
Nothing heavy is imported here: the SDK comes with the provider's client.
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
from activation.trials.agents import agent_named
from activation.trials.backend import Backend
from activation.trials.cache import Store
from activation.trials.classifier.prompt import Requests, system_text
from activation.trials.listing.model import Listing
from activation.trials.providers import ModelProvider, Uncounted, provider_of
from activation.trials.stage import CostEstimate, Say, price_basis, priced

CHARS = "estimated from characters / 4"
COUNTED = "counted by the token-counting endpoint"


def chars_tokens(request: Mapping[str, Any]) -> int:
    """Input tokens estimated from characters (about 4 a token), without any call."""
    text = system_text(request) + "".join(
        str(message.get("content", "")) for message in request.get("messages", ())
    )
    return len(text) // 4


def provider(spec: RunSpec) -> ModelProvider:
    """The provider of the spec's model (its default before `configure`)."""
    return provider_of(spec.model or _config.MODEL)[1]


class ClassifierStage:
    name = "A"
    noun = "model call"
    flags: tuple[str, ...] = ()
    confirmed_by: tuple[str, ...] | None = ("--real",)

    def configure(self, spec: RunSpec) -> RunSpec:
        model = spec.model or _config.MODEL
        if not provider(spec).batches and spec.batch:
            raise InputError(f"--batch is for the Messages API: --model {model} is asked at once")
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
        provider(spec).preflight(calls=calls)
        return spec

    def open(self, spec: RunSpec, inputs: Inputs, store: Store | None = None) -> Backend:
        requests = Requests.for_run(spec, inputs)
        target_id = inputs.target.skill_id
        if spec.batch:
            from activation.trials.classifier.batch import BatchBackend

            identity = spec.shard.fingerprint if spec.shard else run_identity(spec, inputs)
            run_key = f"{identity}-{spec.shard.index}" if spec.shard else identity
            return BatchBackend(
                requests, target_id, spec.prices, inputs.target.repo, run_key, spec.resume
            )
        from activation.trials.classifier.backend import ClassifierBackend

        return ClassifierBackend(requests, provider(spec).asker(spec.prices), target_id)

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        """Input tokens of every case's first request (later trials differ only in the
        menu's order), counted by the API when `count` and a key allow, else (always for
        an OpenAI model) from characters; the answer is assumed to be short."""
        made = Requests.for_run(spec, inputs)
        requests = made.first_requests(inputs.cases)
        discount = _config.BATCH_DISCOUNT if spec.batch else 1.0
        output = _config.STAGE_A_OUTPUT_ESTIMATE
        asked = provider(spec)
        if asked.free:
            return CostEstimate("its answers read no tokens", asked.free, 0, 0, 0.0, 0.0, 0.0)
        tokens, how = None, CHARS
        if count:
            limit = spec.max_concurrency or spec.concurrency or _config.CONCURRENCY
            try:
                tokens, how = asked.count_tokens(requests, limit), COUNTED
            except Uncounted as why:
                how = f"{CHARS}: {why}"
        counted = tokens or [chars_tokens(request) for request in requests]
        mean = sum(counted) / len(counted) if counted else 0.0
        share = [len(system_text(r)) / max(1, chars_tokens(r) * 4) for r in requests]
        prefix = min(1.0, sum(share) / len(share) if share else 0.0) * mean
        if spec.batch or prefix < _config.CACHE_MIN_TOKENS:
            # too short for the API to cache, or a batch (its cache hits are best effort)
            return priced(spec, inputs, how, mean, output, discount)
        return priced(spec, inputs, how, mean, output, discount, prefix, made.prefixes())

    def cost_basis(self, spec: RunSpec) -> str | None:
        free = provider(spec).free
        if free:
            return free
        if spec.pricing is None:
            return None
        batch = " at the batch discount" if spec.batch else ""
        return f"{price_basis(spec)}{batch}"

    def unpriced(self, spec: RunSpec) -> str | None:
        if provider(spec).free or spec.prices is not None:
            return None
        return f"no price for {spec.model}: pass --price-in and --price-out"

    def notice(self, spec: RunSpec) -> str | None:
        return provider(spec).notice()

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
