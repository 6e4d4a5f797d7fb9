"""The cost ceiling (`--max-cost-usd`): whether the next trial may start."""

from __future__ import annotations

from activation._models import ErrorClass, Trial, TrialKey

CEILING = "cost ceiling"
"""The error of a trial `--max-cost-usd` kept from starting."""


def kept_out(key: TrialKey) -> Trial:
    """The trial the ceiling kept from starting: a budget hit, so the model's class."""
    return key.failed(CEILING, kind=ErrorClass.MODEL)


class Budget:
    """`--max-cost-usd`: a trial starts only while the money spent, plus what the trials in
    flight are expected to cost, plus this one, stays within the ceiling; once one is
    refused, every later one is too. So a run never overshoots by more than what the trials
    already in flight cost beyond their estimate.

    A trial's expected cost is the mean cost of the paid trials finished so far (cached ones
    cost nothing and say nothing about the next request); before any has finished it is
    `first_estimate` (the command line passes the stage's own estimate of a trial).
    """

    def __init__(self, limit: float, first_estimate: float) -> None:
        self.limit = limit
        self.first_estimate = first_estimate
        self.spent = 0.0
        self.in_flight = 0
        self.hit = False
        self._paid = 0
        self._paid_cost = 0.0

    @property
    def estimate(self) -> float:
        return self._paid_cost / self._paid if self._paid else self.first_estimate

    def admit(self) -> bool:
        """Whether the next trial may start (it then counts as in flight until `finish`)."""
        if self.hit or self.spent + (self.in_flight + 1) * self.estimate > self.limit:
            self.hit = True
            return False
        self.in_flight += 1
        return True

    def finish(self, trial: Trial | None) -> None:
        """A trial that was admitted ended (None: it was cancelled)."""
        self.in_flight -= 1
        if trial is None:
            return
        cost = trial.usage.cost_usd or 0.0
        self.spent += cost
        if trial.usage.requests and not trial.cached:
            self._paid += 1
            self._paid_cost += cost
