"""How even `--shard I/N` shards are: planned from recorded durations, and by hash (today's).

    python benchmarks/shards.py [--suites 500] [--shards 4] [--sizes 15,40,200] [--noise 0.2]

Each simulated suite draws every case's work (its trials' wall time added up) uniformly
between 30 and 300 seconds: durations that vary 10x, as Stage C cases do (a trial of 2 to 8
minutes, public figures, times a case's trials). `--suites` seeded suites per size. For each,
the figure is the longest shard's work over the mean shard's (1.00: perfectly even; the CI
matrix waits for the longest): planned by `planned_shards` from the run's own durations
(the best a plan can do), planned from the previous run's durations when each case's time
moves by up to `--noise` (what CI sees: a plan from last night's report), and hash shards
(`shard_of`, planning nothing). Lines give the median, the 95th percentile and the worst
suite, and the share of suites within the issue's bar of 1.25x.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation.inputs.identity import shard_of
from activation.inputs.shards import planned_shards, shard_loads

BAR = 1.25
"""The issue's bar: the longest of 4 planned shards within 1.25x the mean."""
Plan = Callable[[list[str], dict[str, float], dict[str, float], int], dict[str, int]]


def spread(plan: dict[str, int], durations: dict[str, float], shards: int) -> float:
    """The longest shard's work over the mean shard's."""
    loads = shard_loads(plan, durations, shards)
    return max(loads) / (sum(loads) / shards)


def planned_now(keys: list[str], now: dict[str, float], before: dict[str, float],
                shards: int) -> dict[str, int]:  # fmt: skip
    return planned_shards(keys, now, shards)


def planned_before(keys: list[str], now: dict[str, float], before: dict[str, float],
                   shards: int) -> dict[str, int]:  # fmt: skip
    return planned_shards(keys, before, shards)


def hashed(keys: list[str], now: dict[str, float], before: dict[str, float],
           shards: int) -> dict[str, int]:  # fmt: skip
    return {key: shard_of(key, shards) for key in keys}


PLANS: dict[str, Plan] = {
    "planned, this run's durations": planned_now,
    "planned, last run's durations": planned_before,
    "hash shards (today)": hashed,
}


def figures(size: int, suites: int, shards: int, noise: float) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {name: [] for name in PLANS}
    for seed in range(suites):
        draw = random.Random(seed)
        keys = [f"case-{seed}-{n}" for n in range(size)]
        before = {key: draw.uniform(30.0, 300.0) for key in keys}
        now = {key: seconds * draw.uniform(1 - noise, 1 + noise) for key, seconds in before.items()}
        for name, plan in PLANS.items():
            found[name].append(spread(plan(keys, now, before, shards), now, shards))
    return found


def line(name: str, spreads: Sequence[float]) -> str:
    ordered = sorted(spreads)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    within = sum(value <= BAR for value in ordered) / len(ordered)
    return (
        f"  {name:<31} median {statistics.median(ordered):.3f}  p95 {p95:.3f}  "
        f"worst {ordered[-1]:.3f}  within {BAR}x: {within:.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suites", type=int, default=500)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--sizes", default="15,40,200")
    parser.add_argument("--noise", type=float, default=0.2)
    args = parser.parse_args()
    print(f"longest shard / mean shard, {args.shards} shards, {args.suites} suites per size, "
          f"case work 30-300 s, run-to-run noise +-{args.noise:.0%}")  # fmt: skip
    for size in (int(part) for part in args.sizes.split(",")):
        print(f"{size} cases:")
        for name, spreads in figures(size, args.suites, args.shards, args.noise).items():
            print(line(name, spreads))


if __name__ == "__main__":
    main()
