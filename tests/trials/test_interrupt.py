"""What an interruption leaves behind in the process: nothing that holds its exit."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

import activation.trials.engine as engine
from activation._models import RunSpec, Trial, TrialKey
from activation.trials.cache import LOOKUP_STEP, CachedBackend
from activation.trials.engine import execute
from activation.trials.schedule import Schedule
from activation.trials.simulate import simulated_inputs, typical
from tests.trials.test_engine import SignalsAt


class CandidateMisses(SignalsAt):
    """Its candidates never fire, so each case's variants differ and the statistics load."""

    async def one(self, key: TrialKey) -> Trial:
        await super().one(key)
        return key.answer(key.variant == "baseline")


@pytest.fixture
def slow_statistics(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """scipy's import as on a loaded machine: it lasts until the test sets the event."""
    done = threading.Event()
    monkeypatch.setattr(engine, "warm_up", lambda: done.wait(30))
    yield done
    done.set()


def test_a_run_interrupted_while_the_statistics_load_leaves_no_thread_to_wait_for(
    slow_statistics: threading.Event,
) -> None:
    """The trials that finish before scipy has loaded wait for it; once they waited in a
    worker thread, which the interpreter joins at exit, so Ctrl-C during the import (seconds
    on a busy machine) held the exit until scipy was in. Now no thread the interpreter
    waits for is left, and the waiting trials are judged."""
    before = set(threading.enumerate())
    backend = CandidateMisses(signal.SIGINT, at=20)
    spec = RunSpec(trials=3, max_trials=3, concurrency=2)
    outcome = execute(spec, simulated_inputs(typical(40)), backend, stop_on_signals=True)
    assert outcome.interrupted is True
    assert not slow_statistics.is_set()  # the import is still going on
    waited_for = [thread for thread in set(threading.enumerate()) - before if not thread.daemon]
    assert waited_for == []
    assert len(outcome.trials) == backend.started
    # The trials waited for the statistics, and each was recorded on the way out.
    judged = sum(len(verdict.trials) for verdict in outcome.verdicts)
    cut_short = sum(trial.case_id in outcome.unfinished for trial in outcome.trials)
    assert outcome.verdicts != ()
    assert judged + cut_short == backend.started
    assert len(outcome.verdicts) + len(outcome.unfinished) == 40


def test_trials_that_waited_for_the_statistics_go_on_once_they_are_in(
    slow_statistics: threading.Event,
) -> None:
    """The loop looks for the end of the import, so the run goes on to its end."""
    threading.Timer(0.2, slow_statistics.set).start()
    backend = CandidateMisses(signal.SIGINT, at=0)
    outcome = execute(RunSpec(trials=3, max_trials=3), simulated_inputs(typical(5)), backend)
    assert outcome.interrupted is False
    assert outcome.unfinished == ()
    assert len(outcome.trials) == 5 * 2 * 3


def test_ctrl_c_while_a_large_first_round_is_built_stops_the_run_before_any_trial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """3,000 cases of 30 trials make 180,000 keys before the first trial starts (seconds on
    a busy machine); the signal is read while they are built, so no trial starts."""
    built = Schedule.first_rounds

    def interrupted(schedule: Schedule) -> Iterator[list[TrialKey]]:
        for count, keys in enumerate(built(schedule), 1):
            if count == 150:
                os.kill(os.getpid(), signal.SIGINT)
            yield keys

    monkeypatch.setattr(Schedule, "first_rounds", interrupted)
    backend = SignalsAt(signal.SIGINT, at=0)
    spec = RunSpec(trials=30, max_trials=30)
    outcome = execute(spec, simulated_inputs(typical(3_000)), backend, stop_on_signals=True)
    assert outcome.interrupted is True
    assert backend.started == 0
    assert outcome.trials == ()
    assert len(outcome.unfinished) == 3_000


class Keyed(SignalsAt):
    """Its trials have cache keys, so the response cache looks each one up."""

    def cache_key(self, key: TrialKey) -> str | None:
        return f"{key.case.id}/{key.variant}/{key.index}"


class SignalsOnLookup:
    """An empty response cache that sends its process SIGINT at its `at`-th lookup."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.lookups = 0

    def get(self, key: str) -> dict[str, Any] | None:
        self.lookups += 1
        if self.lookups == self.at:
            os.kill(os.getpid(), signal.SIGINT)
        return None

    def put(self, key: str, trial: Mapping[str, Any]) -> None:
        raise AssertionError("no trial ran")


def test_ctrl_c_while_the_cache_looks_up_a_large_round_stops_the_run_before_any_trial() -> None:
    """The cache hashes and looks up every key of a round before the round goes out (11 s
    for 180,000 keys on a busy machine): the signal is read between steps of it."""
    store = SignalsOnLookup(at=1_000)
    backend = Keyed(signal.SIGINT, at=0)
    cached = CachedBackend(backend, store, "target")
    spec = RunSpec(trials=30, max_trials=30)
    outcome = execute(spec, simulated_inputs(typical(3_000)), cached, stop_on_signals=True)
    assert outcome.interrupted is True
    assert backend.started == 0
    assert 1_000 <= store.lookups <= 1_000 + 10 * LOOKUP_STEP  # a few steps, not 180,000
    assert len(outcome.unfinished) == 3_000
