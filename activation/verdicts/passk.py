"""pass@k and pass^k: how often a skill gets a task done at least once in k tries, and
every time in k tries (the reliability floor a user who runs it k times lives with).

Both are the unbiased estimators from the trials a case and arm ran, c passed of n valid:
pass@k = 1 - C(n-c, k) / C(n, k), pass^k = C(c, k) / C(n, k). Each needs k <= n; a case with
fewer valid trials has no estimate ("n/a"), never one made up. Over the suite, the mean of
the cases that have one. Errored trials are not tries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb

from activation._models import Arm


@dataclass(frozen=True)
class PassK:
    """pass@k and pass^k of one case (or the suite) in one arm; None: fewer than k valid
    trials (over the suite: no case had k)."""

    at_k: float | None
    every_k: float | None
    cases: int = 1
    """How many cases the figures are over (1 for a case; the suite's mean counts those
    with k valid trials)."""


def pass_at_k(passed: int, valid: int, k: int) -> float | None:
    """The chance at least one of k trials drawn from these passes."""
    return None if k > valid else 1 - comb(valid - passed, k) / comb(valid, k)


def pass_every_k(passed: int, valid: int, k: int) -> float | None:
    """The chance all k trials drawn from these pass."""
    return None if k > valid else comb(passed, k) / comb(valid, k)


def pass_k_of(passed: int, valid: int, k: int) -> PassK:
    return PassK(pass_at_k(passed, valid, k), pass_every_k(passed, valid, k))


def suite_pass_k(per_case: Sequence[Mapping[str, PassK]], arm: Arm) -> PassK:
    """The mean over the cases that have the figures in `arm`."""
    found = [(case[arm].at_k, case[arm].every_k) for case in per_case if arm in case]
    known = [(at_k, every_k) for at_k, every_k in found if at_k is not None and every_k is not None]
    if not known:
        return PassK(None, None, 0)
    return PassK(sum(at_k for at_k, _ in known) / len(known),
                 sum(every_k for _, every_k in known) / len(known), len(known))  # fmt: skip
