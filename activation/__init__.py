"""activation: does a skill's description still make the agent load it where it should?

The public surface for use from Python, loaded lazily (PEP 562): `import activation` imports
nothing heavy, and each name pulls in only its own module when first used. The command
line is `activation.commands.main.main`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.2.0"

_EXPORTS = {
    "Case": "activation._models",
    "CaseVerdict": "activation._models",
    "Inputs": "activation._models",
    "RunOutcome": "activation._models",
    "RunSpec": "activation._models",
    "Status": "activation._models",
    "Tally": "activation._models",
    "Trial": "activation._models",
    "TrialKey": "activation._models",
    "ExitCode": "activation._errors",
    "Backend": "activation.trials.backend",
    "FakeBackend": "activation.trials.fake",
    "at_rates": "activation.trials.fake",
    "scripted": "activation.trials.fake",
    "execute": "activation.trials.engine",
    "execute_async": "activation.trials.engine",
    "judge": "activation.verdicts.judge",
    "load_inputs": "activation.inputs.load",
    "read_description": "activation.inputs.frontmatter",
    "read_stream": "activation.trials.agent.stream",
    "Reading": "activation.trials.agent.stream",
    "Report": "activation.report.data",
    "build_report": "activation.report.data",
}

__all__ = [
    "Backend",
    "Case",
    "CaseVerdict",
    "ExitCode",
    "FakeBackend",
    "Inputs",
    "Reading",
    "Report",
    "RunOutcome",
    "RunSpec",
    "Status",
    "Tally",
    "Trial",
    "TrialKey",
    "at_rates",
    "build_report",
    "execute",
    "execute_async",
    "judge",
    "load_inputs",
    "read_description",
    "read_stream",
    "scripted",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'activation' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


if TYPE_CHECKING:
    from activation._errors import ExitCode
    from activation._models import (
        Case,
        CaseVerdict,
        Inputs,
        RunOutcome,
        RunSpec,
        Status,
        Tally,
        Trial,
        TrialKey,
    )
    from activation.inputs.frontmatter import read_description
    from activation.inputs.load import load_inputs
    from activation.report.data import Report, build_report
    from activation.trials.agent.stream import Reading, read_stream
    from activation.trials.backend import Backend
    from activation.trials.engine import execute, execute_async
    from activation.trials.fake import FakeBackend, at_rates, scripted
    from activation.verdicts.judge import judge
