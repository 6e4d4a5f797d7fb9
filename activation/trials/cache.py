"""The response cache as a backend wrapper: any backend that names its trials' cache keys
(`Keyed`) gets its successful trials reused by later runs.

In a pull-request workflow the baseline is the same run after run, so half of every run is
work already paid for. The wrapper asks the store (an edge module, activation/store.py,
which alone touches the disk) before the inner backend runs a trial, and stores only
successful trials: an error is never cached, so it is asked again next time. A trial served
from the cache carries `cached=True` and a usage of one trial from the cache and no request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol, Self

from activation._models import Trial, TrialKey, Usage
from activation.trials.backend import Backend, BatchProgress, Keyed, Watched

MISSING_TRANSCRIPT = "the transcript of the run that produced it is gone"


class Store(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, trial: Mapping[str, Any]) -> None: ...


class KeyedBackend(Backend, Keyed, Protocol):
    """What the cache wraps: a backend that names its trials' cache keys."""


def trial_entry(trial: Trial) -> dict[str, Any]:
    """What is kept of a successful trial: the answer, why, where its transcript is, and
    what it cost when it was asked."""
    return {
        "activated": trial.activated,
        "evidence": trial.evidence,
        "transcript": trial.transcript,
        "usage": dataclasses.asdict(trial.usage),
    }


def cached_trial(key: TrialKey, entry: Mapping[str, Any]) -> Trial | None:
    """The stored answer as this run's trial; None for an entry that is not a valid answer."""
    activated = entry.get("activated")
    if not isinstance(activated, bool):
        return None
    evidence = str(entry.get("evidence", ""))
    if entry.get("transcript_missing"):
        evidence += f" ({MISSING_TRANSCRIPT})"
    transcript = entry.get("transcript")
    return Trial(
        key,
        activated,
        evidence=evidence,
        transcript=transcript if isinstance(transcript, str) else None,
        usage=Usage(cost_usd=0.0, from_cache=1),
        cached=True,
    )


class CachedBackend:
    """`inner` with its successful trials kept in `store` and served from it."""

    def __init__(self, inner: KeyedBackend, store: Store) -> None:
        self.inner = inner
        self.store = store
        self._found: dict[TrialKey, tuple[str, Trial | None]] = {}

    async def __aenter__(self) -> Self:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.inner.__aexit__(*exc_info)

    def watch(self, on_progress: BatchProgress) -> None:
        """A batch backend inside reports its batches' progress."""
        if isinstance(self.inner, Watched):
            self.inner.watch(on_progress)

    def _lookup(self, key: TrialKey) -> tuple[str, Trial | None]:
        """The trial's cache key and its cached trial, looked up once per trial."""
        if key not in self._found:
            digest = self.inner.cache_key(key)
            entry = self.store.get(digest)
            self._found[key] = (digest, None if entry is None else cached_trial(key, entry))
        return self._found[key]

    def is_free(self, key: TrialKey) -> bool:
        return self._lookup(key)[1] is not None

    async def run(self, key: TrialKey) -> Trial:
        digest, found = self._lookup(key)
        del self._found[key]
        if found is not None:
            return found
        trial = await self.inner.run(key)
        if not trial.is_error:
            self.store.put(digest, trial_entry(trial))
        return trial
