"""The engine's seam with a backend: every trial ready at one moment goes out as one round,
and the command line's signal handling is installed only when asked for."""

from __future__ import annotations

import os
import signal
from types import FrameType
from typing import Self

import anyio
import anyio.lowlevel
import pytest

import activation.trials.engine as engine
from activation._models import BehaviorOptions, RunSpec, Trial, TrialKey
from activation.trials.backend import Backend, Round
from activation.trials.engine import execute
from activation.trials.fake import fake_trial, scripted
from activation.trials.simulate import simulated_inputs, typical

SHAKY = scripted(
    {("case-0", "candidate"): [True, False, False], ("case-1", "candidate"): [False, True, True]},
    default=True,
)
"""Right every time but for two candidates: case-0 drops to 1 of 3, case-1's majority rests
on one vote; both escalate."""


class AllAtOnce:
    """A backend that answers a whole round in one go, as a batch's results arrive."""

    def __init__(self) -> None:
        self.rounds: list[list[tuple[str, str, int]]] = []

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def cache_key(self, key: TrialKey) -> str | None:
        return None

    async def run_round(self, round: Round) -> None:
        self.rounds.append([(k.case.id, k.variant, k.index) for k in round.keys])
        await anyio.lowlevel.checkpoint()
        for key in round.keys:
            if round.slots.admit(key):
                trial = fake_trial(key, SHAKY(key))
                round.slots.done(trial)
                round.deliver(trial)


def test_every_first_round_is_one_round_and_rounds_due_together_go_together() -> None:
    backend = AllAtOnce()
    inputs = simulated_inputs(typical(6))
    outcome = execute(RunSpec(trials=3, max_trials=9), inputs, backend)
    first, *later = backend.rounds
    assert len(first) == 6 * 2 * 3  # every case's first round, in one round
    assert {case_id for case_id, _v, _i in first} == {case.id for case in inputs.cases}
    escalated = sorted(v.id for v in outcome.verdicts if v.escalated)
    assert escalated == ["case-0", "case-1"]
    # Both cases escalate on the same delivery: their second rounds are one round.
    assert {case_id for case_id, _v, _i in later[0]} == {"case-0", "case-1"}
    assert {index for _c, _v, index in later[0]} == {3, 4, 5}


class AnswersAtOnce:
    """A one-by-one backend whose trials answer without waiting, as the mock's do; `one`
    says what each trial does."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def cache_key(self, key: TrialKey) -> str | None:
        return None

    async def run_round(self, round: Round) -> None:
        await round.each(self.one)

    async def one(self, key: TrialKey) -> Trial:
        return key.answer(True)


class Peeks(AnswersAtOnce):
    """Notes the SIGTERM handler in force while its trials run."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    async def one(self, key: TrialKey) -> Trial:
        self.seen.append(signal.getsignal(signal.SIGTERM))
        return key.answer(True)


def mine(_number: int, _frame: FrameType | None) -> None:
    """A library user's own handler."""


def test_execute_leaves_signal_handlers_alone_unless_asked() -> None:
    previous = signal.signal(signal.SIGTERM, mine)
    try:
        inputs = simulated_inputs(typical(1))
        quiet = Peeks()
        execute(RunSpec(trials=1, max_trials=1), inputs, quiet)
        assert set(quiet.seen) == {mine}
        assert signal.getsignal(signal.SIGTERM) is mine
        stopping = Peeks()
        execute(RunSpec(trials=1, max_trials=1), inputs, stopping, stop_on_signals=True)
        assert mine not in stopping.seen  # the run's own handler stops it on SIGTERM
        assert signal.getsignal(signal.SIGTERM) is mine  # and is taken away after
    finally:
        signal.signal(signal.SIGTERM, previous)


class SignalsAt(AnswersAtOnce):
    """Sends its own process `number` as its `at`-th trial starts, noting how many trials
    started in all."""

    def __init__(self, number: signal.Signals, at: int) -> None:
        self.number = number
        self.at = at
        self.started = 0

    async def one(self, key: TrialKey) -> Trial:
        self.started += 1
        if self.started == self.at:
            os.kill(os.getpid(), self.number)
        return key.answer(True)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_scheduling_at_once_even_when_answers_never_wait(
    number: signal.Signals,
) -> None:
    """A backend that never waits (the mock) once ran its whole round after Ctrl-C: now the
    trials that start after the signal are at most a few per slot (the ones already past
    the event loop when the signal is read), not the 1,200 of the round."""
    backend = SignalsAt(number, at=100)
    concurrency = 4
    spec = RunSpec(trials=3, max_trials=3, concurrency=concurrency)
    outcome = execute(spec, simulated_inputs(typical(200)), backend, stop_on_signals=True)
    assert outcome.interrupted is True
    assert 100 <= backend.started <= 100 + 4 * concurrency
    assert len(outcome.trials) == backend.started
    assert len(outcome.verdicts) + len(outcome.unfinished) == 200


@pytest.mark.parametrize(
    ("spec", "backend", "trials", "loads"),
    [
        (RunSpec(trials=3, max_trials=3), AnswersAtOnce(), 24, 0),
        (RunSpec(trials=3, max_trials=9), AllAtOnce(), 48, 1),
        (RunSpec(trials=3, max_trials=3, behavior=BehaviorOptions()), AnswersAtOnce(), 24, 1),
    ],
    ids=["variants-agree", "variants-differ", "behavior"],
)
def test_the_statistics_load_once_a_trial_may_need_them(
    spec: RunSpec, backend: Backend, trials: int, loads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scipy loads (once) when a case's variants differ, or for a behavior run's efficiency
    figures; a run whose variants agree never pays for it."""
    calls: list[None] = []
    monkeypatch.setattr(engine, "warm_up", lambda: calls.append(None))
    outcome = execute(spec, simulated_inputs(typical(4)), backend)
    assert len(outcome.trials) == trials
    assert len(calls) == loads
