"""What `activation suggest` did: every round's proposals with their select figures and why
each was kept or dropped, the chosen description, and the holdback comparison, the
headline: what the user can expect on prompts nobody tuned for.

The holdback run is an ordinary report (one cell) or matrix (several): the original
description as baseline, the chosen one as candidate, on cases no step of the search saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from activation._errors import ExitCode
from activation._models import VARIANTS, Status, Usage
from activation.inputs.splits import SplitIds
from activation.report import phrases
from activation.report.matrix import Matrix, SavedRun
from activation.report.model import Report
from activation.verdicts.selection import Judged

SCHEMA = "activation-suggestion/1"


@dataclass(frozen=True)
class ProposalRecord(Judged):
    """A proposal as its select runs judged it, and what the search made of it."""

    verdict: str = field(kw_only=True)
    """"chosen", "better, not the best", "not significantly better", or why it was out."""

    @classmethod
    def of(cls, judged: Judged, chosen: Judged | None) -> ProposalRecord:
        if judged is chosen:
            verdict = "chosen"
        elif judged.out is not None:
            verdict = f"out: {judged.out}"
        elif judged.beats_current:
            verdict = "better, not the best"
        else:
            verdict = "not significantly better"
        return cls(**{found.name: getattr(judged, found.name) for found in fields(Judged)},
                   verdict=verdict)  # fmt: skip


@dataclass(frozen=True)
class RoundRecord:
    number: int
    current: str
    """The description the round started from."""
    failures: tuple[str, ...]
    """The train split's failures as the proposer was told them (categories of intent)."""
    proposals: tuple[ProposalRecord, ...]
    chosen: str | None
    usage: Usage
    problem: str | None = None
    """Why the round has no proposals (the proposer's request failed)."""


@dataclass(frozen=True)
class Splits(SplitIds):
    pass  # the name the schema gives the record's splits (ids only)


@dataclass(frozen=True, kw_only=True)
class Suggestion:
    schema: Literal["activation-suggestion/1"] = "activation-suggestion/1"
    version: str
    skill: str
    skill_path: str
    original: str
    chosen: str
    """The description the search ended with (the original when no proposal won)."""
    cells: tuple[str, ...]
    proposer: str = ""
    """The model that proposed the descriptions."""
    notice: str | None = None
    """What every output says about the answers or the proposals (the mock's mean nothing
    about a real agent or a real model's proposals)."""
    splits: Splits
    rounds: tuple[RoundRecord, ...]
    stopped: str
    """Why the search ended, in words."""
    holdback: SavedRun | None = None
    """The holdback run as its JSON saves it: a one-cell run's report, or the matrix."""
    """The original against the chosen description on the holdback split (None when
    nothing was chosen, or the search could not finish)."""
    usage: Usage
    ceiling_hit: bool = False
    """`--max-cost-usd` ended the search before it could finish."""
    written: str | None = None
    """The SKILL.md `--write` changed, if it did."""

    @property
    def changed(self) -> bool:
        return self.chosen != self.original

    @property
    def holdback_cells(self) -> tuple[Report, ...]:
        if self.holdback is None:
            return ()
        return self.holdback.cells if isinstance(self.holdback, Matrix) else (self.holdback,)

    @property
    def exit_code(self) -> int:
        """1 when the chosen description regresses on the holdback, 3 when evidence is
        missing (a failed proposer request, ERROR cases, the cost ceiling), else 0."""
        if self.holdback is not None and self.holdback.exit_code in (
            ExitCode.REGRESSED,
            ExitCode.INCOMPLETE,
            ExitCode.INTERRUPTED,
        ):
            return int(self.holdback.exit_code)
        if self.ceiling_hit or any(item.problem for item in self.rounds):
            return int(ExitCode.INCOMPLETE)
        return int(ExitCode.OK)

    def holdback_gain(self) -> tuple[int, int, int]:
        """Over the holdback's cells: cases right with the original, with the chosen
        description, and (case, cell) pairs IMPROVED minus REGRESSED."""
        cells = self.holdback_cells
        before = sum(entry.baseline.right for cell in cells for entry in cell.cases)
        after = sum(entry.candidate.right for cell in cells for entry in cell.cases)
        net = sum(cell.count(Status.IMPROVED) - cell.count(Status.REGRESSED) for cell in cells)
        return before, after, net


def headline(suggestion: Suggestion) -> str:
    """The result in one plain sentence."""
    if not suggestion.changed:
        return (
            "No proposal beat the current description on the select split: it stays as it "
            "is, and there is nothing to score on the holdback."
        )
    if suggestion.holdback is None:
        return (
            "A description was chosen on the select split, but the search did not get to the "
            "holdback (the cost ceiling): there is no result to trust yet."
        )
    before, after, net = suggestion.holdback_gain()
    total = sum(len(cell.cases) for cell in suggestion.holdback_cells)
    if net <= 0 and after <= before:
        return (
            f"The holdback shows no gain: {after} of {total} (case, cell) pairs right with "
            f"the chosen description, {before} with the original. Keep the original unless "
            "the select figures convince you."
        )
    significant = f"{net} significantly better" if net > 0 else "none significantly"
    return (
        f"On the holdback (prompts no step saw): {after} of {total} (case, cell) pairs right "
        f"with the chosen description, {before} with the original ({significant})."
    )


def holdback_lines(suggestion: Suggestion) -> list[str]:
    """Per holdback cell: recall and false positives, original then chosen, with intervals."""
    lines = []
    for cell in suggestion.holdback_cells:
        figures = [cell.summary.figures(variant) for variant in VARIANTS]
        recall = " -> ".join(phrases.compact_rate(f.recall, f.recall_interval) for f in figures)
        false = " -> ".join(
            phrases.compact_rate(f.false_positives, f.false_positives_interval) for f in figures
        )
        lines.append(
            f"{cell.cell}: recall {recall}; false positives {false}; {phrases.status_counts(cell)}"
        )
    return lines
