"""The exact test of the verdict contract, against values computed independently of scipy's
Boschloo; the BH adjustment and the Wilson interval, computed without scipy, against it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from math import comb
from pathlib import Path

import pytest

from activation.verdicts.stats import bh_adjust, one_sided_p, wilson_interval

ROOT = Path(__file__).resolve().parents[2]


def boschloo_by_hand(x1: int, n1: int, x2: int, n2: int) -> float:
    """Boschloo's one-sided p: max over the nuisance p of P(Fisher p <= observed)."""

    def fisher_greater(a: int, b: int) -> float:
        total = a + b
        return sum(
            comb(n1, i) * comb(n2, total - i)
            for i in range(a, min(n1, total) + 1)
            if 0 <= total - i <= n2
        ) / comb(n1 + n2, total)

    observed = fisher_greater(x1, x2)
    extreme = [
        (i, j)
        for i in range(n1 + 1)
        for j in range(n2 + 1)
        if fisher_greater(i, j) <= observed + 1e-12
    ]
    best = 0.0
    for step in range(1, 2000):
        p = step / 2000
        mass = sum(
            comb(n1, i) * p**i * (1 - p) ** (n1 - i) * comb(n2, j) * p**j * (1 - p) ** (n2 - j)
            for i, j in extreme
        )
        best = max(best, mass)
    return best


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "expected"),
    [(3, 3, 0, 3, 0.015625), (3, 3, 1, 3, 0.109375), (5, 5, 1, 5, 0.0107421875)],
)
def test_one_sided_p_matches_known_values(
    x1: int, n1: int, x2: int, n2: int, expected: float
) -> None:
    assert one_sided_p(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-9)
    assert boschloo_by_hand(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-4)


def test_one_sided_p_by_hand_on_unequal_sizes() -> None:
    assert one_sided_p(4, 4, 1, 5) == pytest.approx(boschloo_by_hand(4, 4, 1, 5), abs=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_the_plain_adjustment_is_scipys(seed: int) -> None:
    """BH in plain Python gives scipy's q-values, ties and p = 1 included."""
    from scipy.stats import false_discovery_control

    chance = random.Random(seed)
    size = chance.choice([1, 2, 7, 300])
    ps = [chance.choice([1.0, 0.5, chance.random(), chance.random() / 1000]) for _ in range(size)]
    expected = [float(q) for q in false_discovery_control(ps, method="bh")]
    assert bh_adjust(ps) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(("hits", "total"), [(0, 1), (1, 1), (0, 30), (30, 30), (7, 20), (1, 3)])
def test_the_closed_form_wilson_interval_is_scipys(hits: int, total: int) -> None:
    from scipy.stats import binomtest

    ci = binomtest(hits, total).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(hits, total) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_a_report_without_a_differing_case_never_imports_scipy() -> None:
    """An interrupted run's way out waited on scipy's import (a warm-up thread starved by
    the mock's trials): BH and Wilson intervals need none now."""
    code = (
        "import sys; from activation.verdicts.stats import bh_adjust, wilson_interval; "
        "bh_adjust([1.0, 0.2]); wilson_interval(3, 7); print('scipy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert done.stdout == "False\n"
