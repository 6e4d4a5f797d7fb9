"""The one trial scheduler both stages share.

Every trial runs in one task group under one capacity limiter, so `--concurrency` bounds
requests (Stage A) and agent processes (Stage B) alike. It can be called again with more
keys for chosen cases after a first round; verdicts are recomputed from all trials.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence

import anyio

from activation.cases import Case
from activation.errors import AuthError
from activation.trial import VARIANTS, Trial, TrialKey

TrialRunner = Callable[[TrialKey], Awaitable[Trial]]


def trial_keys(cases: Sequence[Case], trials: int, first_index: int = 0) -> list[TrialKey]:
    """Interleave variants per trial so an interrupted run stays paired."""
    return [
        TrialKey(case, variant, index)
        for index in range(first_index, first_index + trials)
        for case in cases
        for variant in VARIANTS
    ]


async def run_trials(
    keys: Iterable[TrialKey],
    runner: TrialRunner,
    limiter: anyio.CapacityLimiter,
    on_trial: Callable[[Trial], None] = lambda _trial: None,
) -> list[Trial]:
    """Run every key concurrently; a runner reports failure as an error Trial, not by raising.

    An authentication failure a runner raises cancels the whole run and surfaces bare.
    """
    done: list[Trial] = []

    async def one(key: TrialKey) -> None:
        async with limiter:
            trial = await runner(key)
        done.append(trial)
        on_trial(trial)

    try:
        async with anyio.create_task_group() as group:
            for key in keys:
                group.start_soon(one, key)
    except* AuthError as failures:
        raise failures.exceptions[0] from None
    return done
