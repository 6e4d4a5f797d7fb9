"""The one trial scheduler both stages share: rounds per case, one limiter for all.

Every trial runs under one capacity limiter, so `--concurrency` bounds requests (Stage A)
and agent processes (Stage B) alike. Each case runs as its own task, round after round as
long as its escalation asks, so the limiter never waits for the slowest case of a round:
a case's next round queues the moment its own round ends. A later round uses new trial
indices, so the menu permutations of Stage A stay paired between variants and distinct.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import anyio

from activation._errors import ApiUnreachable, AuthError
from activation._models import VARIANTS, Case, Trial, TrialKey
from activation.trials.backend import Backend, Priced
from activation.trials.budget import CEILING, Budget
from activation.verdicts.escalation import Escalation
from activation.verdicts.judge import p_value, q_values, tallies


def round_keys(case: Case, first: int, count: int) -> list[TrialKey]:
    """`count` trials per variant from index `first`, the variants interleaved per index, so
    the two sides of a trial run side by side and an interrupted case stays paired."""
    return [
        TrialKey(case, variant, index)
        for index in range(first, first + count)
        for variant in VARIANTS
    ]


class Ledger:
    """What a run has done so far: what an interruption leaves to judge."""

    def __init__(
        self,
        on_trial: Callable[[Trial], None] | None = None,
        on_plan: Callable[[int], None] | None = None,
    ) -> None:
        self.trials: list[Trial] = []
        self.by_case: dict[str, list[Trial]] = {}
        self.settled: set[str] = set()
        """Cases that ran every trial they were going to run."""
        self.escalated: set[str] = set()
        self.cut_off = 0
        """Trials cancelled while running: each had sent at least one request."""
        self._on_trial = on_trial
        self._on_plan = on_plan

    def plan(self, trials: int) -> None:
        """More trials are coming (an escalated case's next round)."""
        if self._on_plan is not None:
            self._on_plan(trials)

    def add(self, trial: Trial) -> None:
        self.trials.append(trial)
        self.by_case.setdefault(trial.key.case.id, []).append(trial)
        if self._on_trial is not None:
            self._on_trial(trial)


class FirstRounds:
    """Every case's first round, for the one decision that needs the run's picture: may a
    case stop because its first round is already significant across the run?"""

    def __init__(self, cases: Sequence[Case], ledger: Ledger, escalation: Escalation) -> None:
        self._cases = cases
        self._ledger = ledger
        self._alpha = escalation.alpha
        self._first = escalation.first
        self._others = escalation.cases - len(cases)
        """A shard's picture counts the other shards' cases as p = 1: it decides cautiously."""
        self._waiting = len(cases)
        self._all_done = anyio.Event()
        self._significant: set[str] | None = None

    def _first_round(self, case: Case) -> list[Trial]:
        """Only the first round counts: escalated cases may be further along by now."""
        trials = self._ledger.by_case.get(case.id, [])
        return [trial for trial in trials if trial.key.index < self._first]

    def done(self) -> None:
        self._waiting -= 1
        if not self._waiting:
            self._all_done.set()

    async def significant(self, case: Case) -> bool:
        await self._all_done.wait()
        if self._significant is None:
            p_values = [p_value(each, *tallies(self._first_round(each))) for each in self._cases]
            q = q_values([*p_values, *[None] * self._others])[: len(p_values)]
            self._significant = {
                each.id
                for each, value in zip(self._cases, q, strict=True)
                if value is not None and value < self._alpha
            }
        return case.id in self._significant


@asynccontextmanager
async def limited(limiter: anyio.CapacityLimiter) -> AsyncIterator[None]:
    """A slot of the limiter: taken at once when one is free (no trip through the event
    loop, which was most of a simulated trial's cost), else in turn."""
    try:
        limiter.acquire_nowait()
    except anyio.WouldBlock:
        await limiter.acquire()
    try:
        yield
    finally:
        limiter.release()


async def run_cases(
    cases: Sequence[Case],
    escalation: Escalation,
    backend: Backend,
    limit: int,
    ledger: Ledger,
    budget: Budget | None = None,
) -> None:
    """Every case's rounds; an exception (a refused key, an unreachable API, a bug) cancels
    everything and surfaces bare. With a `budget`, trials past it are error trials."""
    limiter = anyio.CapacityLimiter(limit)
    first_rounds = FirstRounds(cases, ledger, escalation)
    aborted = False

    async def one(key: TrialKey) -> None:
        nonlocal aborted
        async with limited(limiter):
            if aborted:  # the run is ending: no new request while the cancellation spreads
                return
            counted = budget is not None and not (
                isinstance(backend, Priced) and backend.is_free(key)
            )
            if counted and not await budget.admit():
                ledger.add(Trial(key, None, error=CEILING))
                return
            trial = None
            try:
                trial = await backend.run(key)
            except anyio.get_cancelled_exc_class():
                ledger.cut_off += 1
                raise
            except (AuthError, ApiUnreachable):
                aborted = True
                raise
            finally:
                if counted:
                    budget.finish(trial)
        ledger.add(trial)

    async def rounds(case: Case) -> None:
        done, size = 0, escalation.first
        while size:
            async with anyio.create_task_group() as group:
                for key in round_keys(case, done, size):
                    group.start_soon(one, key)
            baseline, candidate = tallies(ledger.by_case.get(case.id, []))
            if done == 0:
                first_rounds.done()
                if escalation.could_be_decided_now(
                    case, baseline, candidate
                ) and await first_rounds.significant(case):
                    break
            done += size
            size = escalation.next_round(case, baseline, candidate)
            if size:
                ledger.escalated.add(case.id)
                ledger.plan(2 * size)
        ledger.settled.add(case.id)

    try:
        async with anyio.create_task_group() as group:
            for case in cases:
                group.start_soon(rounds, case)
    except BaseExceptionGroup as failures:
        raise decisive(failures) from None


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
