"""The response cache wrapper: hits, misses, errors never cached, cached trials marked."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from activation._models import Case, RunSpec, Trial, TrialKey, Usage
from activation.trials.cache import MISSING_TRANSCRIPT, CachedBackend, cached_trial, trial_entry
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.simulate import _inputs, typical

CASE = Case("c", "refund order 1", True, "why")


class KeyedFake(FakeBackend):
    """The fake, naming each trial's key as a real backend does."""

    def cache_key(self, key: TrialKey) -> str:
        return f"{key.case.id}-{key.variant}-{key.index}"


class MemoryStore:
    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        return self.entries.get(key)

    def put(self, key: str, trial: Mapping[str, Any]) -> None:
        self.entries[key] = dict(trial)


def test_a_second_run_is_served_from_the_cache_except_its_errors() -> None:
    inputs = _inputs(typical(4))
    answers = scripted({"case-0": [True], "case-1": [True, None, True], "case-2": [False]})
    store = MemoryStore()
    spec = RunSpec(max_trials=3)
    cold = anyio.run(
        execute_async, spec, inputs, CachedBackend(KeyedFake(answers, 0.0, 0.01), store)
    )
    assert len(store.entries) == 4 * 2 * 3 - 2  # case-1 errs at index 1 for both variants
    assert "case-1-baseline-1" not in store.entries
    assert (cold.usage.requests, cold.usage.from_cache) == (24, 0)
    assert round(cold.usage.cost_usd or 0, 6) == 0.22
    inner = KeyedFake(answers, 0.0, 0.01)
    warm = anyio.run(execute_async, spec, inputs, CachedBackend(inner, store))
    assert inner.calls == 2  # only the two error trials are asked again
    assert warm.usage.from_cache == 22
    assert warm.usage.requests == 2
    assert round(warm.usage.cost_usd or 0, 6) == 0.0
    cached = [trial for trial in warm.trials if trial.cached]
    assert len(cached) == 22
    assert all(t.usage == Usage(cost_usd=0.0, from_cache=1) for t in cached)
    assert [v.status.value for v in warm.verdicts] == [v.status.value for v in cold.verdicts]


def test_an_entry_keeps_the_answer_and_the_transcript_and_not_the_error() -> None:
    key = TrialKey(CASE, "candidate", 2)
    trial = Trial(key, False, evidence="chose nothing", transcript="/t/c.jsonl",
                  usage=Usage(1, 300, 20, 0.0008))  # fmt: skip
    entry = trial_entry(trial)
    assert entry == {
        "activated": False,
        "evidence": "chose nothing",
        "transcript": "/t/c.jsonl",
        "usage": {
            "requests": 1,
            "input_tokens": 300,
            "output_tokens": 20,
            "cost_usd": 0.0008,
            "cache_write_tokens": 0,
            "cache_read_tokens": 0,
            "from_cache": 0,
        },
    }
    revived = cached_trial(key, entry)
    assert revived == Trial(
        key, False, evidence="chose nothing", transcript="/t/c.jsonl",
        usage=Usage(cost_usd=0.0, from_cache=1), cached=True,
    )  # fmt: skip
    gone = cached_trial(key, {**entry, "transcript_missing": True})
    assert gone is not None
    assert gone.evidence == f"chose nothing ({MISSING_TRANSCRIPT})"
    assert cached_trial(key, {**entry, "activated": None}) is None


def test_errors_are_never_stored() -> None:
    store = MemoryStore()
    backend = CachedBackend(KeyedFake(scripted({"c": [None]})), store)

    async def twice() -> list[Trial]:
        async with backend:
            return [await backend.run(TrialKey(CASE, "baseline", 0)) for _ in range(2)]

    first, second = anyio.run(twice)
    assert first.is_error and second.is_error
    assert not first.cached and not second.cached
    assert store.entries == {}
    assert backend.is_free(TrialKey(CASE, "baseline", 0)) is False


def test_the_store_on_disk_round_trips_through_the_wrapper(tmp_path: Path) -> None:
    from activation.store import TrialStore

    store = TrialStore(tmp_path, ttl=60)
    key = TrialKey(CASE, "baseline", 0)

    async def run_with(backend: CachedBackend) -> Trial:
        async with backend:
            return await backend.run(key)

    asked = KeyedFake(scripted({"c": [True]}))
    assert anyio.run(run_with, CachedBackend(asked, store)).cached is False
    again = KeyedFake(scripted({"c": [False]}))  # a cached answer wins over the model's
    trial = anyio.run(run_with, CachedBackend(again, store))
    assert (trial.cached, trial.activated, again.calls) == (True, True, 0)
