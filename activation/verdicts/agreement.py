"""How far one cell can stand in for another: where two cells ran the same cases, do they
call the same cases right?

Each case of a variant is one rating per cell: right by majority or not (`Tally.right`).
A case an error left without evidence in either cell is not a rating. Agreement is the
share of cases rated alike, and Cohen's kappa, the agreement beyond what the two cells'
own rates of "right" would give by chance. Its 95 % interval uses the large-sample
variance of Fleiss, Cohen and Everitt (1969); on a few spot checks it is wide, and that is
the point of showing it. Kappa is undefined (None) when both cells rate every case the
same way, since chance then explains all of the agreement; when only one does, kappa is 0
and has no interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from math import sqrt

from activation._models import CaseVerdict, Status, VariantName

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval."""


@dataclass(frozen=True)
class AgreementRow:
    """One variant: cases both stages have evidence for, rated alike, kappa, and where
    they differ (verdicts/agreement.py)."""

    variant: VariantName
    cases: int
    """Cases both cells have evidence for."""
    same: int
    """Of them, rated alike (both right or both wrong)."""
    kappa: float | None
    kappa_interval: tuple[float, float] | None
    disagree: tuple[str, ...]
    """The case ids rated differently, in the cases' order."""

    @property
    def share(self) -> float | None:
        return self.same / self.cases if self.cases else None


@dataclass(frozen=True)
class Between:
    """The two cells an agreement compares (Stage A's, then Stage B's, in `calibrate`)."""

    cells: tuple[str, str]


# Bases' fields come last base first: `cells`, then the row's, as the matrix's JSON has them.
@dataclass(frozen=True)
class Agreement(AgreementRow, Between):
    """Two cells' ratings of one variant's cases."""

    @property
    def row(self) -> AgreementRow:
        """The figures alone, as `calibrate --agreement --json` writes them (its record
        names the two cells once)."""
        return AgreementRow(
            **{item.name: getattr(self, item.name) for item in fields(AgreementRow)}
        )


def ratings(verdicts: Sequence[CaseVerdict], variant: VariantName) -> dict[str, bool]:
    """Case id -> right by majority, for the cases with evidence for `variant`."""
    return {
        verdict.id: verdict.tally(variant).right
        for verdict in verdicts
        if verdict.status is not Status.ERROR and verdict.tally(variant).valid
    }


def cohens_kappa(
    pairs: Sequence[tuple[bool, bool]],
) -> tuple[float | None, tuple[float, float] | None]:
    """Kappa of two raters over yes/no ratings, and its 95 % interval (None when undefined
    or when a rater never varies)."""
    n = len(pairs)
    if not n:
        return None, None
    counts = [[0, 0], [0, 0]]
    for first, second in pairs:
        counts[int(first)][int(second)] += 1
    cells = [[count / n for count in row] for row in counts]
    rows = [sum(row) for row in cells]
    cols = [cells[0][j] + cells[1][j] for j in range(2)]
    observed = cells[0][0] + cells[1][1]
    chance = rows[0] * cols[0] + rows[1] * cols[1]
    if counts[0][0] == n or counts[1][1] == n:
        return None, None
    kappa = (observed - chance) / (1 - chance)
    within = sum(cells[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(2))
    across = (1 - kappa) ** 2 * sum(
        cells[i][j] * (cols[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j
    )
    if 0.0 in (*rows, *cols):
        return kappa, None  # one cell rated every case alike: the variance says nothing
    spread = (kappa - chance * (1 - kappa)) ** 2
    variance = max(within + across - spread, 0.0) / (n * (1 - chance) ** 2)
    half = Z95 * sqrt(variance)
    return kappa, (max(-1.0, kappa - half), min(1.0, kappa + half))


def agreement(
    cells: tuple[str, str],
    first: Sequence[CaseVerdict],
    second: Sequence[CaseVerdict],
    variant: VariantName,
) -> Agreement:
    """The two cells' agreement on the cases both have evidence for."""
    one, other = ratings(first, variant), ratings(second, variant)
    shared = [case_id for case_id in one if case_id in other]
    pairs = [(one[case_id], other[case_id]) for case_id in shared]
    kappa, interval = cohens_kappa(pairs)
    disagree = tuple(case_id for case_id in shared if one[case_id] != other[case_id])
    return Agreement(cells, variant, len(shared), len(shared) - len(disagree), kappa, interval,
                     disagree)  # fmt: skip
