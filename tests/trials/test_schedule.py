"""The schedule: which trials a run needs next, decided from the trials it is given (no
clock, no I/O), and the run's slots (the limit and the cost ceiling)."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from activation._errors import AuthError
from activation._models import Case, Trial, TrialKey, Usage
from activation.trials.budget import CEILING, Budget
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots, Schedule, round_keys
from activation.verdicts.escalation import Escalation

STEADY = Case("steady", "p", True, "w")
SHAKY = Case("shaky", "q", True, "w")


def keys_of(keys: list[TrialKey]) -> list[tuple[str, str, int]]:
    return [(key.case.id, key.variant, key.index) for key in keys]


def test_start_gives_every_first_round_with_the_variants_side_by_side() -> None:
    schedule = Schedule((STEADY, SHAKY), Escalation(2, 30, 0.05, 2))
    assert keys_of(schedule.start()) == [
        ("steady", "baseline", 0), ("steady", "candidate", 0),
        ("steady", "baseline", 1), ("steady", "candidate", 1),
        ("shaky", "baseline", 0), ("shaky", "candidate", 0),
        ("shaky", "baseline", 1), ("shaky", "candidate", 1),
    ]  # fmt: skip


def test_a_case_goes_on_the_moment_its_own_round_is_complete() -> None:
    schedule = Schedule((STEADY, SHAKY), Escalation(3, 30, 0.05, 2))
    first = schedule.start()
    steady = [key for key in first if key.case is STEADY]
    shaky = [key for key in first if key.case is SHAKY]
    # The shaky case: right with the baseline, split with the candidate (one-vote majority).
    for key in shaky[:-1]:
        assert schedule.record(key.answer(key.variant == "baseline" or key.index == 0)) == []
    more = schedule.record(shaky[-1].answer(False))
    assert keys_of(more) == keys_of(round_keys(SHAKY, 3, 3))
    assert schedule.escalated == {"shaky"}
    # The steady case, unanimous on both sides, is settled after its first round.
    for key in steady:
        assert schedule.record(key.answer(True)) == []
    assert schedule.settled == {"steady"}


def test_cases_a_mass_change_may_decide_wait_for_every_first_round() -> None:
    """Twelve cases flip at once: each waits until the last first round is in, then the
    run's picture (Benjamini-Hochberg over first rounds) settles them all together."""
    cases = [Case(f"c{i}", f"p{i}", True, "w") for i in range(12)]
    schedule = Schedule(cases, Escalation(3, 30, 0.05, 12))
    ready = schedule.start()
    released = []
    for key in ready:
        released += schedule.record(key.answer(key.variant == "baseline"))
    assert released == []
    assert schedule.settled == {case.id for case in cases}
    assert schedule.escalated == set()


def test_an_error_ends_a_case_at_once() -> None:
    schedule = Schedule((STEADY,), Escalation(3, 30, 0.05, 1))
    ready = schedule.start()
    for key in ready[:-1]:
        assert schedule.record(key.answer(key.variant == "baseline")) == []
    assert schedule.record(ready[-1].failed("timed out")) == []
    assert schedule.settled == {"steady"}


def run_slots(slots: RunSlots, keys: list[TrialKey], cost: float) -> list[Trial]:
    async def answer(key: TrialKey) -> Trial:
        await anyio.lowlevel.checkpoint()
        return key.answer(True, usage=Usage(requests=1, cost_usd=cost))

    async def all_of() -> list[Trial]:
        found: list[Trial] = []

        async def one(key: TrialKey) -> None:
            trial = await slots.run(key, answer)
            assert trial is not None
            found.append(trial)

        async with anyio.create_task_group() as group:
            for key in keys:
                group.start_soon(one, key)
        return found

    return anyio.run(all_of)


def test_the_slots_hold_the_limit_and_refuse_past_the_ceiling() -> None:
    limiter = Limiter(2)
    slots = RunSlots(limiter, Budget(0.025, first_estimate=0.01))
    trials = run_slots(slots, round_keys(STEADY, 0, 3), cost=0.01)
    errors = [t.error for t in trials]
    assert errors.count(CEILING) == 4
    assert errors.count(None) == 2
    assert limiter.peak == 2
    assert limiter.in_flight == 0


def test_a_refused_key_stops_every_trial_not_yet_started() -> None:
    slots = RunSlots(Limiter(1))
    started = []

    async def refuse(key: TrialKey) -> Trial:
        started.append(key)
        raise AuthError("refused")

    async def go() -> None:
        async with anyio.create_task_group() as group:
            for key in round_keys(STEADY, 0, 2):
                group.start_soon(slots.run, key, refuse)

    with pytest.raises(BaseExceptionGroup):
        anyio.run(go)
    assert slots.aborted is True
    assert len(started) == 1
