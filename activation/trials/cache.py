"""The response cache as a backend wrapper: a backend that names its trials' cache keys gets
its successful trials reused by later runs.

In a pull-request workflow the baseline is the same run after run, so half of every run is
work already paid for. The wrapper asks the store (an edge module, activation/store.py,
which alone touches the disk) for every trial of a round: the answers it holds are delivered
at once, free, and only the rest go to the inner backend, as a smaller round. Only
successful trials are stored: an error is never cached, so it is asked again next time. A
trial served from the cache carries `cached=True` and a usage of one trial from the cache
and no request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

import anyio.lowlevel
import msgspec

from activation._models import Grade, Trajectory, Trial, TrialKey, Usage
from activation.trials.backend import Backend, Round, Wrapper

MISSING_TRANSCRIPT = "the transcript of the run that produced it is gone"


LOOKUP_STEP = 500
"""Keys looked up between two passes through the event loop: a round of 180,000 keys takes
seconds to hash and look up (11 s on a busy machine), and Ctrl-C must be read meanwhile."""


class Store(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, trial: Mapping[str, Any]) -> None: ...


def trial_entry(trial: Trial) -> dict[str, Any]:
    """What is kept of a successful trial: the answer (the skills that fired), why, where
    its transcript is, and what it cost when it was asked. Whether it was right is not
    kept: that is the case's to say, and is judged again when the answer is reused. A
    Stage C trial's answer is its grading: the graders' results, the files and whether all
    passed."""
    entry: dict[str, Any] = {
        "activated": trial.activated,
        "chose": list(trial.chose),
        "evidence": trial.evidence,
        "transcript": trial.transcript,
        "usage": dataclasses.asdict(trial.usage),
    }
    if trial.trajectory is not None:
        saved = msgspec.to_builtins(trial.trajectory, order="deterministic")
        if not trial.trajectory.parts:  # one prompt: the entry earlier versions wrote
            del saved["parts"]
        entry["trajectory"] = saved
    if trial.grades:
        entry |= {
            "passed": trial.correct,
            "grades": [dataclasses.asdict(grade) for grade in trial.grades],
            "files": list(trial.files),
            "workspace": trial.workspace,
        }
    return entry


def cached_trial(key: TrialKey, entry: Mapping[str, Any], target: str) -> Trial | None:
    """The stored answer as this run's trial; None for an entry that is not a valid answer.
    An answer that said only whether the target fired (not which skills did) stays that."""
    activated, chose = entry.get("activated"), entry.get("chose", [])
    if not isinstance(activated, bool) or not isinstance(chose, list):
        return None
    if not all(isinstance(name, str) for name in chose):
        return None
    evidence = str(entry.get("evidence", ""))
    if entry.get("transcript_missing"):
        evidence += f" ({MISSING_TRANSCRIPT})"
    transcript = entry.get("transcript")
    where = transcript if isinstance(transcript, str) else None
    usage = Usage(cost_usd=0.0, from_cache=1)
    if "grades" in entry:
        trial = _graded(key, entry, chose, target, evidence, usage, where)
    elif activated and not chose:
        trial = dataclasses.replace(key.answer(True, evidence, usage, where), cached=True)
    else:
        trial = dataclasses.replace(key.fired(chose, target, evidence, usage, where), cached=True)
    did = _trajectory(entry.get("trajectory"))
    return trial if trial is None or did is None else dataclasses.replace(trial, trajectory=did)


def _trajectory(saved: object) -> Trajectory | None:
    """A stored trajectory (None: an entry from before trajectories, or a damaged one)."""
    try:
        return None if saved is None else msgspec.convert(saved, Trajectory)
    except msgspec.ValidationError:
        return None


class CachedBackend(Wrapper[Backend]):
    """`inner` with its successful trials kept in `store` and served from it; `target` is
    the measured skill's id, which a reused answer is judged against."""

    def __init__(self, inner: Backend, store: Store, target: str) -> None:
        super().__init__(inner)
        self.store = store
        self.target = target

    def cache_key(self, key: TrialKey) -> str | None:
        return self.inner.cache_key(key)

    async def run_round(self, round: Round) -> None:
        digests: dict[tuple[str, str, int], str] = {}
        asked: list[TrialKey] = []
        found: list[Trial] = []
        for count, key in enumerate(round.keys, 1):
            if count % LOOKUP_STEP == 0:
                await anyio.lowlevel.checkpoint()
            digest = self.inner.cache_key(key)
            entry = None if digest is None else self.store.get(digest)
            trial = None if entry is None else cached_trial(key, entry, self.target)
            if trial is not None:
                found.append(trial)
                continue
            if digest is not None:
                digests[key.case.id, key.variant, key.index] = digest
            asked.append(key)

        def keep(trial: Trial) -> None:
            digest = digests.get((trial.case_id, trial.variant, trial.index))
            if digest is not None and not trial.is_error:
                self.store.put(digest, trial_entry(trial))
            round.deliver(trial)

        for trial in found:
            round.deliver(trial)
        if asked:
            await self.inner.run_round(round.of(asked, keep))


def _graded(
    key: TrialKey,
    entry: Mapping[str, Any],
    chose: list[str],
    target: str,
    evidence: str,
    usage: Usage,
    where: str | None,
) -> Trial | None:
    passed, grades, files = entry.get("passed"), entry.get("grades"), entry.get("files")
    if not isinstance(passed, bool) or not isinstance(grades, list) or not isinstance(files, list):
        return None
    try:
        read = tuple(msgspec.convert(grade, Grade) for grade in grades)
    except msgspec.ValidationError:
        return None
    workspace = entry.get("workspace")
    trial = key.graded(passed, read, chose, target, files=tuple(map(str, files)),
                       evidence=evidence, usage=usage, transcript=where,
                       workspace=workspace if isinstance(workspace, str) else None)  # fmt: skip
    return dataclasses.replace(trial, cached=True)
