"""The judge-majority benchmark: the majority's error rate, and the suite it simulates."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from judge_majority import graded, population, wrong


def test_the_majority_of_k_samples_is_wrong_when_more_than_half_are() -> None:
    assert wrong(1) == pytest.approx(0.1)
    assert wrong(3) == pytest.approx(3 * 0.01 * 0.9 + 0.001)  # 0.028
    assert wrong(5) == pytest.approx(10 * 0.001 * 0.81 + 5 * 0.0001 * 0.9 + 0.00001)  # 0.00856


def test_a_trials_grade_folds_the_true_pass_and_the_majoritys_error() -> None:
    assert graded(0.9, 1) == pytest.approx(0.82)
    assert graded(0.9, 3) == pytest.approx(0.9 * 0.972 + 0.1 * 0.028)
    assert graded(1.0, 5) == pytest.approx(1 - wrong(5))


def test_each_scenario_changes_what_it_says() -> None:
    same = population("A/A", 3)
    assert len(same.rates) == 15
    assert all(baseline == candidate for baseline, candidate in same.rates)
    broken = population("one case broken", 3)
    assert broken.rates[0] == pytest.approx((graded(0.9, 3), graded(0.1, 3)))
    assert broken.rates[1:] == same.rates[1:]
    halved = population("every case halved", 1)
    assert halved.rates[0] == pytest.approx((0.82, graded(0.45, 1)))
