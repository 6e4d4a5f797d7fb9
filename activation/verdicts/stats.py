"""The statistics of the verdict contract: an exact test per case, the false-discovery
adjustment across cases, and a Wilson interval.

scipy is imported inside the functions: `--help`, `lint`, `detect` and a dry run never need
it, and a run imports it in a worker thread while its first requests are out (see
`warm_up`). The exact test and the interval are cached: verdicts are recomputed from the
same counts again and again.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache


def warm_up() -> None:
    """Import what the statistics need, so the first verdict does not wait for it."""
    import scipy.stats  # noqa: F401


@cache
def one_sided_p(better_correct: int, better_n: int, worse_correct: int, worse_n: int) -> float:
    """Boschloo's exact test that the first variant's correct rate exceeds the second's."""
    import numpy as np
    from scipy.stats import boschloo_exact

    table = np.array(
        [[better_correct, worse_correct], [better_n - better_correct, worse_n - worse_correct]]
    )
    return float(boschloo_exact(table, alternative="greater").pvalue)


def unanimous_flip_p(trials: int) -> float:
    """Boschloo's p of the most extreme table, `trials` of `trials` against 0 of `trials`,
    in closed form: no other table is as extreme, so the p-value is the largest chance of it
    under one shared rate r, max over r of (r (1 - r))^n = 4^-n (tests check it equals
    `one_sided_p`). It says whether a case can regress at all without importing scipy."""
    return float(4.0**-trials)


def bh_adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given."""
    from scipy.stats import false_discovery_control

    return [float(q) for q in false_discovery_control(list(p_values), method="bh")]


@cache
def wilson_interval(hits: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    from scipy.stats import binomtest

    ci = binomtest(hits, total).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def newcombe_interval(
    first_hits: int, first_total: int, second_hits: int, second_total: int
) -> tuple[float, float]:
    """The 95 % interval of a difference of two rates (the first minus the second),
    Newcombe's hybrid score method: each rate's Wilson interval, combined (Newcombe 1998,
    method 10). It stays inside [-1, 1] and behaves at 0/n and n/n, where the plain Wald
    interval collapses."""
    first, second = first_hits / first_total, second_hits / second_total
    low1, high1 = wilson_interval(first_hits, first_total)
    low2, high2 = wilson_interval(second_hits, second_total)
    difference = first - second
    below = ((first - low1) ** 2 + (high2 - second) ** 2) ** 0.5
    above = ((high1 - first) ** 2 + (second - low2) ** 2) ** 0.5
    return difference - below, difference + above
