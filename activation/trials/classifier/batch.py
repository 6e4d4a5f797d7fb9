"""Stage A through the Message Batches API (`--batch`): the same requests at half the price.

The scheduler queues a case's round at once and, with `--batch`, lets every trial in (its
limit is the API's batch size), so the requests queued at about the same moment (every
case's first round, then the escalated rounds that land together) go out as one batch: the
first request of a gathering waits until no new one arrives for `BATCH_GATHER` seconds,
then submits them all, split where a batch would pass the API's limits on count or size.
Each batch id is written to the state folder the moment it exists, before any wait, so
`--batch --resume` collects an interrupted run's batches instead of paying for them again;
polling backs off, and the results are mapped back to trials by `custom_id`. An errored,
expired or canceled request is an error trial; an unusable answer is asked again once, in
a later batch. Ctrl-C and SIGTERM cancel the open batches on the way out (shielded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
import anyio
import orjson

from activation import _config, state
from activation._errors import ApiUnreachable
from activation._models import Inputs, RunSpec, TrialKey
from activation.trials.backend import BatchProgress, shown_url
from activation.trials.classifier.backend import (
    SENT,
    Asked,
    ClassifierBackend,
    message_usage,
    refused,
)

Result = tuple[str, Any]
"""("succeeded", message dict) or ("errored" | "expired" | "canceled", detail)."""


@dataclass
class _Slot:
    custom_id: str
    request: dict[str, Any]
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Result = ("errored", "no result")


def split(slots: list[_Slot], max_requests: int, max_bytes: int) -> list[list[_Slot]]:
    """Batches within the API's limits on request count and size, in queue order."""
    batches: list[list[_Slot]] = [[]]
    size = 0
    for slot in slots:
        item = len(orjson.dumps({"custom_id": slot.custom_id, "params": slot.request})) + 1
        if batches[-1] and (len(batches[-1]) >= max_requests or size + item > max_bytes):
            batches.append([])
            size = 0
        batches[-1].append(slot)
        size += item
    return batches


class BatchBackend(ClassifierBackend):
    """The Stage A backend over Message Batches; `repo` holds the state folder."""

    def __init__(self, spec: RunSpec, inputs: Inputs, repo: Path) -> None:
        super().__init__(spec, inputs)
        self.repo = repo
        self.resume = spec.resume
        self.run_key = state.run_key(
            inputs.target.skill_id,
            inputs.baseline.description,
            inputs.candidate.description,
            self.model,
            spec.seed,
        )
        self.max_requests = _config.BATCH_MAX_REQUESTS
        self.max_bytes = _config.BATCH_MAX_BYTES
        self.on_progress: BatchProgress | None = None
        self._open: dict[str, tuple[int, int]] = {}
        """Batches not yet ended: (requests finished, requests) each."""
        self._closed = 0
        self._resumed: dict[str, Result] = {}
        self._queue: list[_Slot] = []
        self._gathering = False

    def watch(self, on_progress: BatchProgress) -> None:
        self.on_progress = on_progress

    async def __aenter__(self) -> BatchBackend:
        await super().__aenter__()
        if self.resume:
            for batch_id in state.recorded_batches(self.repo, self.run_key):
                for custom_id, result in (await self._collect(batch_id)).items():
                    if result[0] == "succeeded":
                        self._resumed[custom_id] = result
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
            await super().__aexit__(*exc_info)

    async def _cancel(self, batch_id: str) -> None:
        assert self._client is not None
        try:
            await self._client.messages.batches.cancel(batch_id)
        except anthropic.APIError:
            return  # it may have ended meanwhile; the recorded id still allows a resume

    async def ask(self, key: TrialKey, request: dict[str, Any], attempt: int) -> Asked:
        """The request through a batch; a re-ask goes in a later batch, under its own id."""
        kind, detail = await self._in_batch(f"{self.cache_key(key)[:40]}-{attempt}", request)
        if kind != "succeeded":
            return Asked(SENT, problem=f"batch request {kind}{detail}", final=True)
        return self.read(detail, message_usage(detail, self.prices, _config.BATCH_DISCOUNT))

    async def _in_batch(self, custom_id: str, request: dict[str, Any]) -> Result:
        if custom_id in self._resumed:
            return self._resumed.pop(custom_id)
        slot = _Slot(custom_id, request)
        self._queue.append(slot)
        if not self._gathering:
            self._gathering = True
            await self._gather_and_submit()
        await slot.done.wait()
        return slot.result

    async def _gather_and_submit(self) -> None:
        """Wait until no request has joined for a moment, then submit all queued ones."""
        seen = -1
        while seen != len(self._queue):
            seen = len(self._queue)
            await anyio.sleep(_config.BATCH_GATHER)
        slots, self._queue, self._gathering = self._queue, [], False
        async with anyio.create_task_group() as group:
            for part in split(slots, self.max_requests, self.max_bytes):
                group.start_soon(self._one_batch, part)

    async def _one_batch(self, slots: list[_Slot]) -> None:
        assert self._client is not None
        try:
            try:
                batch = await self._client.messages.batches.create(
                    requests=[{"custom_id": s.custom_id, "params": s.request} for s in slots]
                )
            except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
                raise refused(error) from None
            except anthropic.APIConnectionError:
                raise ApiUnreachable(
                    f"cannot reach {shown_url(self._client.base_url)} to submit a batch "
                    "(check ANTHROPIC_BASE_URL and the network)"
                ) from None
            except anthropic.APIStatusError as error:
                for slot in slots:
                    slot.result = ("errored", f": HTTP {error.status_code} on submission")
                return
            state.record_batch(self.repo, self.run_key, batch.id)
            results = await self._collect(batch.id, len(slots))
            for slot in slots:
                slot.result = results.get(slot.custom_id, ("errored", ": no result"))
        finally:
            for slot in slots:
                slot.done.set()

    async def _collect(self, batch_id: str, size: int | None = None) -> dict[str, Result]:
        """Poll the batch until it has ended (backing off), then read its results."""
        assert self._client is not None
        wait, factor, longest = _config.BATCH_POLL
        batch = await self._client.messages.batches.retrieve(batch_id)
        self._open[batch_id] = (0, size or 0)
        while batch.processing_status != "ended":
            self._progress(batch_id, batch.request_counts)
            await anyio.sleep(wait)
            wait = min(wait * factor, longest)
            batch = await self._client.messages.batches.retrieve(batch_id)
        self._progress(batch_id, batch.request_counts)
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

    def _progress(self, batch_id: str, counts: Any) -> None:
        total = sum(
            getattr(counts, name)
            for name in ("processing", "succeeded", "errored", "canceled", "expired")
        )
        self._open[batch_id] = (total - counts.processing, total)
        if self.on_progress is not None:
            done = self._closed + sum(finished for finished, _ in self._open.values())
            self.on_progress(done, self._closed + sum(t for _, t in self._open.values()))
