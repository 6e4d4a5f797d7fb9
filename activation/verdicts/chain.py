"""The attribution chain of a behavior run: of each arm's trials with the skill installed,
how many had it listed (the agent's visibility verdict for its listing), loaded it, followed
it (every grader the case marks `follows: true` passed) and passed, with the pass rate at
each step.

Where the chain narrows tells what to fix: listed but seldom loaded is the description;
loaded but seldom followed is a body the agent ignores; followed but failing is a body that
is wrong. Pure, over the trials a report keeps and the visibility verdicts it records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from activation._models import VARIANTS, Trial, VariantName
from activation.verdicts.behavior import Rate, trial_rate

NOT_LISTED = "hidden"
"""The one visibility verdict (trials/listing/visibility.py) under which a run cannot load
the skill."""


@dataclass(frozen=True)
class ArmChain:
    """One arm with the skill: each step's trials (`applied`) and those of them that
    passed (`passed`), so each step's pass rate is its own."""

    arm: VariantName
    listing: str | None
    """How the agent lists the measured skill in this arm: `full`, `cut`, `collapsed` (name
    only) or `hidden`; None where the report records no verdict."""
    trials: Rate
    """Every trial of the arm that ran without an error (errors counted apart)."""
    listed: Rate | None
    """The trials whose listing shows the skill (whole, cut or by name): all of them or
    none; None without a visibility verdict."""
    loaded: Rate
    """The trials that loaded the measured skill."""
    followed: Rate | None
    """The loaded trials in which every `follows` grader that applied passed (at least one
    did); None when no grader of the arm's trials is marked `follows`."""

    @property
    def steps(self) -> tuple[tuple[str, Rate | None], ...]:
        """The chain's steps in order, as outputs name them."""
        return (("trials", self.trials), ("listed", self.listed), ("loaded", self.loaded),
                ("followed", self.followed))  # fmt: skip


def followed(trial: Trial) -> bool:
    """Every `follows` grade that applied passed, and at least one applied."""
    outcomes = [grade.outcome for grade in trial.grades if grade.follows]
    applied = [outcome for outcome in outcomes if outcome in ("passed", "failed")]
    return bool(applied) and all(outcome == "passed" for outcome in applied)


def arm_chain(trials: Sequence[Trial], arm: VariantName, listing: str | None) -> ArmChain:
    valid = [trial for trial in trials if not trial.is_error]
    loaded = [trial for trial in valid if trial.activated]
    marked = any(grade.follows for trial in valid for grade in trial.grades)
    listed = None if listing is None else trial_rate(valid if listing != NOT_LISTED else ())
    return ArmChain(
        arm,
        listing,
        trial_rate(trials),
        listed,
        trial_rate(loaded),
        trial_rate(filter(followed, loaded)) if marked else None,
    )


def chain(
    trials: Sequence[Trial], listings: Mapping[VariantName, str | None]
) -> tuple[ArmChain, ...]:
    """Each arm with the skill (baseline, candidate): its chain over every case's trials;
    `listings`: the measured skill's visibility verdict in each arm's listing."""
    return tuple(
        arm_chain([trial for trial in trials if trial.variant == arm], arm, listings.get(arm))
        for arm in VARIANTS
    )
