"""What the gate can detect: simulated runs through the real engine on the in-memory fake.

A population gives every case a correct rate per variant; each simulated run draws the
answers at random with those rates (seeded per run) and goes through the same escalation
and verdicts as a real run. `--dry-run` and benchmarks/gate_validity.py both use this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from activation._models import (
    Case,
    Inputs,
    RunSpec,
    Status,
    Target,
    Variant,
)
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, at_rates
from activation.verdicts.figures import Rate, rate

DROP = (0.9, 0.3)
"""The regression the gate must catch: a case right 9 times in 10 falls to 3 in 10."""


@dataclass(frozen=True)
class Population:
    """Correct rates per case, (baseline, candidate); `dropped` is the case that changed."""

    name: str
    rates: tuple[tuple[float, float], ...]
    dropped: int | None = None

    def with_drop(self) -> Population:
        """The same cases, the first one falling from 0.9 to 0.3."""
        return Population(f"{self.name}, one case 0.9 -> 0.3", (DROP, *self.rates[1:]), 0)


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
    false_alarms: Rate
    """Runs in which a case that did not change was REGRESSED."""
    caught: Rate | None
    """Runs in which the case that changed was REGRESSED (None without one)."""
    mean_calls: float
    fixed_calls: int
    """Calls of a run with 3 trials per case and variant and no escalation."""

    @property
    def relative_calls(self) -> float:
        return self.mean_calls / self.fixed_calls


def _inputs(population: Population) -> Inputs:
    cases = tuple(
        Case(f"case-{index}", f"simulated prompt {index}", True, "simulated")
        for index in range(len(population.rates))
    )
    nowhere = Path("simulated")
    variant = Variant("simulated", "simulated", "", "simulated")
    target = Target(nowhere, nowhere / "SKILL.md", nowhere, "sim", "skill")
    return Inputs(target, cases, (), variant, variant)


async def simulate(
    population: Population, spec: RunSpec, runs: int, seed: int = 0
) -> Characteristics:
    """`runs` seeded runs of the population with the spec's trials, alpha and escalation."""
    inputs = _inputs(population)
    rates = {
        (case.id, variant): correct
        for case, pair in zip(inputs.cases, population.rates, strict=True)
        for variant, correct in zip(("baseline", "candidate"), pair, strict=True)
    }
    spec = replace(spec, concurrency=len(inputs.cases) * 2 * spec.max_trials)
    false_alarms = caught = calls = 0
    for run in range(runs):
        backend = FakeBackend(at_rates(rates, seed=seed * 100_003 + run))
        outcome = await execute_async(spec, inputs, backend)
        calls += backend.calls
        regressed = {
            index
            for index, verdict in enumerate(outcome.verdicts)
            if verdict.status is Status.REGRESSED
        }
        caught += population.dropped in regressed
        false_alarms += bool(regressed - {population.dropped})
    return Characteristics(
        population.name,
        runs,
        rate(false_alarms, runs, with_interval=True),
        None if population.dropped is None else rate(caught, runs, with_interval=True),
        calls / runs,
        len(inputs.cases) * 2 * 3,
    )
