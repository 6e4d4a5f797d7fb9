"""Gate validity: false alarms, power and calls of the default rule, by seeded simulation.

    python benchmarks/gate_validity.py [--runs 400] [--cases 40]

Every run goes through the real schedule and verdicts (escalation, Boschloo,
Benjamini-Hochberg) with the in-memory fake answering at random with set correct rates per
case and variant. Two populations of unchanged cases:

- typical: half the cases right 97 % of the time, a quarter 80 %, a quarter 60 %;
- borderline: 30 % at 75 %, 30 % at 60 %, 20 % at 97 %, 20 % a coin toss;

each run as it is (nothing changed) and with its first case changed: a strong drop
(0.9 -> 0.3), a mild drop (0.9 -> 0.5) and a steal (a negative whose home is a sibling
skill, right 97 % of the time, starts going to the target 6 times in 10).

It prints, with 95 % Wilson intervals: the share of runs where nothing changed but some case
was REGRESSED (a no-change edit blocked), the share of runs that saw each change (REGRESSED;
for the mild drop REGRESSED or WEAKENED), and the mean calls of the run that changed most
relative to a fixed 3-trial run and to a fixed run at the setting's own `--trials`.
Targets: blocked <= 2 %, strong drop >= 90 %, mild drop >= 60 %, steal >= 80 %, calls
<= 1.5 x.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._models import RunSpec
from activation.report.phrases import percent
from activation.trials.simulate import (
    DROP,
    MILD_DROP,
    STEAL,
    Characteristics,
    Population,
    borderline,
    simulate,
    typical,
)

SETTINGS = {"defaults (--trials 3)": RunSpec(), "--trials 5": RunSpec(trials=5)}
CHANGES = (DROP, MILD_DROP, STEAL)


def measure(job: tuple[str, RunSpec, Population, int]) -> tuple[str, str, Characteristics]:
    setting, spec, population, runs = job
    return setting, population.name, simulate(population, spec, runs, 1)


def seen(found: Characteristics) -> str:
    assert found.caught is not None
    return percent(found.caught, found.caught_interval)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--cases", type=int, default=40)
    args = parser.parse_args()
    bases = (typical(args.cases), borderline(args.cases))
    jobs = [
        (setting, spec, population, args.runs)
        for setting, spec in SETTINGS.items()
        for base in bases
        for population in (base, *(base.with_change(change) for change in CHANGES))
    ]
    with ProcessPoolExecutor() as pool:
        results = {(setting, name): found for setting, name, found in pool.map(measure, jobs)}
    print(f"{args.runs} seeded runs each, {args.cases} cases\n")
    print(
        "| setting | population | no change blocked | 0.9 -> 0.3 caught "
        "| 0.9 -> 0.5 REGRESSED or WEAKENED | steal caught | calls vs fixed 3 "
        "| vs fixed at --trials |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for setting, spec in SETTINGS.items():
        for base in bases:
            null = results[setting, base.name]
            changed = [results[setting, base.with_change(c).name] for c in CHANGES]
            calls = max(found.mean_calls for found in (null, *changed))
            fixed = args.cases * 2
            print(
                f"| {setting} | {base.name} | "
                f"{percent(null.false_alarms, null.false_alarms_interval)} | "
                + " | ".join(seen(found) for found in changed)
                + f" | {calls / (fixed * 3):.2f}x | {calls / (fixed * spec.trials):.2f}x |"
            )


if __name__ == "__main__":
    main()
