"""The commands a report suggests next: the flagged cases with the stage that confirms
them (Stage A's with `--real`), and the same check again, with every flag that chose it."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from activation._config import AGENT
from activation._models import (
    FLAGGED,
)
from activation.report.model import Report
from activation.trials.stage import stage_named

REAL_TITLE = "Check the flagged cases with the real agent:"


RERUN_TITLE = "Run this check again:"


ONLY_LIMIT = 200
"""The longest `--only` list a suggested command spells out; past it the command reads the
flagged cases from the saved report (`--only-from`), or leaves the choice to the stage."""


NOT_CONFIRMED = {
    "--only": 1, "--only-from": 1, "--model": 1, "--batch": 0, "--concurrency": 1,
    "--price-in": 1, "--price-out": 1, "--max-cost-usd": 1, "--agent": 1, "--json": 1,
    "--distractors": 1,
}  # fmt: skip
"""The flags of a run (and how many values each takes) that its confirming run does not
repeat: the cases are the flagged ones, and the model, its prices and its pace are Stage
A's (the agent runs its own), as is the report file it would overwrite."""


def command_words(report: Report) -> tuple[str, ...]:
    """The words after `activation` that run this check again. A report keeps them whole
    (`changed --base git:main --model mock`); one written by 0.3.0 kept only the flags
    after the stage's own (`--real`, `behavior`)."""
    flags = stage_named(report.stage).flags
    if report.rerun[:1] == ("changed",) or set(flags) <= set(report.rerun):
        return report.rerun
    return (*flags, *report.rerun)


def without(words: Sequence[str], left_out: dict[str, int]) -> list[str]:
    """`words` without the flags `left_out` names, each with its values."""
    kept, skip = [], 0
    for word in words:
        if skip:
            skip -= 1
        elif word in left_out:
            skip = left_out[word]
        else:
            kept.append(word)
    return kept


def flag_value(words: Sequence[str], flag: str) -> str | None:
    """The value `flag` has in `words`, if it is there."""
    found = [words[i + 1] for i, word in enumerate(words[:-1]) if word == flag]
    return found[-1] if found else None


def real_command(report: Report) -> str | None:
    """A ready command that checks what this run flagged with the stage that confirms it
    (Stage A's with `--real`), in this run's agent, or None when nothing was flagged or
    nothing confirms it."""
    flagged = report.ids_with(*FLAGGED)
    return confirm_command(command_words(report), report.stage, flagged, report.coding_agent)


def confirm_command(
    words: Sequence[str], stage: str, flagged: Sequence[str], agent: str | None = None
) -> str | None:
    """The command `words` ran (`changed ...` included) with the stage that confirms
    `stage`'s, on the `flagged` cases: in `agent` if given (else in the agents `words`
    name). A long list of cases is read from the report saved with `--json`
    (`--only-from`), else left to the stage's own choice (what the latest Stage A run
    flagged, and the spot checks)."""
    confirm = stage_named(stage).confirmed_by
    if confirm is None or not flagged:
        return None
    subcommand = list(words[:1]) if words[:1] == ("changed",) else []
    command = [*subcommand, *confirm]
    if agent is not None and agent != AGENT:
        command += ["--agent", agent]
    listed, saved = ",".join(dict.fromkeys(flagged)), flag_value(words, "--json")
    if len(listed) <= ONLY_LIMIT:
        command += ["--only", listed]
    elif saved is not None:
        command += ["--only-from", saved]
    left_out = {flag: n for flag, n in NOT_CONFIRMED.items() if agent or flag != "--agent"}
    rest = without(words[len(subcommand) :], left_out)
    return shlex.join(["activation", *command, *rest])


def rerun_command(report: Report) -> str:
    """This run again, with every flag that chose what ran."""
    return shlex.join(["activation", *command_words(report)])
