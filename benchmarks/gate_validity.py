"""Gate validity: false alarms, power and calls of the default rule, by seeded simulation.

    python benchmarks/gate_validity.py [--runs 400] [--cases 40]

Every run goes through the real schedule and verdicts (escalation, Boschloo,
Benjamini-Hochberg) with the
in-memory fake answering at random with set correct rates per case and variant. Two
populations of unchanged cases, each also with its first case falling from 0.9 to 0.3:

- typical: half the cases right 97 % of the time, a quarter 80 %, a quarter 60 %;
- borderline: 30 % at 75 %, 30 % at 60 %, 20 % at 97 %, 20 % a coin toss.

For each setting it prints, with 95 % Wilson intervals: the share of runs where nothing
changed but some case was REGRESSED (false alarm), the share of drop runs where the dropped
case was REGRESSED (power) and where another case was too, and the mean calls relative to a
fixed 3-trial run of the same cases. Targets: false alarms <= 5 %, power >= 80 %, calls
<= 2.5 x.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._models import RunSpec
from activation.report.words import percent
from activation.trials.simulate import Characteristics, Population, borderline, simulate, typical

SETTINGS = {
    "defaults (--trials 3)": RunSpec(),
    "--trials 5": RunSpec(trials=5),
    "--max-trials 20": RunSpec(max_trials=20),
}


def measure(job: tuple[str, RunSpec, Population, int]) -> tuple[str, Characteristics]:
    setting, spec, population, runs = job
    return setting, simulate(population, spec, runs, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--cases", type=int, default=40)
    args = parser.parse_args()
    populations = []
    for population in (typical(args.cases), borderline(args.cases)):
        populations += [population, population.with_drop()]
    jobs = [
        (setting, spec, population, args.runs)
        for setting, spec in SETTINGS.items()
        for population in populations
    ]
    with ProcessPoolExecutor() as pool:
        results = list(pool.map(measure, jobs))
    print(f"{args.runs} seeded runs each, {args.cases} cases\n")
    print("| setting | population | false alarms | drop caught | calls vs fixed 3 |")
    print("|---|---|---|---|---|")
    for setting, found in results:
        print(
            f"| {setting} | {found.population} | "
            f"{percent(found.false_alarms, found.false_alarms_interval)} | "
            f"{percent(found.caught, found.caught_interval) if found.caught else '-'} | "
            f"{found.relative_calls:.2f}x |"
        )


if __name__ == "__main__":
    main()
