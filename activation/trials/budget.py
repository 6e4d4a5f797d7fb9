"""The cost ceiling (`--max-cost-usd`): whether the next trial may start."""

from __future__ import annotations

import anyio

from activation._models import Trial

CEILING = "cost ceiling"
"""The error of a trial `--max-cost-usd` kept from starting."""


class Budget:
    """`--max-cost-usd`: a trial starts only while the money spent, plus what the trials in
    flight are expected to cost, plus this one, stays within the ceiling; once one is
    refused, every later one is too. So a run never overshoots by more than what the trials
    already in flight cost beyond their estimate.

    A trial's expected cost is the mean cost of the paid trials finished so far (cached ones
    cost nothing and say nothing about the next request). Before any has finished it is
    `first_estimate` (the command line passes the dry run's estimate); without one, trials
    start one at a time until the first has finished and set the mean.
    """

    def __init__(self, limit: float, first_estimate: float | None = None) -> None:
        self.limit = limit
        self.first_estimate = first_estimate
        self.spent = 0.0
        self.in_flight = 0
        self.hit = False
        self._paid = 0
        self._paid_cost = 0.0
        self._finished: anyio.Event | None = None
        """Set when an admitted trial ends (made on first wait: it needs the event loop)."""

    @property
    def estimate(self) -> float | None:
        return self._paid_cost / self._paid if self._paid else self.first_estimate

    async def admit(self) -> bool:
        """Whether the next trial may start (it then counts as in flight until `finish`)."""
        while self.estimate is None and self.in_flight and not self.hit:
            self._finished = self._finished or anyio.Event()
            await self._finished.wait()
        estimate = self.estimate or 0.0
        if self.hit or self.spent + (self.in_flight + 1) * estimate > self.limit:
            self.hit = True
            return False
        self.in_flight += 1
        return True

    def finish(self, trial: Trial | None) -> None:
        """A trial that was admitted ended (None: it was cancelled)."""
        self.in_flight -= 1
        if trial is not None:
            cost = trial.usage.cost_usd or 0.0
            self.spent += cost
            if trial.usage.requests and not trial.cached:
                self._paid += 1
                self._paid_cost += cost
        if self._finished is not None:
            self._finished.set()
            self._finished = None
