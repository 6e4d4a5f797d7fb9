"""Stage C's gate validity with a noisy judge, and what it costs in agent runs.

    python benchmarks/behavior_gate.py [--runs 1000]

A behavior trial is a whole agent run whose workspace is graded pass or fail: a vote like a
Stage A answer, so every simulated run goes through the real schedule and verdicts
(escalation, Boschloo on passing trials, Benjamini-Hochberg across cases) on the in-memory
fake (activation/trials/simulate.py), at Stage C's own trial defaults.

The judge is noisy: a trial truly passes with its case's pass rate, then its grade is flipped
with probability FLIP (10 %). The two draws are folded into one, a graded pass with
probability `graded(rate)` = rate (1 - FLIP) + (1 - rate) FLIP, which is the same
distribution: a 0.9 case passes 0.82 of its trials, a 0.1 case 0.18.

The suite: 15 cases, nine at a true pass rate of 0.9, three at 0.95, three at 0.8. Scenarios:
A/A (nothing changed); one case broken (0.9 -> 0.1); every case halved (0.9 -> 0.45, 0.95 ->
0.475, 0.8 -> 0.4); a lone mild drop (0.9 -> 0.5), escalating to more and more trials and at
a fixed number of trials per case. For each: the share of runs whose gate failed (a REGRESSED
case) and the share that caught the changed case (REGRESSED; the mild drop REGRESSED or
WEAKENED), with 95 % Wilson intervals, and the agent runs a run takes over both arms, mean and
95th percentile. Targets: A/A <= 2 % failed, one case broken >= 90 % caught, every case halved
>= 80 % failed. Stage C's defaults (BEHAVIOR_TRIALS, BEHAVIOR_MAX_TRIALS in
activation/_config.py) are the cheapest setting tried (fewest agent runs in A/A) that meets
all three; the table shows cheaper ones that do not. Seeded: a rerun prints the same table.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._config import BEHAVIOR_MAX_TRIALS, BEHAVIOR_TRIALS
from activation._models import RunSpec, Status
from activation.trials.simulate import Change, Population, mix, simulate
from activation.verdicts.figures import Count, Interval, interval

FLIP = 0.10
"""The share of grades the judge gets wrong."""
CASES = 15
PASS_RATES = ((0.6, 0.9), (0.2, 0.95), (0.2, 0.8))
"""(share of the suite, true pass rate): nine cases at 0.9, three at 0.95, three at 0.8."""
SEED = 1
DEFAULTS = (BEHAVIOR_TRIALS, BEHAVIOR_MAX_TRIALS)
"""(first round, most trials per arm): Stage C's defaults, what the benchmark measures."""
SETTINGS = ((2, 20), (3, 19), (3, 20), DEFAULTS)
"""(first round, most trials per arm) measured on every scenario; the defaults last."""
MILD_SETTINGS = (DEFAULTS, (BEHAVIOR_TRIALS, 45), (BEHAVIOR_TRIALS, 90), (45, 45), (60, 60))
"""Tried on the lone mild drop: escalating from the default first round to more and more
trials, and a fixed number of trials on every case (first round = most)."""
TARGETS = {"A/A": 0.02, "one case broken": 0.90, "every case halved": 0.80}
"""The most false alarms A/A may raise, the least share of runs each change must fail."""


def graded(pass_rate: float) -> float:
    """The chance a trial is graded a pass: a true pass left alone or a true fail flipped."""
    return pass_rate * (1 - FLIP) + (1 - pass_rate) * FLIP


def suite(cases: int = CASES) -> Population:
    """The A/A suite: every case at its graded pass rate on both arms."""
    true = mix("A/A", cases, PASS_RATES)
    return Population(true.name, tuple((graded(rate), graded(rate)) for rate, _same in true.rates))


def broken(cases: int = CASES) -> Population:
    """The first case (at 0.9) broken to 0.1 by the edit."""
    changed = suite(cases).with_change(Change("one case broken", graded(0.9), graded(0.1)))
    return replace(changed, name="one case broken")


def halved(cases: int = CASES) -> Population:
    """Every case's true pass rate halved by the edit."""
    true = mix("every case halved", cases, PASS_RATES)
    return Population(true.name, tuple((graded(rate), graded(rate / 2)) for rate, _ in true.rates))


def mild_drop(cases: int = CASES) -> Population:
    """The first case (at 0.9) falls to 0.5; seen when REGRESSED or WEAKENED."""
    seen = frozenset({Status.REGRESSED, Status.WEAKENED})
    change = Change("lone mild drop", graded(0.9), graded(0.5), seen)
    return replace(suite(cases).with_change(change), name="lone mild drop")


SCENARIOS = {"A/A": suite, "one case broken": broken, "every case halved": halved}


@dataclass(frozen=True)
class Figures:
    """One scenario at one setting, over `runs` seeded runs."""

    scenario: str
    trials: int
    max_trials: int
    cases: int
    failed: Count
    """Runs with a REGRESSED case, any: the runs whose gate failed."""
    failed_interval: Interval | None
    caught: Count | None
    """Runs where the gate saw the changed case (None without one): REGRESSED, or for the
    lone mild drop REGRESSED or WEAKENED."""
    caught_interval: Interval | None
    mean_runs: float
    """Agent runs per simulated run, both arms."""
    p95_runs: float

    @property
    def per_case_arm(self) -> float:
        """Mean agent runs a case takes on each arm."""
        return self.mean_runs / (2 * self.cases)

    @property
    def measured(self) -> Count:
        """What the scenario's target is about: the changed case seen, or the gate failed."""
        return self.failed if self.caught is None else self.caught


def scenario(
    population: Population, trials: int, max_trials: int, runs: int, seed: int = SEED
) -> Figures:
    """`runs` seeded runs of one population at one setting, through the real gate."""
    import numpy as np

    spec = RunSpec(trials=trials, max_trials=max_trials)
    found = simulate(population, spec, runs, seed)
    return Figures(
        population.name,
        trials,
        max_trials,
        len(population.rates),
        found.flagged,
        interval(found.flagged, with_interval=True),
        found.caught,
        found.caught_interval,
        found.mean_calls,
        float(np.percentile(found.calls, 95)),
    )


def meets(found: Figures) -> bool:
    """Whether one scenario's figure meets its target (A/A at most, the changes at least)."""
    share = found.measured.hits / found.measured.total
    target = TARGETS[found.scenario]
    return share <= target if found.scenario == "A/A" else share >= target


def measure(job: tuple[str, int, int, int]) -> Figures:
    name, trials, max_trials, runs = job
    population = mild_drop() if name == "lone mild drop" else SCENARIOS[name]()
    return scenario(population, trials, max_trials, runs)


def share(count: Count | None, bounds: Interval | None) -> str:
    """A share to a tenth of a percent, with its interval: targets sit on round figures."""
    if count is None or bounds is None:
        return ""
    low, high = bounds
    return f"{count.hits / count.total:.1%} ({low:.1%}-{high:.1%})"


def row(found: Figures) -> str:
    return (
        f"| {found.scenario} | {found.trials} / {found.max_trials} | "
        f"{share(found.failed, found.failed_interval)} | "
        f"{share(found.caught, found.caught_interval)} | "
        f"{found.mean_runs:.0f} | {found.p95_runs:.0f} | {found.per_case_arm:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(name, *setting, args.runs) for setting in SETTINGS for name in SCENARIOS]
    jobs += [("lone mild drop", *setting, args.runs) for setting in MILD_SETTINGS]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(measure, jobs))
    print(f"{args.runs} seeded runs each, {CASES} cases, a judge that flips {FLIP:.0%} of grades\n")
    print(
        "| scenario | trials / max | gate failed (a REGRESSED case) | changed case caught "
        "| agent runs per run, mean | 95th pct | per case and arm, mean |"
    )
    print("|---|---|---|---|---|---|---|")
    for found in results:
        print(row(found))
    print()
    for trials, max_trials in SETTINGS:
        measured = [
            found
            for found in results
            if (found.trials, found.max_trials) == (trials, max_trials)
            and found.scenario in TARGETS
        ]
        verdict = "meets" if all(meets(found) for found in measured) else "misses"
        print(f"{trials} / {max_trials}: {verdict} the targets")


if __name__ == "__main__":
    main()
