"""Which proposed description wins a round of `suggest`, from its runs on the select split.

A proposal is run against the current description in every cell. It is out when any
(case, cell) REGRESSED or WEAKENED (right still, but significantly less often), or when it
takes a sibling's case: a case that expects another skill
of the set, right by majority with the current description and wrong with the proposal
(significant or not: a sibling's loss is never worth a gain here). Among the rest, the best
is the one with the most cases right over all cells, then the most right in its worst cell,
then the shortest. It replaces the current description only when it beats it
significantly: some (case, cell) IMPROVED, and more cases right over all cells than the
current description has in the same runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from activation._models import CaseVerdict, Status


@dataclass(frozen=True)
class Judged:
    """One proposal, as its select runs found it."""

    text: str
    correct: int
    """Cases right by majority with the proposal, over every cell."""
    current_correct: int
    """The same for the current description, in the same runs."""
    worst_cell: int
    """Cases right with the proposal in its worst cell."""
    regressed: tuple[str, ...] = ()
    """`cell: case` pairs that REGRESSED."""
    weakened: tuple[str, ...] = ()
    stolen: tuple[str, ...] = ()
    """`cell: case` pairs of siblings' cases the proposal took."""
    improved: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    rejected: str | None = None
    """Why it was never run (its text broke a rule), else None."""

    @property
    def out(self) -> str | None:
        """Why it cannot win, or None."""
        if self.rejected:
            return self.rejected
        if self.errors:
            return f"ERROR {by_cell(self.errors)}: not enough evidence"
        if self.regressed:
            return f"REGRESSED {by_cell(self.regressed)}"
        if self.weakened:
            return f"WEAKENED {by_cell(self.weakened)}"
        if self.stolen:
            return f"takes siblings' cases {by_cell(self.stolen)}"
        return None

    @property
    def beats_current(self) -> bool:
        return self.out is None and bool(self.improved) and self.correct > self.current_correct

    @property
    def rank(self) -> tuple[int, int, int]:
        return self.correct, self.worst_cell, -len(self.text)


def by_cell(pairs: Sequence[str]) -> str:
    """`cell: case` pairs as `case, case (cell); case (other cell)`."""
    cases: dict[str, list[str]] = {}
    for pair in pairs:
        cell, _, case_id = pair.partition(": ")
        cases.setdefault(cell, []).append(case_id)
    return "; ".join(f"{', '.join(ids)} ({cell})" for cell, ids in cases.items())


def takes_from_sibling(verdict: CaseVerdict, target: str) -> bool:
    owner = verdict.expect
    if not owner or target in owner:
        return False
    return verdict.baseline.right and not verdict.candidate.right


def judge_proposal(text: str, cells: Mapping[str, Sequence[CaseVerdict]], target: str) -> Judged:
    """`cells`: each cell's verdicts, the current description as baseline, the proposal as
    candidate."""

    def where(*statuses: Status) -> tuple[str, ...]:
        return tuple(
            f"{cell}: {v.id}"
            for cell, found in cells.items()
            for v in found
            if v.status in statuses
        )

    rights = {cell: sum(v.candidate.right for v in found) for cell, found in cells.items()}
    return Judged(
        text,
        correct=sum(rights.values()),
        current_correct=sum(v.baseline.right for found in cells.values() for v in found),
        worst_cell=min(rights.values(), default=0),
        regressed=where(Status.REGRESSED),
        weakened=where(Status.WEAKENED),
        stolen=tuple(
            f"{cell}: {v.id}"
            for cell, found in cells.items()
            for v in found
            if v.status is not Status.REGRESSED and takes_from_sibling(v, target)
        ),
        improved=where(Status.IMPROVED),
        errors=where(Status.ERROR),
    )


def rejected(text: str, why: str) -> Judged:
    return Judged(text, 0, 0, 0, rejected=why)


def winner(judged: Sequence[Judged]) -> Judged | None:
    """The best proposal that is not out, if it beats the current description; else None."""
    standing = [item for item in judged if item.out is None]
    if not standing:
        return None
    best = max(standing, key=lambda item: item.rank)
    return best if best.beats_current else None
