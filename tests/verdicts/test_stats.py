"""The exact test of the verdict contract, against values computed independently of scipy's
Boschloo."""

from __future__ import annotations

from math import comb

import pytest

from activation.verdicts.stats import one_sided_p


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
