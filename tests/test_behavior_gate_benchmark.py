"""The behavior-gate benchmark: its noisy judge, its suite, and its figures for a fixed seed."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from activation import _config
from activation.verdicts.figures import Count

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import behavior_gate
from behavior_gate import broken, graded, halved, meets, mild_drop, scenario, suite


def test_the_defaults_are_the_ones_the_benchmark_measured() -> None:
    assert (_config.BEHAVIOR_TRIALS, _config.BEHAVIOR_MAX_TRIALS) == (3, 21)
    assert behavior_gate.DEFAULTS == (3, 21)
    assert behavior_gate.SETTINGS[-1] == behavior_gate.DEFAULTS


def test_the_judge_flips_a_tenth_of_grades() -> None:
    assert graded(0.9) == pytest.approx(0.82)
    assert graded(0.1) == pytest.approx(0.18)
    assert graded(0.5) == pytest.approx(0.5)
    assert graded(1.0) == pytest.approx(0.9)


def test_the_suite_is_fifteen_cases_around_nine_in_ten() -> None:
    rates = Counter(round(baseline, 3) for baseline, _candidate in suite().rates)
    assert rates == {0.82: 9, 0.86: 3, 0.74: 3}
    assert all(baseline == candidate for baseline, candidate in suite().rates)


def test_each_change_moves_what_it_says() -> None:
    assert [round(rate, 3) for rate in broken().rates[0]] == [0.82, 0.18]
    assert broken().rates[1:] == suite().rates[1:]
    assert [round(rate, 3) for rate in mild_drop().rates[0]] == [0.82, 0.5]
    assert sorted({(round(b, 3), round(c, 3)) for b, c in halved().rates}) == [
        (0.74, 0.42),
        (0.82, 0.46),
        (0.86, 0.48),
    ]


def test_a_broken_case_for_a_fixed_seed() -> None:
    found = scenario(broken(), *behavior_gate.DEFAULTS, runs=10)
    assert found.caught == Count(9, 10)
    assert found.failed == Count(9, 10)
    assert found.mean_runs == pytest.approx(178.2)
    assert found.p95_runs == 228.0
    assert meets(found) is True
    assert meets(replace(found, caught=Count(8, 10))) is False


def test_nothing_changed_for_a_fixed_seed() -> None:
    found = scenario(suite(), *behavior_gate.DEFAULTS, runs=10)
    assert found.caught is None
    assert found.failed == Count(0, 10)
    assert found.mean_runs == pytest.approx(155.4)
    assert found.p95_runs == pytest.approx(201.9)
    assert found.per_case_arm == pytest.approx(5.18)
    assert meets(found) is True
    assert meets(replace(found, failed=Count(1, 10))) is False
