"""activation: does a skill's description still make the agent load it where it should?

The public surface for use from Python, loaded lazily (PEP 562): `import activation` imports
nothing heavy, and each name pulls in only its own module when first used. As httpx exports
its client beside its mock transport, this exports the real backends beside the fake, the
engine, the verdicts, the report and its codec, and the `behavior` and `changed` gates
on typed requests. The command line is `activation.commands.main.main`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.3.0"

_EXPORTS = {
    "Case": "activation._models",
    "CaseVerdict": "activation._models",
    "Inputs": "activation._models",
    "RunOutcome": "activation._models",
    "RunSpec": "activation._models",
    "Status": "activation._models",
    "FLAGGED": "activation._models",
    "Tally": "activation._models",
    "Trial": "activation._models",
    "TrialKey": "activation._models",
    "Usage": "activation._models",
    "ExitCode": "activation._errors",
    "InputError": "activation._errors",
    "AuthError": "activation._errors",
    "ApiUnreachable": "activation._errors",
    "Backend": "activation.trials.backend",
    "Round": "activation.trials.backend",
    "FakeBackend": "activation.trials.fake",
    "at_rates": "activation.trials.fake",
    "scripted": "activation.trials.fake",
    "CachedBackend": "activation.trials.cache",
    "ClassifierBackend": "activation.trials.classifier.backend",
    "MessagesAPI": "activation.trials.providers.anthropic",
    "MockModel": "activation.trials.providers.mock",
    "BatchBackend": "activation.trials.classifier.batch",
    "Requests": "activation.trials.classifier.prompt",
    "AgentBackend": "activation.trials.agent.backend",
    "stage_named": "activation.trials.stage",
    "execute": "activation.trials.engine",
    "execute_async": "activation.trials.engine",
    "judge": "activation.verdicts.judge",
    "judge_all": "activation.verdicts.judge",
    "load_inputs": "activation.inputs.load",
    "read_description": "activation.inputs.frontmatter",
    "read_stream": "activation.trials.agents.claude_code.stream",
    "Reading": "activation.trials.agents.claude_code.stream",
    "Report": "activation.report.model",
    "build_report": "activation.report.model",
    "parse_report": "activation.report.codec",
    "report_json": "activation.report.codec",
    "report_schema": "activation.report.schemas",
    "behavior": "activation.commands.api",
    "changed": "activation.commands.api",
    "BehaviorRequest": "activation.commands.requests",
    "ChangedRequest": "activation.commands.requests",
}

__all__ = [
    "FLAGGED",
    "AgentBackend",
    "ApiUnreachable",
    "AuthError",
    "Backend",
    "BatchBackend",
    "BehaviorRequest",
    "CachedBackend",
    "Case",
    "CaseVerdict",
    "ChangedRequest",
    "ClassifierBackend",
    "ExitCode",
    "FakeBackend",
    "InputError",
    "Inputs",
    "MessagesAPI",
    "MockModel",
    "Reading",
    "Report",
    "Requests",
    "Round",
    "RunOutcome",
    "RunSpec",
    "Status",
    "Tally",
    "Trial",
    "TrialKey",
    "Usage",
    "at_rates",
    "behavior",
    "build_report",
    "changed",
    "execute",
    "execute_async",
    "judge",
    "judge_all",
    "load_inputs",
    "parse_report",
    "read_description",
    "read_stream",
    "report_json",
    "report_schema",
    "scripted",
    "stage_named",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'activation' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


if TYPE_CHECKING:
    from activation._errors import ApiUnreachable, AuthError, ExitCode, InputError
    from activation._models import (
        FLAGGED,
        Case,
        CaseVerdict,
        Inputs,
        RunOutcome,
        RunSpec,
        Status,
        Tally,
        Trial,
        TrialKey,
        Usage,
    )
    from activation.commands.api import behavior, changed
    from activation.commands.requests import BehaviorRequest, ChangedRequest
    from activation.inputs.frontmatter import read_description
    from activation.inputs.load import load_inputs
    from activation.report.codec import parse_report, report_json
    from activation.report.model import Report, build_report
    from activation.report.schemas import report_schema
    from activation.trials.agent.backend import AgentBackend
    from activation.trials.agents.claude_code.stream import Reading, read_stream
    from activation.trials.backend import Backend, Round
    from activation.trials.cache import CachedBackend
    from activation.trials.classifier.backend import ClassifierBackend
    from activation.trials.classifier.batch import BatchBackend
    from activation.trials.classifier.prompt import Requests
    from activation.trials.engine import execute, execute_async
    from activation.trials.fake import FakeBackend, at_rates, scripted
    from activation.trials.providers.anthropic import MessagesAPI
    from activation.trials.providers.mock import MockModel
    from activation.trials.stage import stage_named
    from activation.verdicts.judge import judge, judge_all
