"""The cost-gate benchmark: its simulated runs go through the product's own efficiency
functions, and a few seeded runs already show the gate's shape (no alarm when nothing
changed, a doubled cost caught)."""

from __future__ import annotations

import sys
from pathlib import Path

from activation import _config
from activation.verdicts.figures import Count

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import efficiency_gate
from efficiency_gate import Figures, measure, row


def test_it_measures_the_defaults() -> None:
    assert (efficiency_gate.CASES, _config.BEHAVIOR_TRIALS, _config.COST_MARGIN) == (15, 3, 0.25)
    assert efficiency_gate.SCENARIOS["every case 2x"] == 2.0


def test_a_few_seeded_runs_raise_no_false_alarm_and_catch_a_doubled_cost() -> None:
    assert measure("A/A", 0.5, 20).failed == Count(0, 20)
    doubled = measure("every case 2x", 0.5, 20)
    assert doubled.failed.hits >= 18
    assert measure("every case 2x", 0.5, 20) == doubled  # seeded: the same again


def test_a_row_gives_the_share_its_wilson_interval_and_the_target() -> None:
    assert row(Figures("A/A", 0.5, Count(3, 1000))) == "| A/A | 0.5 | 0.3% (0.1%-0.9%) | yes |"
    assert row(Figures("every case 2x", 1.0, Count(620, 1000))) == (
        "| every case 2x | 1 | 62.0% (59.0%-65.0%) | NO |"
    )
