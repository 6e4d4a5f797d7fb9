"""A run of several cells (stage x agent x model): each cell's own report, and what only
the whole shows (the gate over every cell, where a case changed, how far cells agree).

Every run is a matrix: a run of one cell is a matrix of one. A `Matrix` holds one `Report`
per cell, each the report a run of that cell alone would write, except that significance
was judged across every (case, cell) pair of the run. A one-cell matrix is saved as its
cell's `Report` (`activation-report/4`, as a run always wrote it) and read back as one;
`activation-matrix/1` is the JSON of a run of several.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING, Literal, TypeAlias

from activation._errors import ExitCode
from activation._models import VARIANTS, RunOutcome, Shard, Status, Usage, gate
from activation.inputs.identity import combined
from activation.report.model import Report, build_report
from activation.verdicts.agreement import Agreement, agreement
from activation.verdicts.behavior import costs_more, lift_missing

MATRIX_SCHEMA = "activation-matrix/1"


@dataclass(frozen=True, kw_only=True)
class Matrix:
    schema: Literal["activation-matrix/1"] = "activation-matrix/1"
    version: str
    exit_code: int
    error: str | None = None
    interrupted: bool = False
    fingerprint: str = ""
    """The whole run's identity: only shards of the same matrix merge."""
    shard: Shard | None = None
    """This report is shard `index` of `count`; each cell's report holds its share."""
    cells: tuple[Report, ...]
    agreement: tuple[Agreement, ...] = ()
    """Every pair of cells, for each variant: how often they rated a case alike."""
    usage: Usage

    @property
    def single(self) -> Report | None:
        """The report of a one-cell run (what its files show and its JSON holds)."""
        return self.cells[0] if len(self.cells) == 1 else None

    def stopped(self, code: int, error: str) -> Matrix:
        """The run as a failure left it: its exit code and why, on it and on its cells."""
        cells = tuple(replace(cell, exit_code=code, error=error) for cell in self.cells)
        return replace(self, exit_code=code, error=error, cells=cells)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(report.cell for report in self.cells)

    def regressed_in(self) -> tuple[str, ...]:
        """The cells with a case that fails the gate."""
        return tuple(report.cell for report in self.cells if report.exit_code == ExitCode.REGRESSED)


def agreements(cells: Sequence[Report]) -> tuple[Agreement, ...]:
    """Each pair of cells that ran cases in common, for each variant."""
    return tuple(
        agreement((one.cell, other.cell), one.cases, other.cases, variant)
        for one, other in combinations(cells, 2)
        for variant in VARIANTS
    )


def matrix_exit(cells: Sequence[Report], fail_on: Sequence[str], incomplete: bool = False) -> int:
    """A regression in any cell fails the gate (so does a behavior cell without lift or
    whose candidate costs more, when asked, and a candidate an agent shows less of); then
    an error in any cell fails it closed, as does a cell whose agent lists the measured
    skill in neither variant."""
    statuses = (entry.status for report in cells for entry in report.cases)
    unfinished = incomplete or any(report.summary.unfinished for report in cells)
    interrupted = any(report.interrupted for report in cells)
    no_lift = any(lift_missing(report.cases, report.trials) for report in cells)
    dearer = any(costs_more(report.cases, report.cost_margin, report.alpha) for report in cells)
    unseen = any(len(report.unseen) == len(VARIANTS) for report in cells)
    hidden = any(report.less_visible for report in cells)
    return int(
        gate(
            statuses,
            fail_on,
            interrupted=interrupted,
            incomplete=unfinished or unseen,
            no_lift=no_lift,
            costs_more=dearer,
            less_visible=hidden,
        )
    )


def assembled(
    cells: tuple[Report, ...],
    version: str,
    fingerprint: str,
    shard: Shard | None = None,
    incomplete: bool = False,
) -> Matrix:
    """The matrix of these cell reports (a run's, or shards' merged; `incomplete`: some of
    its cases have no evidence at all, such as a missing shard's)."""
    return Matrix(
        version=version,
        exit_code=matrix_exit(cells, cells[0].fail_on, incomplete),
        interrupted=any(report.interrupted for report in cells),
        fingerprint=fingerprint,
        shard=shard,
        cells=cells,
        agreement=agreements(cells),
        usage=sum((report.usage for report in cells), Usage()),
    )


def build_matrix(
    outcomes: Sequence[RunOutcome],
    version: str,
    warnings: tuple[str, ...] = (),
    rerun: tuple[str, ...] = (),
    notices: Sequence[str | None] = (),
) -> Matrix:
    """The matrix of a run's cells; `notices` are each cell stage's notice. Its identity is
    the shard's, or that of its cells' (each computed once, by its report)."""
    cells = tuple(
        build_report(outcome, version, warnings, rerun=rerun, notice=notice)
        for outcome, notice in zip(outcomes, notices or [None] * len(outcomes), strict=True)
    )
    shard = outcomes[0].spec.shard
    fingerprint = shard.fingerprint if shard else combined([cell.fingerprint for cell in cells])
    return assembled(cells, version, fingerprint, shard)


def of_report(report: Report) -> Matrix:
    """A saved one-cell run as the matrix it is (its own exit code and error kept)."""
    return Matrix(
        version=report.version,
        exit_code=report.exit_code,
        error=report.error,
        interrupted=report.interrupted,
        fingerprint=report.fingerprint,
        shard=report.shard,
        cells=(report,),
        usage=report.usage,
    )


def changed_cells(matrix: Matrix) -> dict[str, dict[str, Status]]:
    """Case id -> cell -> status, for the cases flagged in some cell (not PASS or FAIL in
    every cell), in the first cell's case order."""
    found: dict[str, dict[str, Status]] = {}
    for report in matrix.cells:
        for entry in report.cases:
            found.setdefault(entry.id, {})[report.cell] = entry.status
    quiet = (Status.PASS, Status.FAIL)
    return {
        case_id: statuses
        for case_id, statuses in found.items()
        if any(status not in quiet for status in statuses.values())
    }


if TYPE_CHECKING:
    SavedRun: TypeAlias = Report | Matrix
else:

    class SavedRun(ABC):  # noqa: B024 (a name two records register under: nothing to implement)
        """A run held in another document as its own JSON saves it: one cell's Report, or
        the Matrix of several. To the type checker it is that union; msgspec takes at most
        one dataclass per union, so to msgspec it is a name report/schemas.py describes and
        reads, which both records are registered under."""

    SavedRun.register(Report)
    SavedRun.register(Matrix)
