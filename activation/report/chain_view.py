"""A behavior run's attribution chain (verdicts/chain.py) in every format: per arm with the
skill, how the agent lists it, then each step's trials (with the skill, listed, loaded,
followed) and how many of them passed. Stage C's view (behavior_view.py) places it beside
the loading figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from rich.table import Table

from activation.report.markdown import escape
from activation.trials.listing.model import Seen
from activation.trials.listing.visibility import SEEN_WORDS
from activation.verdicts.behavior import Rate
from activation.verdicts.chain import ArmChain

TITLE = "Attribution chain (trials with the skill that reached each step; passed of them)"
HEADS = ("arm", "listing", "with the skill", "listed", "loaded", "followed")
UNMARKED = "followed: n/a, no grader of the suite is marked follows: true"


def listing_words(listing: str | None) -> str:
    """ "listed whole", "name only", "not listed"; "unknown" where no verdict was kept."""
    return "unknown" if listing is None else SEEN_WORDS.get(cast("Seen", listing), listing)


def step_cell(rate: Rate | None) -> str:
    """ "6 (5 passed, 83%)": the step's trials and those that passed; "n/a" unknown."""
    if rate is None:
        return "n/a"
    errors = f", {rate.errors} error(s) apart" if rate.errors else ""
    if not rate.applied:
        return f"0{errors}"
    return f"{rate.applied} ({rate.passed} passed, {rate.passed / rate.applied:.0%}{errors})"


def rows(chain: Sequence[ArmChain]) -> list[tuple[str, ...]]:
    return [
        (found.arm, listing_words(found.listing), *(step_cell(rate) for _, rate in found.steps))
        for found in chain
    ]


def notes(chain: Sequence[ArmChain]) -> list[str]:
    """What a reader needs beside the table: a followed step no grader measures."""
    return [UNMARKED] if any(found.followed is None for found in chain) else []


def terminal(chain: Sequence[ArmChain]) -> Table:
    table = Table(title=TITLE, title_justify="left")
    for head in HEADS:
        table.add_column(head)
    for row in rows(chain):
        table.add_row(*row)
    if notes(chain):
        table.caption = notes(chain)[0]
    return table


def markdown(chain: Sequence[ArmChain]) -> list[str]:
    lines = [f"**{TITLE}**", "", "| " + " | ".join(HEADS) + " |",
             "|" + "---|" * len(HEADS)]  # fmt: skip
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows(chain)]
    return [*lines, *(said for note in notes(chain) for said in ("", escape(note)))]


GRID_COLUMN = "listed / loaded / followed (candidate)"
"""The matrix's column: each cell's candidate chain, so the agents read side by side."""


def grid_cell(chain: Sequence[ArmChain]) -> str:
    """ "9 / 8 / 3 of 9": the candidate's trials at each step, of its valid trials."""
    found = next((arm for arm in chain if arm.arm == "candidate"), None)
    if found is None:
        return "n/a"
    reached = [
        "n/a" if rate is None else str(rate.applied)
        for rate in (found.listed, found.loaded, found.followed)
    ]
    return f"{' / '.join(reached)} of {found.trials.applied}"


def line(found: ArmChain) -> str:
    """One arm's chain in a line (JUnit's properties): "candidate (listed whole): with the
    skill 6 (5 passed, 83%), listed ..."."""
    steps = ", ".join(f"{head} {cell}" for head, cell in zip(HEADS[2:], rows([found])[0][2:],
                                                             strict=True))  # fmt: skip
    return f"{found.arm} ({listing_words(found.listing)}): {steps}"
