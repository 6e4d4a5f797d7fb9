"""The one trial scheduler every backend shares: rounds per case, the run's slots.

`Schedule` decides which trials a run needs next, from the trials it has so far. It is pure
bookkeeping (no I/O, no clock, no waiting): given a finished trial it says which trials have
become ready, so the same decisions drive a real run (trials/engine.py), a simulation
(trials/simulate.py) and a test. Each case runs round after round as long as its escalation
asks, and its next round is ready the moment its own round is complete, so no case waits for
the slowest case of a round. A later round uses new trial indices, so the menu orders of
Stage A stay paired between variants and distinct.

`RunSlots` is what every trial passes through: the one concurrency limit (fixed or
adaptive, see limiter.py), the cost ceiling, and the retries of a trial whose environment
failed (an infrastructure error: only its last attempt is the trial, so none is counted
twice).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

import anyio

from activation._config import INFRASTRUCTURE_RETRIES
from activation._errors import ApiUnreachable, AuthError
from activation._models import VARIANTS, Arm, ErrorClass, StageCase, Tally, Trial, TrialKey, Usage
from activation.trials.backend import RunOne
from activation.trials.budget import Budget, kept_out
from activation.trials.errors import InfrastructureFailure
from activation.trials.limiter import Limiter
from activation.verdicts.escalation import Escalation
from activation.verdicts.judge import p_value, q_values, rates_differ, tallies


def round_keys(case: StageCase, first: int, count: int) -> list[TrialKey]:
    """`count` trials per variant from index `first`, the variants interleaved per index, so
    the two sides of a trial run side by side and an interrupted case stays paired."""
    return [
        TrialKey(case, variant, index)
        for index in range(first, first + count)
        for variant in VARIANTS
    ]


class Schedule:
    """Which trials a run needs next, from what it has so far.

    `start` gives every case's first round; `record` takes each finished trial and returns
    the trials that became ready because of it (the case's next round, or, once every first
    round is in, the rounds of the cases that waited for the run's picture).
    """

    def __init__(
        self, cases: Sequence[StageCase], escalation: Escalation, controls: Sequence[Arm] = ()
    ) -> None:
        self.cases = tuple(cases)
        self.escalation = escalation
        self.controls = tuple(controls)
        """Arms run beside the two variants (Stage C's `none`): their first round only."""
        self.trials: list[Trial] = []
        self.by_case: dict[str, list[Trial]] = {}
        self.settled: set[str] = set()
        """Cases that ran every trial they were going to run."""
        self.escalated: set[str] = set()
        self._cases = {case.id: case for case in self.cases}
        self._round: dict[str, int] = {}
        """The index after a case's current round: where its next round starts."""
        self._missing: dict[str, int] = {}
        """Trials of a case's current round not yet in."""
        self._first_rounds_left = len(self.cases)
        self._waiting: list[StageCase] = []
        """Cases whose first round the run's picture may already decide (a mass change)."""

    def start(self) -> list[TrialKey]:
        return [key for keys in self.first_rounds() for key in keys]

    def first_rounds(self) -> Iterator[list[TrialKey]]:
        """Each case's first round, case by case (a run of 3,000 cases and 30 trials makes
        180,000 keys: the engine builds them in steps, so a signal is seen meanwhile)."""
        for case in self.cases:
            yield [
                *self._open(case, 0, self.escalation.first),
                *(
                    TrialKey(case, arm, index)
                    for index in range(self.escalation.first)
                    for arm in self.controls
                ),
            ]

    def record(self, trial: Trial) -> list[TrialKey]:
        self.trials.append(trial)
        self.by_case.setdefault(trial.case_id, []).append(trial)
        if trial.variant not in VARIANTS:  # a control decides nothing
            return []
        self._missing[trial.case_id] -= 1
        if self._missing[trial.case_id]:
            return []
        case = self._cases[trial.case_id]
        baseline, candidate = tallies(self.by_case[case.id])
        if self._round[case.id] > self.escalation.first:
            return self._next(case, baseline, candidate)
        self._first_rounds_left -= 1
        if self.escalation.could_be_decided_now(case, baseline, candidate):
            self._waiting.append(case)
            keys = []
        else:
            keys = self._next(case, baseline, candidate)
        return keys if self._first_rounds_left else keys + self._release()

    def may_test(self, trial: Trial) -> bool:
        """Whether recording `trial` may need the exact test (scipy): only if its case's
        variants, with it, have valid trials at different correct rates. Equal rates give
        p = 1 and an escalation that carries them equal; the run's picture at the end of
        the first rounds only tests cases whose first round already said yes here."""
        return rates_differ(*tallies([*self.by_case.get(trial.case_id, []), trial]))

    def _open(self, case: StageCase, first: int, size: int) -> list[TrialKey]:
        self._round[case.id] = first + size
        self._missing[case.id] = 2 * size
        return round_keys(case, first, size)

    def _next(self, case: StageCase, baseline: Tally, candidate: Tally) -> list[TrialKey]:
        size = self.escalation.next_round(case, baseline, candidate)
        if not size:
            self.settled.add(case.id)
            return []
        self.escalated.add(case.id)
        return self._open(case, self._round[case.id], size)

    def _release(self) -> list[TrialKey]:
        """Every first round is in: a waiting case significant in the run's picture (only
        first rounds count) is decided; the others go on as their escalation says."""
        first = self.escalation.first
        p_values = [
            p_value(case, *tallies(t for t in self.by_case.get(case.id, []) if t.index < first))
            for case in self.cases
        ]
        others = self.escalation.cases - len(self.cases)
        """A shard's picture counts the other shards' cases as p = 1: it decides cautiously."""
        q = q_values([*p_values, *[None] * others])[: len(p_values)]
        significant = {
            case.id
            for case, value in zip(self.cases, q, strict=True)
            if value is not None and value < self.escalation.alpha
        }
        keys: list[TrialKey] = []
        for case in self._waiting:
            if case.id in significant:
                self.settled.add(case.id)
            else:
                keys += self._next(case, *tallies(self.by_case[case.id]))
        self._waiting = []
        return keys


class RunSlots:
    """Every trial of a run passes here: the concurrency limit, then the cost ceiling."""

    def __init__(self, limiter: Limiter, budget: Budget | None = None) -> None:
        self.limiter = limiter
        self.budget = budget
        self.cut_off = 0
        """Trials cancelled while running: each had sent at least one request."""
        self.aborted = False
        """A refused key or an unreachable API: no new trial starts."""
        self.retried = 0
        """Infrastructure errors whose trial was run again."""

    @property
    def most(self) -> int:
        return self.limiter.ceiling or self.limiter.limit

    async def run(self, key: TrialKey, run: RunOne) -> Trial | None:
        await self.limiter.acquire()
        trial: Trial | None = None
        try:
            if self.aborted:  # the run is ending: no new request while the cancellation spreads
                return None
            if not self.admit(key):
                return kept_out(key)
            started = time.monotonic()
            try:
                trial = await self._attempts(key, run)
                trial = replace(trial, seconds=round(time.monotonic() - started, 3))
            except anyio.get_cancelled_exc_class():
                self.cut_off += 1
                raise
            except (AuthError, ApiUnreachable):
                self.aborted = True
                raise
            finally:
                self.done(trial)
            return trial
        finally:
            self.limiter.release(succeeded=trial is not None and not trial.is_error)

    async def _attempts(self, key: TrialKey, run: RunOne) -> Trial:
        """`run(key)`, run again after an infrastructure error at most INFRASTRUCTURE_RETRIES
        times; the trial is the first other outcome or the last attempt, with what every
        attempt spent."""
        spent = Usage()
        for _ in range(INFRASTRUCTURE_RETRIES):
            trial = await self._attempt(key, run)
            if trial.error_class is not ErrorClass.INFRASTRUCTURE:
                break
            spent += trial.usage
            self.retried += 1
        else:
            trial = await self._attempt(key, run)
        return trial if spent == Usage() else replace(trial, usage=trial.usage + spent)

    @staticmethod
    async def _attempt(key: TrialKey, run: RunOne) -> Trial:
        try:
            return await run(key)
        except InfrastructureFailure as error:
            return key.failed(str(error), kind=ErrorClass.INFRASTRUCTURE)

    def admit(self, key: TrialKey) -> bool:
        return self.budget is None or self.budget.admit()

    def done(self, trial: Trial | None) -> None:
        if self.budget is not None:
            self.budget.finish(trial)

    def throttled(self, sent_at: float | None = None) -> None:
        self.limiter.throttled(sent_at)


def decisive(group: BaseExceptionGroup) -> BaseException:
    """The error that ends a run, out of nested task groups: refused credentials or an
    unreachable API when one is there (every trial failed the same way), else the first."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        error = pending.pop(0)
        if isinstance(error, BaseExceptionGroup):
            pending[:0] = error.exceptions
        else:
            leaves.append(error)
    return next((e for e in leaves if isinstance(e, AuthError | ApiUnreachable)), leaves[0])
