"""The two consoles every command prints to, and warnings shown before a run."""

from __future__ import annotations

import sys

from rich.console import Console

from activation.run import Inputs
from activation.variants import description_warnings

LOG_WIDTH = 160
"""Output to a file or a CI log is not wrapped at rich's default of 80 columns."""


def consoles() -> tuple[Console, Console]:
    """The report on stdout; progress, warnings and errors on stderr."""
    out = Console(highlight=False, width=None if sys.stdout.isatty() else LOG_WIDTH)
    err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else LOG_WIDTH)
    return out, err


def warn_lengths(inputs: Inputs, err: Console) -> None:
    for variant in (inputs.baseline, inputs.candidate):
        for warning in description_warnings(variant):
            err.print(f"warning: {warning}", style="yellow", soft_wrap=True)
