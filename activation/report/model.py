"""The report: a run's own records, as every output renders them and the JSON holds them.

A `Report` is the spec the run was asked with (it extends `RunSpec`, so the JSON's top level
carries the spec's fields), what it measured and against what, and the engine's own
`CaseVerdict`s with their `Trial`s; report/codec.py turns it into JSON and back, generated
from these types. Built from a RunOutcome, or read back from a saved report, it is the same
value, so a saved run can be shown again in any format, compared or merged without a call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from activation._models import (
    CaseVerdict,
    RunOutcome,
    RunSpec,
    Status,
    Usage,
    Variant,
    VariantName,
)
from activation.inputs.identity import run_identity
from activation.verdicts.figures import Summary, summarise

SCHEMA = "activation-report/3"


@dataclass(frozen=True)
class SkillInfo:
    id: str
    path: str


@dataclass(frozen=True)
class VariantInfo:
    spec: str
    source: str
    description: str
    chars: int = field(init=False, default=0)
    """The description's length (derived)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "chars", len(self.description))


@dataclass(frozen=True, kw_only=True)
class Report(RunSpec):
    schema: Literal["activation-report/3"] = "activation-report/3"
    version: str
    """The activation version that wrote it."""
    exit_code: int
    error: str | None = None
    """Why the run stopped without its verdicts (exit 2 or 4): one line."""
    interrupted: bool = False
    fingerprint: str = ""
    """The whole run's identity (descriptions, cases, menu, settings): what `merge` compares."""
    ceiling_hit: bool = False
    peak_concurrency: int = 0
    """The most trials that were in flight at once."""
    final_concurrency: int = 0
    """The concurrency limit when the run ended (an adaptive limit moves)."""
    skill: SkillInfo
    baseline: VariantInfo
    candidate: VariantInfo
    notice: str | None = None
    """What every output says about the answers (a mock model's mean nothing)."""
    warnings: tuple[str, ...] = ()
    rerun: tuple[str, ...] = ()
    """The flags worth repeating to check this run again (`--baseline git:main ...`)."""
    cases: tuple[CaseVerdict, ...] = ()
    summary: Summary
    usage: Usage

    def variant(self, name: VariantName) -> VariantInfo:
        return self.baseline if name == "baseline" else self.candidate

    def ids_with(self, *statuses: Status) -> list[str]:
        return [entry.id for entry in self.cases if entry.status in statuses]

    def count(self, status: Status) -> int:
        return sum(entry.status is status for entry in self.cases)


def _info(variant: Variant) -> VariantInfo:
    return VariantInfo(variant.spec, variant.source, variant.description)


def build_report(
    outcome: RunOutcome,
    version: str,
    warnings: tuple[str, ...] = (),
    error: str | None = None,
    rerun: tuple[str, ...] = (),
    notice: str | None = None,
) -> Report:
    inputs, spec = outcome.inputs, outcome.spec
    return Report(
        **vars(spec),
        version=version,
        exit_code=int(outcome.exit_code),
        error=error,
        interrupted=outcome.interrupted,
        fingerprint=spec.shard.fingerprint if spec.shard else run_identity(spec, inputs),
        ceiling_hit=outcome.ceiling_hit,
        peak_concurrency=outcome.peak_concurrency,
        final_concurrency=outcome.final_concurrency,
        skill=SkillInfo(inputs.target.skill_id, inputs.target.skill_path.as_posix()),
        baseline=_info(inputs.baseline),
        candidate=_info(inputs.candidate),
        notice=notice,
        warnings=warnings,
        rerun=rerun,
        cases=outcome.verdicts,
        summary=summarise(outcome.verdicts, spec.trials, outcome.unfinished),
        usage=outcome.usage,
    )
