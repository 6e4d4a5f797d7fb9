"""What a saved report gives a later run: the durations its shards are planned by
(`--durations`), and the finished trials an interrupted run does not pay for again
(`--resume`).

Both read the report as `merge` and `report` do (report/codec.py), so a compact report
serves as well as the whole record: every trial keeps its outcome and its wall time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from activation._errors import InputError
from activation._models import Shard, Trial
from activation.inputs.shards import pair_key
from activation.report.matrix import Matrix

TrialSpot = tuple[str, str, int]
"""Where a trial sits in a run: its case, its arm and its index."""


def recorded_durations(saved: Matrix, several: bool) -> dict[str, float]:
    """Each case's (or pair's) recorded work in seconds: the mean wall time of its timed
    trials times the trials it ran (a trial served from the cache or a batch has no time of
    its own). A case none of whose trials was timed is left out."""
    found: dict[str, float] = {}
    for report in saved.cells:
        for entry in report.cases:
            timed = [trial.seconds for trial in entry.trials if trial.seconds is not None]
            if timed:
                mean = sum(timed) / len(timed)
                found[pair_key(entry.id, report.cell, several)] = mean * len(entry.trials)
    return found


def kept_trials(
    saved: Matrix, source: str, fingerprint: str, shard: Shard | None, cells: Sequence[str]
) -> list[dict[TrialSpot, Trial]]:
    """Per cell of this run (by name, in order), the valid trials `saved` finished, which a
    resumed run keeps. An error is not kept: it is asked again, as the cache asks it. A
    report of another run (other descriptions, cases, settings or cells) or of another
    shard is one line (InputError)."""
    if saved.fingerprint != fingerprint:
        raise InputError(
            f"--resume {source}: the report of another run (descriptions, cases or settings "
            "differ): resume with the flags and inputs of the run it interrupted"
        )
    where = _shard_words(saved.shard)
    if where != _shard_words(shard):
        raise InputError(f"--resume {source}: the report of {where}, not of {_shard_words(shard)}")
    if saved.shard and shard and saved.shard.plan != shard.plan:
        raise InputError(
            f"--resume {source}: the report of {where} as another plan shared the cases out "
            "(--durations from another report, or none): resume with the run's own --durations"
        )
    by_cell: Mapping[str, dict[TrialSpot, Trial]] = {
        report.cell: {
            (trial.case_id, trial.variant, trial.index): trial
            for entry in report.cases
            for trial in entry.trials
            if not trial.is_error
        }
        for report in saved.cells
    }
    return [by_cell.get(cell, {}) for cell in cells]


def _shard_words(shard: Shard | None) -> str:
    return "the whole run" if shard is None else f"shard {shard.index}/{shard.count}"
