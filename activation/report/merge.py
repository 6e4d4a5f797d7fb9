"""Putting the shards of one run back together: every verdict recomputed from the trials.

Each shard judged its own cases cautiously (the other shards' cases counted as p = 1); the
merged report judges every case again, from its trials, with the false-discovery step across
all cases of the run (every (case, cell) pair of a matrix), exactly as one unsharded run
would have. A matrix's shards each hold every cell, with that shard's share of its cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from activation._errors import InputError
from activation._models import CaseVerdict, Usage
from activation.report.follow_up import without
from activation.report.matrix import Matrix, assembled
from activation.report.model import Report, cell_exit
from activation.verdicts.judge import evidence_in, judge_groups
from activation.verdicts.summary import summarise


@dataclass(frozen=True)
class Merged:
    report: Matrix
    count: int
    missing: tuple[int, ...]
    """Shard numbers no report was given for: their cases have no evidence."""

    @property
    def missing_line(self) -> str | None:
        if not self.missing:
            return None
        listed = ", ".join(f"{index}/{self.count}" for index in self.missing)
        return f"missing shard(s) {listed}: their cases have no evidence, so the gate fails closed"


def check_shards(reports: Sequence[tuple[str, Matrix]]) -> int:
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
        if shard.plan != first.shard.plan:
            raise InputError(
                f"{name}: its shards were planned otherwise than {first_name}'s (--durations "
                "from another report, or none): give every shard the same --durations"
            )
        if shard.index in seen:
            raise InputError(
                f"{name}: shard {shard.index}/{count} is also in {seen[shard.index]}: "
                "shards overlap"
            )
        seen[shard.index] = name
    return count


def merge_saved(reports: Sequence[tuple[str, Matrix]], version: str) -> Merged:
    """The shards of one run, of one cell or a matrix of several, as the whole run: every
    case judged again from its trials, across every (case, cell) pair."""
    count = check_shards(reports)
    first = reports[0][1]
    present = {report.shard.index for _name, report in reports if report.shard}
    missing = tuple(index for index in range(1, count + 1) if index not in present)
    shards = [report.cells for _name, report in reports]
    names = [cell.cell for cell in shards[0]]
    if any([cell.cell for cell in cells] != names for cells in shards):
        raise InputError("the shards ran different cells: only shards of one run merge")
    per_cell = [[cells[number] for cells in shards] for number in range(len(names))]
    judged, unjudged = [], 0
    for parts in per_cell:
        run_cases = parts[0].shard.run_cases if parts[0].shard else ()
        entries = {entry.id: entry for part in parts for entry in part.cases}
        found = [entries[case_id] for case_id in run_cases if case_id in entries]
        judged.append(found)
        unjudged += len(run_cases) - len(found)
    verdicts = judge_groups([evidence_in(found) for found in judged], shards[0][0].alpha, unjudged)
    cells = tuple(
        merged_cell(parts, cell_verdicts, version, bool(missing))
        for parts, cell_verdicts in zip(per_cell, verdicts, strict=True)
    )
    return Merged(assembled(cells, version, first.fingerprint, incomplete=bool(missing)),
                  count, missing)  # fmt: skip


def merged_cell(
    parts: Sequence[Report], verdicts: tuple[CaseVerdict, ...], version: str, missing: bool
) -> Report:
    """One cell's shards as that cell of the whole run, with the verdicts judged across
    the run."""
    first = parts[0]
    assert first.shard is not None  # check_shards made sure
    run_cases = first.shard.run_cases
    seen = {verdict.id for verdict in verdicts}
    interrupted = any(part.interrupted for part in parts)
    code = cell_exit(first, verdicts, interrupted=interrupted, incomplete=missing,
                     less_visible=bool(first.less_visible), unseen=first.unseen,
                     cost_margin=first.cost_margin)  # fmt: skip
    unfinished = tuple(case_id for case_id in run_cases if case_id not in seen)
    return replace(
        first,
        version=version,
        shard=None,
        rerun=tuple(without(first.rerun, {"--json": 1})),  # a shard's report, not the whole's
        cases=verdicts,
        summary=summarise(verdicts, first.trials, first.skill.id, unfinished),
        usage=sum((part.usage for part in parts), Usage()),
        exit_code=int(code),
        interrupted=interrupted,
        error=None,
        warnings=tuple(dict.fromkeys(w for part in parts for w in part.warnings)),
        ceiling_hit=any(part.ceiling_hit for part in parts),
        retried=sum(part.retried for part in parts),
        peak_concurrency=sum(part.peak_concurrency for part in parts),
        final_concurrency=sum(part.final_concurrency for part in parts),
    )
