"""The engine's seam with a backend: every trial ready at one moment goes out as one round,
and the command line's signal handling is installed only when asked for."""

from __future__ import annotations

import signal
from types import FrameType
from typing import Self

import anyio
import anyio.lowlevel

from activation._models import RunSpec, Trial, TrialKey
from activation.trials.backend import Round
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


class Peeks:
    """Notes the SIGTERM handler in force while its trials run."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def cache_key(self, key: TrialKey) -> str | None:
        return None

    async def run_round(self, round: Round) -> None:
        async def one(key: TrialKey) -> Trial:
            self.seen.append(signal.getsignal(signal.SIGTERM))
            return key.answer(True)

        await round.each(one)


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
