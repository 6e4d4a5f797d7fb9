"""What `--judge-samples` buys the behavior gate when its judge flips 10 % of its answers.

    python benchmarks/judge_majority.py [--runs 200]

Each trial's grade is the judge's, and the judge is wrong on each sample with probability
FLIP (10 %), independently. With k samples the majority decides (an odd k: no tie), so a
trial's grade is wrong with probability `wrong(k)`: 10 % at k = 1, 2.8 % at k = 3, 0.86 % at
k = 5. As in benchmarks/behavior_gate.py, the true pass and the judge's error fold into one
graded pass rate, and every simulated run goes through the real schedule and verdicts
(escalation, Boschloo per case, Benjamini-Hochberg across cases) at Stage C's own trial
defaults, on the suite and scenarios of that benchmark: 15 cases (nine at a true pass rate of
0.9, three at 0.95, three at 0.8), A/A, one case broken (0.9 -> 0.1), every case halved.

Per k and scenario: the share of runs whose gate failed (a REGRESSED case) and the share
that caught the changed case, with 95 % Wilson intervals, and the agent runs a run takes
(the judge is asked k times per judge grader and trial; the agent runs once). Seeded: a
rerun prints the same table.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._config import BEHAVIOR_MAX_TRIALS, BEHAVIOR_TRIALS
from activation._models import RunSpec
from activation.trials.simulate import Change, Population, mix, simulate
from activation.verdicts.figures import Count, Interval, interval

FLIP = 0.10
"""The share of the judge's answers that are wrong, each sample alike."""
SAMPLES = (1, 3, 5)
"""The `--judge-samples` measured: odd, so the majority is never a tie."""
CASES = 15
PASS_RATES = ((0.6, 0.9), (0.2, 0.95), (0.2, 0.8))
"""(share of the suite, true pass rate), as benchmarks/behavior_gate.py's suite."""
SEED = 1


def wrong(samples: int, flip: float = FLIP) -> float:
    """The chance the majority of `samples` answers is wrong: more than half of them are."""
    return sum(
        comb(samples, bad) * flip**bad * (1 - flip) ** (samples - bad)
        for bad in range(samples // 2 + 1, samples + 1)
    )


def graded(pass_rate: float, samples: int) -> float:
    """The chance a trial is graded a pass: a true pass the majority left alone, or a true
    fail it flipped."""
    error = wrong(samples)
    return pass_rate * (1 - error) + (1 - pass_rate) * error


def population(name: str, samples: int) -> Population:
    """One scenario's cases at their graded pass rates, with the change on the first."""
    true = mix(name, CASES, PASS_RATES)
    same = Population(name, tuple((graded(rate, samples),) * 2 for rate, _ in true.rates))
    if name == "one case broken":
        changed = Change(name, graded(0.9, samples), graded(0.1, samples))
        return replace(same.with_change(changed), name=name)
    if name == "every case halved":
        return Population(
            name,
            tuple((graded(rate, samples), graded(rate / 2, samples)) for rate, _ in true.rates),
        )
    return same


SCENARIOS = ("A/A", "one case broken", "every case halved")


@dataclass(frozen=True)
class Figures:
    """One scenario at one k, over `runs` seeded runs."""

    scenario: str
    samples: int
    failed: Count
    failed_interval: Interval | None
    caught: Count | None
    caught_interval: Interval | None
    mean_runs: float


def measure(job: tuple[str, int, int]) -> Figures:
    name, samples, runs = job
    spec = RunSpec(trials=BEHAVIOR_TRIALS, max_trials=BEHAVIOR_MAX_TRIALS)
    found = simulate(population(name, samples), spec, runs, SEED)
    return Figures(name, samples, found.flagged, interval(found.flagged, with_interval=True),
                   found.caught, found.caught_interval, found.mean_calls)  # fmt: skip


def share(count: Count | None, bounds: Interval | None) -> str:
    if count is None or bounds is None:
        return ""
    low, high = bounds
    return f"{count.hits / count.total:.1%} ({low:.1%}-{high:.1%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(name, samples, args.runs) for samples in SAMPLES for name in SCENARIOS]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(measure, jobs))
    print(f"{args.runs} seeded runs each, {CASES} cases, trials {BEHAVIOR_TRIALS} / "
          f"{BEHAVIOR_MAX_TRIALS}, a judge wrong on {FLIP:.0%} of its answers\n")  # fmt: skip
    print("| judge samples | grade wrong | scenario | gate failed (a REGRESSED case) | "
          "changed case caught | agent runs per run, mean |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for found in results:
        failed = share(found.failed, found.failed_interval)
        caught = share(found.caught, found.caught_interval)
        print(f"| {found.samples} | {wrong(found.samples):.2%} | {found.scenario} | {failed} | "
              f"{caught} | {found.mean_runs:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
