"""Which cases get more trials, and when a case stops: decided from the case's own counts.

Every case runs the first round (`--trials`). A case whose variants look different after
it (the one-sided p of its correct counts below TRIGGER_P) or whose majority rests on a
single vote gets ESCALATION_STEP more trials per variant, round after round, while the
difference persists (p below a bound that tightens as trials accumulate, so a difference
that was chance fades out quickly) and until it is significant on its own or reaches
`--max-trials`. Errors end a case at once: an ERROR is final.

A case whose first round is already significant in the run's picture (a mass change: many
cases flipped at once, so Benjamini-Hochberg lets them through) stops after that round.
That is the one decision that looks beyond the case, and it needs every case's first round.

The rule and its constants were chosen by simulation (benchmarks/gate_validity.py): at
the defaults it keeps false alarms of a run where nothing changed near 1 % and catches a
single case falling from 0.9 to 0.3 about 9 times in 10, at about twice the calls of a
fixed 3-trial run.
"""

from __future__ import annotations

from dataclasses import dataclass

from activation._models import Case, Tally
from activation.verdicts.judge import p_value

TRIGGER_P = 0.35
"""After the first round: a p-value below this looks different (at 3 trials, any difference)."""
KEEP_P = 0.3
"""After later rounds the case goes on while p < KEEP_P x (KEEP_AT / trials)^2."""
KEEP_AT = 6
ESCALATION_STEP = 3
"""Trials per variant added by each later round."""
ON_ITS_OWN = 0.001
"""A case is decided early when p x (cases in the run) falls below this: significant even
as the run's only discovery, with room to spare for the many looks."""


def fragile(tally: Tally) -> bool:
    """A tie, or a majority of a single vote: one answer the other way would turn it."""
    return abs(2 * tally.correct - tally.valid) <= 1


@dataclass(frozen=True)
class Escalation:
    first: int
    max_trials: int
    alpha: float
    cases: int
    """Cases in the whole run, for the early-decision bound."""

    @property
    def enabled(self) -> bool:
        return self.max_trials > self.first

    def could_be_decided_now(self, case: Case, baseline: Tally, candidate: Tally) -> bool:
        """After the first round: could the run's picture already make this case significant?
        Only then does the case wait for every first round before deciding."""
        p = p_value(case, baseline, candidate)
        return self.enabled and p is not None and p < self.alpha

    def next_round(self, case: Case, baseline: Tally, candidate: Tally) -> int:
        """Trials per variant for the case's next round; 0 when it stops."""
        trials = min(baseline.valid + baseline.errors, candidate.valid + candidate.errors)
        if baseline.errors or candidate.errors or trials >= self.max_trials:
            return 0
        p = p_value(case, baseline, candidate)
        p = 1.0 if p is None else p
        if trials <= self.first:
            suspicious = p < TRIGGER_P or fragile(baseline) or fragile(candidate)
        else:
            suspicious = p < KEEP_P * (KEEP_AT / trials) ** 2 and p * self.cases >= ON_ITS_OWN
        if not suspicious:
            return 0
        return min(ESCALATION_STEP, self.max_trials - trials)
