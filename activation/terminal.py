"""The two consoles every command prints to, and warnings shown before a run."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from rich.console import Console

from activation.run import Inputs, Settings
from activation.variants import description_warnings
from activation.verdicts import can_regress

LOG_WIDTH = 160
"""Output to a file or a CI log is not wrapped at rich's default of 80 columns."""


def consoles() -> tuple[Console, Console]:
    """The report on stdout; progress, warnings and errors on stderr."""
    out = Console(highlight=False, width=None if sys.stdout.isatty() else LOG_WIDTH)
    err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else LOG_WIDTH)
    return out, err


def warn(err: Console, warnings: Iterable[str]) -> None:
    for warning in warnings:
        err.print(f"warning: {warning}", style="yellow", soft_wrap=True)


def run_warnings(inputs: Inputs, settings: Settings) -> list[str]:
    """What makes a run's answer weaker than the user may think, said before it starts."""
    warnings = [w for v in (inputs.baseline, inputs.candidate) for w in description_warnings(v)]
    if not can_regress(settings.trials, settings.alpha):
        warnings.append(
            f"with {settings.trials} trial(s) per variant no case can reach p < "
            f"{settings.alpha}, so nothing can be REGRESSED and the gate cannot fail on a "
            "regression: use --trials 3 or more"
        )
    return warnings
