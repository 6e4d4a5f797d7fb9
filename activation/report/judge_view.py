"""How often each judge grader disagreed with itself (verdicts/judge_agreement.py), in
every output: a line per judge grader (terminal, JUnit) and a table (Markdown, the page,
templates/_judges.html.j2). A run of one sample per question says how to measure it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from activation.report.markdown import code, escape
from activation.report.phrases import rate_text
from activation.verdicts.behavior import Behavior
from activation.verdicts.figures import Count
from activation.verdicts.judge_agreement import JudgeAgreement

TITLE = "Judge agreement"
NOT_SAMPLED = (
    "judge agreement: not measured (one sample per judge question; --judge-samples 3 asks "
    "each three times and takes the majority)"
)
HEADS = ("case", "judge", "trials whose samples split", "samples against the majority")
GRID_COLUMN = "judge samples split"
"""A matrix's column: over a cell's judge graders, the trials whose samples split."""


def split_text(judge: JudgeAgreement) -> str:
    """ "1/6 = 17%  (95% Wilson 3%-56%)": the trials whose samples did not all agree."""
    return rate_text(Count(judge.split, judge.asked), judge.split_interval)


def minority_text(judge: JudgeAgreement) -> str:
    return f"{judge.minority}/{judge.samples}"


def sampled(judges: Sequence[JudgeAgreement]) -> bool:
    """Whether any judge grader asked more than one sample."""
    return any(judge.asked for judge in judges)


def lines(figures: Behavior) -> list[str]:
    """A line per judge grader; nothing for a suite with no judge grader."""
    return agreement_lines(figures.judges)


def agreement_lines(judges: Sequence[JudgeAgreement]) -> list[str]:
    """A line per judge grader (also `calibrate --behavior`'s, on its A/A run)."""
    if not judges:
        return []
    if not sampled(judges):
        return [NOT_SAMPLED]
    return [
        f"judge agreement, {judge.case}, {judge.grader!r}: its samples split in "
        f"{split_text(judge)} of the trials; {minority_text(judge)} samples against the "
        "majority"
        for judge in judges
    ]


def grid_cell(judges: Sequence[JudgeAgreement]) -> str:
    """ "2/12 trials": a cell's judge graders together; each one's line follows the grid."""
    if not judges:
        return "no judge"
    if not sampled(judges):
        return "not measured"
    split = sum(judge.split for judge in judges)
    return f"{split}/{sum(judge.asked for judge in judges)} trials"


def cell_lines(cell: str, judges: Sequence[JudgeAgreement]) -> list[str]:
    """A matrix cell's line per judge grader, named by its cell (none unless sampled)."""
    return [f"{cell}: {line}" for line in agreement_lines(judges)] if sampled(judges) else []


def markdown(figures: Behavior) -> list[str]:
    """The judges' table, or the line that says it was not measured."""
    if not figures.judges:
        return []
    if not sampled(figures.judges):
        return [escape(NOT_SAMPLED)]
    rows = [
        f"| {code(judge.case)} | {escape(judge.grader)} | {escape(split_text(judge))} | "
        f"{minority_text(judge)} |"
        for judge in figures.judges
    ]
    return [f"**{TITLE}**", "", "| " + " | ".join(HEADS) + " |", "|---" * len(HEADS) + "|", *rows]


@dataclass(frozen=True)
class JudgePage:
    """What the page shows (templates/_judges.html.j2)."""

    judges: Sequence[JudgeAgreement]
    title: str = TITLE
    heads: tuple[str, ...] = HEADS
    not_sampled: str = NOT_SAMPLED

    @property
    def sampled(self) -> bool:
        return sampled(self.judges)

    def split(self, judge: JudgeAgreement) -> str:
        return split_text(judge)

    def minority(self, judge: JudgeAgreement) -> str:
        return minority_text(judge)
