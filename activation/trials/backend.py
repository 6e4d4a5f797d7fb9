"""What the engine needs from a stage: run a round of trials, and name each trial's cache key.

The engine takes any backend, as httpx takes a transport: the Stage A classifier, its batch
form, the Stage B agent, the offline mock and the in-memory fake. A backend is entered once
per run (a client to open, plugin copies to make) and is then handed each round of trials as
it becomes ready: every key the scheduler can ask for at that moment, so a batch backend
sends them as one batch and a one-by-one backend runs them under the run's limiter
(`Round.each`). Wrappers compose explicitly: the response cache wraps a backend
(trials/cache.py); the limiter and the cost ceiling are the run's slots, which every round
carries.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, Self, TypeVar
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.lowlevel
import orjson

from activation._models import Trial, TrialKey

RunOne = Callable[[TrialKey], Awaitable[Trial]]


class Slots(Protocol):
    """The run's capacity for trials: the concurrency limit and the cost ceiling."""

    @property
    def most(self) -> int:
        """The most trials that can ever run at once (the limit, or its ceiling)."""
        ...

    async def run(self, key: TrialKey, run: RunOne) -> Trial | None:
        """`run(key)` once a slot is free and the ceiling allows it (else a ceiling error
        trial); None when the run is ending and the trial was not started or was cut off."""
        ...

    def admit(self, key: TrialKey) -> bool:
        """Whether the ceiling lets this trial start now, without waiting for a slot (a
        batch queues a whole round at once); the caller then reports it with `done`."""
        ...

    def done(self, trial: Trial | None) -> None:
        """An admitted trial ended (None: it never got an answer)."""
        ...

    def throttled(self, sent_at: float | None = None) -> None:
        """The API answered 429 or 529 to a request sent at `sent_at` (`time.monotonic()`;
        None: just now): an adaptive limit halves."""
        ...


class Progress(Protocol):
    """What a run tells the person watching it."""

    def trial(self, trial: Trial) -> None: ...

    def planned(self, more: int) -> None:
        """More trials are coming (an escalated case's next round)."""
        ...

    def batch(self, done: int, total: int) -> None:
        """Requests finished of submitted over the run's batches."""
        ...


class Silent:
    """Progress nobody watches (library calls, simulations)."""

    def trial(self, trial: Trial) -> None:
        return None

    def planned(self, more: int) -> None:
        return None

    def batch(self, done: int, total: int) -> None:
        return None


@dataclass(frozen=True)
class Round:
    """Trials that are ready to run, and where each goes when it is done."""

    keys: tuple[TrialKey, ...]
    deliver: Callable[[Trial], None]
    slots: Slots
    progress: Progress

    def of(self, keys: Sequence[TrialKey], deliver: Callable[[Trial], None] | None = None) -> Round:
        """Part of this round (the keys a wrapper passes on), delivered the same way or
        through `deliver`."""
        return replace(self, keys=tuple(keys), deliver=deliver or self.deliver)

    async def each(self, run: RunOne) -> None:
        """One by one: every key under the run's limit, in order, each delivered as it
        finishes. As many workers as can ever run at once take the keys in turn, so a round
        of thousands starts its first request at once instead of after a task per key. Each
        worker passes through the event loop before each key: a backend that answers without
        waiting (the mock, the cache) would otherwise run the whole round before a signal or
        a cancellation is seen, and Ctrl-C must stop the scheduling at once."""
        keys = iter(self.keys)

        async def worker() -> None:
            for key in keys:
                await anyio.lowlevel.checkpoint()
                await self._one(key, run)

        async with anyio.create_task_group() as group:
            for _ in range(min(len(self.keys), self.slots.most)):
                group.start_soon(worker)

    async def _one(self, key: TrialKey, run: RunOne) -> None:
        trial = await self.slots.run(key, run)
        if trial is not None:
            self.deliver(trial)


class Backend(Protocol):
    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    def cache_key(self, key: TrialKey) -> str | None:
        """A digest of the exact request the trial would send and of the trial's identity,
        or None when its answers must not be reused."""
        ...

    async def run_round(self, round: Round) -> None:
        """Run the round's trials and deliver each. Whatever goes wrong with one is an error
        trial, never an exception, except AuthError and ApiUnreachable, which no later trial
        could survive."""
        ...


class Opens(Protocol):
    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


Inner = TypeVar("Inner", bound=Opens)


class Wrapper(Generic[Inner]):
    """A backend over one thing it sends through (another backend, a provider's client):
    entering the backend enters `inner`, leaving it leaves `inner`."""

    def __init__(self, inner: Inner) -> None:
        self.inner = inner

    async def __aenter__(self) -> Self:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.inner.__aexit__(*exc_info)


def request_digest(
    kind: str, request: Mapping[str, Any], key: TrialKey | None = None, **more: str
) -> str:
    """The one request hasher, for every cache key: the kind of asking, the exact request,
    `more` (what else decides the answer, such as a judge's model) and for a trial its
    identity (the case, the variant role and the trial index), so repeats stay independent
    samples and the two sides of an A/A run never share an answer. Nothing secret is in a
    request."""
    identity: dict[str, Any] = {"kind": kind, "request": request, **more}
    if key is not None:
        identity |= {"case": key.case.id, "variant": key.variant, "index": key.index}
    return hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()


def shown_url(url: object) -> str:
    """An API address as it may be shown: without credentials embedded in it."""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    try:
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        netloc = host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
