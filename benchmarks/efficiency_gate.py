"""The cost gate's validity (`--fail-on cost`), and what it costs in agent runs.

    python benchmarks/efficiency_gate.py [--runs 1000]

A run is 15 cases at Stage C's default first round (BEHAVIOR_TRIALS trials per arm), each
trial's cost log-normal around its case's own median: case medians spread log-uniformly
from $0.05 to $5 (a one-line fix and a long refactor in one suite), each trial's cost
`median * exp(SIGMA * z)`. The cost gate only reads the baseline and candidate arms, through
the product's own functions (verdicts/efficiency.py): each case's Hodges-Lehmann log ratio,
then the one-sided Wilcoxon signed-rank test over the cases against a 25 % margin
(COST_MARGIN) at alpha 0.05.

Scenarios: A/A (the candidate costs what the baseline does), every case 2x, and every case
1.25x (right at the margin: the gate should fail at most about alpha of these). For each the
share of runs whose gate failed, with its 95 % Wilson interval, at SIGMA 0.5 (agent costs
varying about 50 % run to run) and 1.0 (twice as noisy). Targets: A/A <= 2 % failed, 2x
>= 90 % failed. Agent runs a run takes: cases x trials x 2 arms, no escalation (the cost gate
reads the first round; escalated cases count once). Seeded: a rerun prints the same table.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._config import ALPHA, BEHAVIOR_TRIALS, COST_MARGIN
from activation.verdicts.efficiency import CaseEfficiency, FigureEfficiency, case_ratio, cost_gate
from activation.verdicts.figures import Count, interval

CASES = 15
SEED = 7
SIGMAS = (0.5, 1.0)
"""The spread of one case's trial costs on the log scale."""
SCENARIOS = {"A/A": 1.0, "every case 1.25x (at the margin)": 1.25, "every case 2x": 2.0}
"""The candidate's cost over the baseline's, on every case."""
TARGETS = {"A/A": (0.0, 0.02), "every case 2x": (0.90, 1.0)}
"""The share of runs that may fail the gate (at least, at most), per scenario."""


@dataclass(frozen=True)
class Figures:
    scenario: str
    sigma: float
    failed: Count

    @property
    def meets(self) -> bool:
        low, high = TARGETS.get(self.scenario, (0.0, 1.0))
        value = self.failed.value or 0.0
        return low <= value <= high


def one_run(rng: np.random.Generator, factor: float, sigma: float) -> bool:
    """Whether one simulated run's cost gate fails."""
    medians = np.exp(rng.uniform(math.log(0.05), math.log(5.0), CASES))
    cases = []
    for at, median in enumerate(medians):
        base = median * np.exp(sigma * rng.standard_normal(BEHAVIOR_TRIALS))
        cand = factor * median * np.exp(sigma * rng.standard_normal(BEHAVIOR_TRIALS))
        ratio = case_ratio(cand.tolist(), base.tolist(), "baseline")
        figures = () if ratio is None else (FigureEfficiency("cost_usd", {}, (ratio,)),)
        cases.append(CaseEfficiency(f"case-{at}", figures))
    return cost_gate(cases, COST_MARGIN, ALPHA).fails


def measure(scenario: str, sigma: float, runs: int) -> Figures:
    rng = np.random.default_rng([SEED, int(sigma * 100), round(SCENARIOS[scenario] * 100)])
    failed = sum(one_run(rng, SCENARIOS[scenario], sigma) for _ in range(runs))
    return Figures(scenario, sigma, Count(failed, runs))


def row(found: Figures) -> str:
    low, high = interval(found.failed, True) or (0.0, 0.0)
    target = "" if found.scenario not in TARGETS else (" yes" if found.meets else " NO")
    share = f"{found.failed.hits / found.failed.total:.1%} ({low:.1%}-{high:.1%})"
    return f"| {found.scenario} | {found.sigma:g} | {share} |{target} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    runs = parser.parse_args().runs
    agent_runs = CASES * BEHAVIOR_TRIALS * 2
    print(f"{CASES} cases, {BEHAVIOR_TRIALS} trials per case and arm, margin {COST_MARGIN:.0%}, "
          f"alpha {ALPHA}; {runs} seeded runs per row; "
          f"{agent_runs} agent runs per gate (baseline and candidate)\n")  # fmt: skip
    print("| scenario | sigma | gate failed (95% Wilson) | meets target |")
    print("|---|---|---|---|")
    for sigma in SIGMAS:
        for scenario in SCENARIOS:
            print(row(measure(scenario, sigma, runs)), flush=True)


if __name__ == "__main__":
    main()
