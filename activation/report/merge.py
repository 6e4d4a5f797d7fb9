"""Putting the shards of one run back together: every verdict recomputed from the trials.

Each shard judged its own cases cautiously (the other shards' cases counted as p = 1); the
merged report judges every case again, from its trials, with the false-discovery step across
all cases of the run, exactly as one unsharded run would have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from activation._errors import ExitCode, InputError
from activation._models import Usage, gate
from activation.report.model import Report
from activation.verdicts.judge import rejudge
from activation.verdicts.summary import summarise


@dataclass(frozen=True)
class Merged:
    report: Report
    count: int
    missing: tuple[int, ...]
    """Shard numbers no report was given for: their cases have no evidence."""

    @property
    def missing_line(self) -> str | None:
        if not self.missing:
            return None
        listed = ", ".join(f"{index}/{self.count}" for index in self.missing)
        return f"missing shard(s) {listed}: their cases have no evidence, so the gate fails closed"


def check_shards(reports: Sequence[tuple[str, Report]]) -> int:
    """The number of shards of the run; refuses reports of different runs or repeated shards."""
    first_name, first = reports[0]
    if first.shard is None:
        raise InputError(f"{first_name}: not the report of a shard (run with --shard I/N)")
    count = first.shard.count
    seen: dict[int, str] = {}
    for name, report in reports:
        shard = report.shard
        if report.fingerprint != first.fingerprint:
            raise InputError(
                f"{name}: a different run than {first_name} (descriptions, cases or settings "
                "differ): only shards of one run merge"
            )
        if shard is None or shard.count != count:
            raise InputError(f"{name}: not a shard of {count} like {first_name}")
        if shard.index in seen:
            raise InputError(
                f"{name}: shard {shard.index}/{count} is also in {seen[shard.index]}: "
                "shards overlap"
            )
        seen[shard.index] = name
    return count


def merge_reports(reports: Sequence[tuple[str, Report]], version: str) -> Merged:
    """(file name, report) pairs of one run's shards, as one report of the whole run."""
    count = check_shards(reports)
    first = reports[0][1]
    assert first.shard is not None  # check_shards made sure
    run_cases = first.shard.run_cases
    entries = {entry.id: entry for _name, report in reports for entry in report.cases}
    present = {report.shard.index for _name, report in reports if report.shard}
    missing = tuple(index for index in range(1, count + 1) if index not in present)
    judged = [entries[case_id] for case_id in run_cases if case_id in entries]
    verdicts = rejudge(judged, first.alpha, unjudged=len(run_cases) - len(judged))
    interrupted = any(report.interrupted for _name, report in reports)
    code = (
        ExitCode.INTERRUPTED if interrupted else gate((v.status for v in verdicts), first.fail_on)
    )
    if missing and code is ExitCode.OK:
        code = ExitCode.INCOMPLETE
    unfinished = tuple(case_id for case_id in run_cases if case_id not in entries)
    report = replace(
        first,
        version=version,
        shard=None,
        cases=verdicts,
        summary=summarise(verdicts, first.trials, first.skill.id, unfinished),
        usage=sum((report.usage for _name, report in reports), Usage()),
        exit_code=int(code),
        interrupted=interrupted,
        error=None,
        warnings=tuple(dict.fromkeys(w for _name, report in reports for w in report.warnings)),
        ceiling_hit=any(report.ceiling_hit for _name, report in reports),
        peak_concurrency=sum(report.peak_concurrency for _name, report in reports),
        final_concurrency=sum(report.final_concurrency for _name, report in reports),
    )
    return Merged(report, count, missing)
