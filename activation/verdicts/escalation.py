"""Which cases get more trials, and when a case stops: decided from the case's own counts.

Every case runs the first round (`--trials`). A case gets ESCALATION_STEP more trials per
variant when, after its first round, its variants look different: the candidate's correct
rate lower (one-sided p below TRIGGER_P), or higher by more (below IMPROVED_TRIGGER_P: the
gate decides on regressions, so a drop gets the benefit of the doubt), or both variants tied
on a split vote (a majority that one answer would turn). It goes on round after round while
the difference seen so far, carried to `--max-trials`, would still be significant (the
futility stop: a case whose remaining trials could only confirm "no difference" stops),
until it is significant on its own or reaches `--max-trials`. A first round unanimous on
both sides that agrees is settled. Errors end a case at once: an ERROR is final.

A case whose first round is already significant in the run's picture (a mass change: many
cases flipped at once, so Benjamini-Hochberg lets them through) stops after that round.
That is the one decision that looks beyond the case, and it needs every case's first round.

The rule and its constants were chosen by simulation (benchmarks/gate_validity.py, whose
figures are in the README).
"""

from __future__ import annotations

from dataclasses import dataclass

from activation._models import StageCase, Tally
from activation.verdicts.judge import lower, p_value
from activation.verdicts.stats import one_sided_p

TRIGGER_P = 0.35
"""After the first round: a lower candidate with p below this looks different (at 3 trials,
any drop)."""
IMPROVED_TRIGGER_P = 0.11
"""After the first round: a higher candidate with p below this looks different (at 3 trials,
a gain of two votes or more)."""
FUTILE_Q = 0.5
"""Later rounds go on while the rates seen so far, carried to `--max-trials`, would give a
p-value times the run's cases below this: a difference that could still become significant
even as the run's only discovery, with room for the rates to be estimated from few trials."""
ESCALATION_STEP = 3
"""Trials per variant added by each later round."""
ON_ITS_OWN = 0.001
"""A case is decided early when p x (cases in the run) falls below this: significant even
as the run's only discovery, with room to spare for the many looks."""


def split_tie(baseline: Tally, candidate: Tally) -> bool:
    """Equal counts on a split vote: neither side unanimous, so the tie may hide a drop."""
    return baseline.correct * candidate.valid == candidate.correct * baseline.valid and not (
        baseline.unanimous and candidate.unanimous
    )


def carried(tally: Tally, trials: int) -> int:
    """The correct count `trials` trials would give at the tally's rate."""
    return round(tally.correct * trials / tally.valid)


@dataclass(frozen=True)
class Escalation:
    first: int
    max_trials: int
    alpha: float
    cases: int
    """Cases in the whole run, for the early-decision and futility bounds."""

    @property
    def enabled(self) -> bool:
        return self.max_trials > self.first

    def could_be_decided_now(self, case: StageCase, baseline: Tally, candidate: Tally) -> bool:
        """After the first round: could the run's picture already make this case significant?
        Only then does the case wait for every first round before deciding."""
        p = p_value(case, baseline, candidate)
        return self.enabled and p is not None and p < self.alpha

    def promising(self, baseline: Tally, candidate: Tally) -> bool:
        """Whether the rates seen so far, at `--max-trials`, would be a significant
        difference."""
        most = self.max_trials
        low, high = sorted((carried(baseline, most), carried(candidate, most)))
        return low < high and one_sided_p(high, most, low, most) * self.cases < FUTILE_Q

    def next_round(self, case: StageCase, baseline: Tally, candidate: Tally) -> int:
        """Trials per variant for the case's next round; 0 when it stops."""
        trials = min(baseline.valid + baseline.errors, candidate.valid + candidate.errors)
        if baseline.errors or candidate.errors or trials >= self.max_trials:
            return 0
        p = p_value(case, baseline, candidate)
        if p is None or p * self.cases < ON_ITS_OWN:
            return 0
        if trials > self.first:
            suspicious = self.promising(baseline, candidate)
        elif lower(candidate, baseline):
            suspicious = p < TRIGGER_P
        else:
            suspicious = p < IMPROVED_TRIGGER_P or split_tie(baseline, candidate)
        return min(ESCALATION_STEP, self.max_trials - trials) if suspicious else 0
