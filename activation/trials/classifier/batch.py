"""Stage A through the Message Batches API (`--batch`): the same requests at half the price.

The engine hands this backend every trial that is ready at one moment (every case's first
round, then the escalated rounds that became ready together), and each round goes out as
one batch, split where it would pass the API's limits on count or size. Each batch id is
written to the state folder the moment it exists, before any wait, so `--batch --resume`
collects an interrupted run's batches instead of paying for them again; polling backs off,
and the results are mapped back to trials by `custom_id`. An errored, expired or canceled
request is an error trial. Each trial is one `call` (trials/providers/asking.py), as Stage
A's direct trials are: its requests go to a gatherer that sends them once every trial of the
round still asking has asked, so an unusable answer is asked again once, in a second batch
of the same round. Nothing to ask sends no batch (the API refuses an empty one), and a batch the API
refuses (HTTP 400) stops the run as an input error: no retry would be taken, and its requests
are no trials. Ctrl-C and SIGTERM cancel the open batches on the way out (shielded).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, Self

import anthropic
import anyio
import orjson

from activation import _config, state
from activation._errors import InputError
from activation._models import Prices, Trial, TrialKey
from activation.trials.backend import Round, request_digest
from activation.trials.budget import kept_out
from activation.trials.classifier.backend import chosen, trial_of
from activation.trials.classifier.prompt import Requests
from activation.trials.providers.anthropic import (
    KIND,
    SENT,
    client,
    message_usage,
    refused,
    unreachable,
)
from activation.trials.providers.asking import Reply, Throttled, call

Result = tuple[str, Any]
"""("succeeded", message dict) or ("errored" | "expired" | "canceled", detail)."""
Batched = list[tuple[str, dict[str, Any]]]
"""Requests as a batch holds them: (custom_id, params) each."""


def split(
    requests: Sequence[tuple[str, dict[str, Any]]], max_requests: int, max_bytes: int
) -> list[Batched]:
    """Batches within the API's limits on request count and size, in queue order; none for
    no requests (the API refuses an empty batch)."""
    batches: list[Batched] = []
    size = 0
    for custom_id, params in requests:
        item = len(orjson.dumps({"custom_id": custom_id, "params": params})) + 1
        if not batches or len(batches[-1]) >= max_requests or size + item > max_bytes:
            batches.append([])
            size = 0
        batches[-1].append((custom_id, params))
        size += item
    return batches


def _api_message(error: anthropic.APIStatusError) -> str:
    """The first line of the API's own words for a refused request."""
    body = error.body if isinstance(error.body, dict) else {}
    detail = body.get("error")
    message = detail.get("message") if isinstance(detail, dict) else None
    lines = str(message or error.message).strip().splitlines()
    return lines[0] if lines else f"HTTP {error.status_code}"


class BatchBackend:
    """The Stage A backend over Message Batches; `repo` holds the state folder, `run_key`
    names the run (its identity) so a resume finds only its own batches."""

    def __init__(
        self,
        requests: Requests,
        target_id: str,
        prices: Prices | None,
        repo: Path,
        run_key: str,
        resume: bool,
    ) -> None:
        self.requests = requests
        self.target_id = target_id
        self.prices = prices
        self.repo = repo
        self.run_key = run_key
        self.resume = resume
        self.max_requests = _config.BATCH_MAX_REQUESTS
        self.max_bytes = _config.BATCH_MAX_BYTES
        self._client: anthropic.AsyncAnthropic | None = None
        self._open: dict[str, tuple[int, int]] = {}
        """Batches not yet ended: (requests finished, requests) each."""
        self._closed = 0
        self.resumed: dict[str, Result] = {}

    async def __aenter__(self) -> Self:
        self._client = client()
        if self.resume:
            for batch_id in state.recorded_batches(self.repo, self.run_key):
                for custom_id, result in (await self._collect(batch_id)).items():
                    if result[0] == "succeeded":
                        self.resumed[custom_id] = result
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._open:
                with (
                    anyio.CancelScope(shield=True),
                    anyio.move_on_after(_config.BATCH_CANCEL_TIMEOUT),
                ):
                    for batch_id in list(self._open):
                        await self._cancel(batch_id)
            elif exc_info[0] is None:
                state.forget_batches(self.repo, self.run_key)
        finally:
            if self._client is not None:
                await self._client.close()
                self._client = None

    def cache_key(self, key: TrialKey) -> str:
        return request_digest(KIND, self.requests.request(key), key)

    async def run_round(self, round: Round) -> None:
        """The round's trials the cost ceiling admits, in one batch; then the unusable
        answers once more, in a second."""
        keys = []
        for key in round.keys:
            if round.slots.admit(key):
                keys.append(key)
            else:
                round.deliver(kept_out(key))
        trials: dict[TrialKey, Trial] = {}
        gathering = _Gathering(self, round, len(keys))
        async with anyio.create_task_group() as group:
            for key in keys:
                group.start_soon(self._trial, key, gathering, trials)
        for key in keys:
            round.slots.done(trials[key])
            round.deliver(trials[key])

    async def _trial(
        self, key: TrialKey, gathering: _Gathering, trials: dict[TrialKey, Trial]
    ) -> None:
        asker = _InBatch(gathering, self.cache_key(key)[:40])
        read = partial(chosen, names=self.requests.names)
        try:
            answer = await call(asker, self.requests.request(key), read)
        finally:
            gathering.asking -= 1
        trials[key] = trial_of(key, self.requests, self.target_id, answer)
        await gathering.send_if_all_asked()

    def reply(self, result: Result) -> Reply:
        """A batch result as the reply a direct request would have brought."""
        kind, detail = result
        if kind != "succeeded":
            return Reply(SENT, problem=f"batch request {kind}{detail}")
        return Reply(message_usage(detail, self.prices, _config.BATCH_DISCOUNT), message=detail)

    async def send(self, asked: Batched, round: Round) -> dict[str, Result]:
        """Each request's result, from the batches they go out in (split at the limits)."""
        found: dict[str, Result] = {}
        async with anyio.create_task_group() as group:
            for part in split(asked, self.max_requests, self.max_bytes):
                group.start_soon(self._one_batch, part, found, round)
        return {
            custom_id: found.get(custom_id, ("errored", ": no result")) for custom_id, _ in asked
        }

    async def _one_batch(self, part: Batched, found: dict[str, Result], round: Round) -> None:
        assert self._client is not None
        try:
            requests: Any = [
                {"custom_id": custom_id, "params": params} for custom_id, params in part
            ]
            batch = await self._client.messages.batches.create(requests=requests)
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
            raise refused(error) from None
        except anthropic.BadRequestError as error:
            raise InputError(
                f"the Message Batches API refused a batch of {len(part)} requests "
                f"(HTTP {error.status_code}): {_api_message(error)}"
            ) from None
        except anthropic.APIConnectionError:
            raise unreachable(self._client, " to submit a batch") from None
        except anthropic.APIStatusError as error:
            for custom_id, _params in part:
                found[custom_id] = ("errored", f": HTTP {error.status_code} on submission")
            return
        state.record_batch(self.repo, self.run_key, batch.id)
        found.update(await self._collect(batch.id, len(part), round))

    async def _cancel(self, batch_id: str) -> None:
        assert self._client is not None
        try:
            await self._client.messages.batches.cancel(batch_id)
        except anthropic.APIError:
            return  # it may have ended meanwhile; the recorded id still allows a resume

    async def _collect(
        self, batch_id: str, size: int | None = None, round: Round | None = None
    ) -> dict[str, Result]:
        """Poll the batch until it has ended (backing off), then read its results."""
        assert self._client is not None
        wait, factor, longest = _config.BATCH_POLL
        self._open[batch_id] = (0, size or 0)  # before any wait: an interruption cancels it
        batch = await self._client.messages.batches.retrieve(batch_id)
        while batch.processing_status != "ended":
            self._progress(batch_id, batch.request_counts, round)
            await anyio.sleep(wait)
            wait = min(wait * factor, longest)
            batch = await self._client.messages.batches.retrieve(batch_id)
        self._progress(batch_id, batch.request_counts, round)
        results: dict[str, Result] = {}
        async for item in await self._client.messages.batches.results(batch_id):
            result = item.result
            if result.type == "succeeded":
                results[item.custom_id] = ("succeeded", result.message.model_dump())
            elif result.type == "errored":
                results[item.custom_id] = ("errored", f": {result.error.error.type}")
            else:
                results[item.custom_id] = (result.type, "")
        _finished, total = self._open.pop(batch_id)
        self._closed += total
        return results

    def _progress(self, batch_id: str, counts: Any, round: Round | None) -> None:
        total = sum(
            getattr(counts, name)
            for name in ("processing", "succeeded", "errored", "canceled", "expired")
        )
        self._open[batch_id] = (total - counts.processing, total)
        if round is not None:
            done = self._closed + sum(finished for finished, _ in self._open.values())
            round.progress.batch(done, self._closed + sum(t for _, t in self._open.values()))


class _Gathering:
    """One round's requests, gathered: they go out together once every trial of the round
    still asking has asked (a resumed batch's results are found at once)."""

    def __init__(self, backend: BatchBackend, round: Round, asking: int) -> None:
        self.backend = backend
        self.round = round
        self.asking = asking
        """Trials of the round not yet made."""
        self.gathered: dict[str, dict[str, Any]] = {}
        self.answered: dict[str, anyio.Event] = {}
        self.results: dict[str, Result] = {}

    async def result(self, custom_id: str, request: dict[str, Any]) -> Result:
        if custom_id in self.backend.resumed:
            return self.backend.resumed.pop(custom_id)
        self.gathered[custom_id] = request
        answered = self.answered[custom_id] = anyio.Event()
        await self.send_if_all_asked()
        await answered.wait()
        return self.results.pop(custom_id)

    async def send_if_all_asked(self) -> None:
        if not self.gathered or len(self.gathered) < self.asking:
            return
        asked, self.gathered = list(self.gathered.items()), {}
        self.results |= await self.backend.send(asked, self.round)
        for custom_id, _request in asked:
            self.answered.pop(custom_id).set()


class _InBatch:
    """One trial's asker: each of its requests goes out in its round's batch, under an id
    of its own (the trial's cache key and the attempt), which a resume finds it by."""

    def __init__(self, gathering: _Gathering, prefix: str) -> None:
        self.gathering = gathering
        self.prefix = prefix
        self.attempt = 0

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        custom_id = f"{self.prefix}-{self.attempt}"
        self.attempt += 1
        return self.gathering.backend.reply(await self.gathering.result(custom_id, request))
