"""The response cache wrapper: hits, misses, errors never cached, cached trials marked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import orjson

from activation._models import Case, RunSpec, ToolCall, Trajectory, Trial, TrialKey, Usage
from activation.trials.backend import Round, Silent
from activation.trials.cache import MISSING_TRANSCRIPT, CachedBackend, cached_trial, trial_entry
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots
from activation.trials.simulate import simulated_inputs, typical

CASE = Case("c", "refund order 1", True, "why")
TARGET = "p:s"


class KeyedFake(FakeBackend):
    """The fake, naming each trial's key as a real backend does."""

    def cache_key(self, key: TrialKey) -> str:
        return f"{key.case.id}-{key.variant}-{key.index}"


def run_keys(backend: CachedBackend, *keys: TrialKey) -> list[Trial]:
    """One round of `keys` through the wrapper, on a fixed limit: the trials delivered."""
    delivered: list[Trial] = []

    async def go() -> None:
        async with backend:
            slots = RunSlots(Limiter(4))
            await backend.run_round(Round(keys, delivered.append, slots, Silent()))

    anyio.run(go)
    return delivered


class MemoryStore:
    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        return self.entries.get(key)

    def put(self, key: str, trial: Mapping[str, Any]) -> None:
        self.entries[key] = dict(trial)


def test_a_second_run_is_served_from_the_cache_except_its_errors() -> None:
    inputs = simulated_inputs(typical(4))
    answers = scripted({"case-0": [True], "case-1": [True, None, True], "case-2": [False]})
    store = MemoryStore()
    spec = RunSpec(max_trials=3)
    cold = anyio.run(
        execute_async, spec, inputs, CachedBackend(KeyedFake(answers, 0.0, 0.01), store, TARGET)
    )
    assert len(store.entries) == 4 * 2 * 3 - 2  # case-1 errs at index 1 for both variants
    assert "case-1-baseline-1" not in store.entries
    assert (cold.usage.requests, cold.usage.from_cache) == (24, 0)
    assert round(cold.usage.cost_usd or 0, 6) == 0.22
    inner = KeyedFake(answers, 0.0, 0.01)
    warm = anyio.run(execute_async, spec, inputs, CachedBackend(inner, store, TARGET))
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
    trial = key.answer(False, "chose nothing", Usage(1, 300, 20, 0.0008), "/t/c.jsonl")
    entry = trial_entry(trial)
    assert entry == {
        "activated": False,
        "chose": [],
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
            "throttled": 0,
        },
    }
    revived = cached_trial(key, entry, TARGET)
    assert revived == Trial(
        "c", "candidate", 2, False, evidence="chose nothing", transcript="/t/c.jsonl",
        usage=Usage(cost_usd=0.0, from_cache=1), cached=True, correct=False,
    )  # fmt: skip
    gone = cached_trial(key, {**entry, "transcript_missing": True}, TARGET)
    assert gone is not None
    assert gone.evidence == f"chose nothing ({MISSING_TRANSCRIPT})"
    assert cached_trial(key, {**entry, "activated": None}, TARGET) is None
    assert cached_trial(key, {**entry, "chose": "p:s"}, TARGET) is None
    assert cached_trial(key, {**entry, "chose": [3]}, TARGET) is None


def test_a_cached_answer_keeps_what_fired_and_is_judged_by_the_case_again() -> None:
    routed = Case("r", "undo the deploy", False, "a sibling's", expect=("p:undo",))
    entry = trial_entry(TrialKey(routed, "baseline", 0).fired(["p:undo", "p:s"], TARGET))
    assert (entry["activated"], entry["chose"]) == (True, ["p:undo", "p:s"])
    first = cached_trial(TrialKey(routed, "baseline", 0), entry, TARGET)
    assert first is not None
    assert (first.chose, first.activated, first.correct) == (("p:undo", "p:s"), True, True)
    strict = Case("r", "undo the deploy", False, "a sibling's", expect=("p:undo",),
                  must_not=("p:s",))  # fmt: skip
    again = cached_trial(TrialKey(strict, "baseline", 0), entry, TARGET)
    assert again is not None
    assert (again.chose, again.correct) == (("p:undo", "p:s"), False)


def test_an_answer_that_only_said_the_target_fired_stays_that() -> None:
    entry = trial_entry(TrialKey(CASE, "baseline", 0).answer(True))
    assert (entry["activated"], entry["chose"]) == (True, [])
    trial = cached_trial(TrialKey(CASE, "baseline", 0), entry, TARGET)
    assert trial is not None
    assert (trial.activated, trial.chose, trial.correct) == (True, (), True)


def test_errors_are_never_stored() -> None:
    store = MemoryStore()
    inner = KeyedFake(scripted({"c": [None]}))
    (first,) = run_keys(CachedBackend(inner, store, TARGET), TrialKey(CASE, "baseline", 0))
    (second,) = run_keys(CachedBackend(inner, store, TARGET), TrialKey(CASE, "baseline", 0))
    assert first.is_error and second.is_error
    assert not first.cached and not second.cached
    assert store.entries == {}
    assert inner.calls == 2


def test_a_backend_without_a_key_is_never_cached() -> None:
    store = MemoryStore()
    inner = FakeBackend(scripted({"c": [True]}))
    for _ in range(2):
        (trial,) = run_keys(CachedBackend(inner, store, TARGET), TrialKey(CASE, "baseline", 0))
        assert trial.cached is False
    assert (store.entries, inner.calls) == ({}, 2)


def test_the_store_on_disk_round_trips_through_the_wrapper(tmp_path: Path) -> None:
    from activation.store import TrialStore

    store = TrialStore(tmp_path, ttl=60)
    key = TrialKey(CASE, "baseline", 0)

    asked = KeyedFake(scripted({"c": [True]}))
    (first,) = run_keys(CachedBackend(asked, store, TARGET), key)
    assert first.cached is False
    again = KeyedFake(scripted({"c": [False]}))  # a cached answer wins over the model's
    (trial,) = run_keys(CachedBackend(again, store, TARGET), key)
    assert (trial.cached, trial.activated, again.calls) == (True, True, 0)


def test_a_cached_trial_keeps_what_the_agent_did() -> None:
    did = Trajectory(tool_calls=(ToolCall("Bash", '{"command":"ls"}'),), commands=("ls",),
                     turns=2, measured=frozenset({"turns", "tool_calls", "seconds"}))  # fmt: skip
    key = TrialKey(CASE, "baseline", 0)
    entry = trial_entry(replace(key.answer(True, "loaded"), trajectory=did))
    assert orjson.loads(orjson.dumps(entry["trajectory"])) == {
        "tool_calls": [{"name": "Bash", "input": '{"command":"ls"}', "turn": 1}],
        "commands": ["ls"], "files_read": [], "files_written": [], "turns": 2,
        "measured": ["seconds", "tool_calls", "turns"],
    }  # fmt: skip
    revived = cached_trial(key, entry, TARGET)
    assert revived is not None and revived.trajectory == did
    damaged = cached_trial(key, {**entry, "trajectory": {"turns": "two"}}, TARGET)
    assert damaged is not None and damaged.trajectory is None
