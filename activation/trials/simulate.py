"""What the gate can detect: simulated runs through the real schedule and verdicts.

A population gives every case a correct rate per variant; each simulated run draws the
answers at random with those rates (seeded per run) and goes through the same schedule
(first round, escalation, the run-wide early decision) and the same verdicts as a real run,
trial by trial, without an event loop: the schedule decides from the trials it is given,
not from when they arrive. `--dry-run --simulate` and benchmarks/gate_validity.py use this.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from activation._models import VARIANTS, Case, Inputs, RunSpec, Status, Target, Variant
from activation.trials.engine import escalation_for, judge_schedules
from activation.trials.fake import CaseKey, at_rates, fake_trial
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots, Schedule
from activation.verdicts.figures import Count, Interval, interval


@dataclass(frozen=True)
class Change:
    """One case's correct rate moving from `baseline` to `candidate`, and the statuses that
    count as the gate seeing it."""

    name: str
    baseline: float
    candidate: float
    seen_as: frozenset[Status] = frozenset({Status.REGRESSED})


DROP = Change("one case 0.9 -> 0.3", 0.9, 0.3)
"""The regression the gate must catch: a case right 9 times in 10 falls to 3 in 10."""
MILD_DROP = Change("one case 0.9 -> 0.5", 0.9, 0.5, frozenset({Status.REGRESSED, Status.WEAKENED}))
"""A milder drop, seen when it is REGRESSED or WEAKENED."""
STEAL = Change("a sibling's negative goes to the target 6 in 10", 0.97, 0.4)
"""A negative whose home is a sibling skill, right 97 % of the time, starts going to the
target 6 times in 10 (verdicts count correct answers, so only the rates matter)."""


@dataclass(frozen=True)
class Population:
    """Correct rates per case, (baseline, candidate); `change` is what the first case does."""

    name: str
    rates: tuple[tuple[float, float], ...]
    change: Change | None = None

    def with_change(self, change: Change) -> Population:
        """The same cases, the first one changed."""
        moved = (change.baseline, change.candidate)
        return Population(f"{self.name}, {change.name}", (moved, *self.rates[1:]), change)

    def with_drop(self) -> Population:
        return self.with_change(DROP)


def mix(name: str, size: int, shares: Sequence[tuple[float, float]]) -> Population:
    """`size` unchanged cases, split by (share, correct rate), largest share first."""
    counts = [round(size * share) for share, _rate in shares]
    counts[0] += size - sum(counts)
    rates = tuple(
        (correct, correct)
        for count, (_share, correct) in zip(counts, shares, strict=True)
        for _ in range(count)
    )
    return Population(name, rates)


def typical(size: int) -> Population:
    """Half the cases steady (right 97 % of the time), a quarter at 80 %, a quarter at 60 %."""
    return mix("typical", size, [(0.5, 0.97), (0.25, 0.8), (0.25, 0.6)])


def borderline(size: int) -> Population:
    """Most cases borderline: a fifth steady, the rest at 75 %, 60 % and a coin toss."""
    return mix("borderline", size, [(0.3, 0.75), (0.3, 0.6), (0.2, 0.97), (0.2, 0.5)])


@dataclass(frozen=True)
class Characteristics:
    population: str
    runs: int
    false_alarms: Count
    """Runs in which a case that did not change was REGRESSED."""
    false_alarms_interval: Interval | None
    caught: Count | None
    """Runs in which the gate saw the case that changed (None without one)."""
    caught_interval: Interval | None
    mean_calls: float
    flagged: Count
    """Runs in which any case was REGRESSED, changed or not: the runs the gate failed."""
    calls: tuple[int, ...]
    """Each run's calls, in seed order (for percentiles of the cost)."""


def simulated_inputs(population: Population) -> Inputs:
    """A suite of positive cases with nothing behind them but their rates."""
    cases = tuple(
        Case(f"case-{index}", f"simulated prompt {index}", True, "simulated")
        for index in range(len(population.rates))
    )
    nowhere = Path("simulated")
    variant = Variant("simulated", "simulated", "", "simulated")
    target = Target(nowhere, nowhere / "SKILL.md", nowhere, "sim", "skill")
    return Inputs(target, cases, (), variant, variant)


def simulate(population: Population, spec: RunSpec, runs: int, seed: int = 0) -> Characteristics:
    """`runs` seeded runs of the population with the spec's trials, alpha and escalation."""
    inputs = simulated_inputs(population)
    rates: dict[CaseKey, float] = {
        (case.id, variant): correct
        for case, pair in zip(inputs.cases, population.rates, strict=True)
        for variant, correct in zip(VARIANTS, pair, strict=True)
    }
    false_alarms = caught = flagged = 0
    calls: list[int] = []
    for run in range(runs):
        answer = at_rates(rates, seed=seed * 100_003 + run)
        schedule = Schedule(inputs.cases, escalation_for(spec, inputs))
        ready = deque(schedule.start())
        calls.append(0)
        while ready:
            key = ready.popleft()
            calls[-1] += 1
            ready.extend(schedule.record(fake_trial(key, answer(key))))
        (outcome,) = judge_schedules([(spec, inputs)], [schedule], [RunSlots(Limiter(1))])
        statuses = [verdict.status for verdict in outcome.verdicts]
        flagged += Status.REGRESSED in statuses
        changed = population.change
        if changed is not None:
            caught += statuses[0] in changed.seen_as
            statuses = statuses[1:]
        false_alarms += Status.REGRESSED in statuses
    alarms = Count(false_alarms, runs)
    found = None if population.change is None else Count(caught, runs)
    return Characteristics(
        population.name,
        runs,
        alarms,
        interval(alarms, with_interval=True),
        found,
        None if found is None else interval(found, with_interval=True),
        sum(calls) / runs,
        Count(flagged, runs),
        tuple(calls),
    )
