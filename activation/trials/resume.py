"""`--resume report.json` as a backend wrapper: the trials an interrupted run finished are
delivered again, free, and only the rest go to the inner backend.

The schedule decides from the trials it has, not from where they came from, so a resumed
run asks for exactly the trials an uninterrupted run of the same seeds would, and keeps
those the report holds: its statuses, counts and verdicts are that run's. A kept trial
keeps what the report recorded of it (its usage and wall time too, when the report has
them).
"""

from __future__ import annotations

from collections.abc import Mapping

from activation._models import Trial, TrialKey
from activation.trials.backend import Backend, Round, Wrapper


class ResumedBackend(Wrapper[Backend]):
    """`inner`, with the trials in `kept` (by case, arm and index) served from it."""

    def __init__(self, inner: Backend, kept: Mapping[tuple[str, str, int], Trial]) -> None:
        super().__init__(inner)
        self.kept = kept

    def cache_key(self, key: TrialKey) -> str | None:
        return self.inner.cache_key(key)

    async def run_round(self, round: Round) -> None:
        asked: list[TrialKey] = []
        for key in round.keys:
            trial = self.kept.get((key.case.id, key.variant, key.index))
            if trial is None:
                asked.append(key)
            else:
                round.deliver(trial)
        if asked:
            await self.inner.run_round(round.of(asked))
