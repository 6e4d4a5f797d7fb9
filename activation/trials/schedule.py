"""The one trial scheduler both stages share.

Every trial runs in one task group under one capacity limiter, so `--concurrency` bounds
requests (Stage A) and agent processes (Stage B) alike. Each case runs as its own task, so
the limiter never waits for the slowest case of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import anyio

from activation._errors import ApiUnreachable, AuthError
from activation._models import VARIANTS, Case, Trial, TrialKey
from activation.trials.backend import Backend


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

    def __init__(self, on_trial: Callable[[Trial], None] | None = None) -> None:
        self.trials: list[Trial] = []
        self.settled: set[str] = set()
        """Cases that ran every trial they were going to run."""
        self.cut_off = 0
        """Trials cancelled while running: each had sent at least one request."""
        self._on_trial = on_trial

    def add(self, trial: Trial) -> None:
        self.trials.append(trial)
        if self._on_trial is not None:
            self._on_trial(trial)


async def run_cases(
    cases: Sequence[Case], trials: int, backend: Backend, limit: int, ledger: Ledger
) -> None:
    """Run `trials` per variant for every case; an exception (a refused key, an unreachable
    API, a bug) cancels everything and surfaces bare."""
    limiter = anyio.CapacityLimiter(limit)
    aborted = False

    async def one(key: TrialKey) -> None:
        nonlocal aborted
        async with limiter:
            if aborted:  # the run is ending: no new request while the cancellation spreads
                return
            try:
                trial = await backend.run(key)
            except anyio.get_cancelled_exc_class():
                ledger.cut_off += 1
                raise
            except (AuthError, ApiUnreachable):
                aborted = True
                raise
        ledger.add(trial)

    async def case_trials(case: Case) -> None:
        async with anyio.create_task_group() as group:
            for key in round_keys(case, 0, trials):
                group.start_soon(one, key)
        ledger.settled.add(case.id)

    try:
        async with anyio.create_task_group() as group:
            for case in cases:
                group.start_soon(case_trials, case)
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
