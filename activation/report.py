"""The machine-readable report (`activation-report/1`): every figure the terminal shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson

from activation.trial import VARIANTS, Trial, Usage, VariantName
from activation.verdicts import (
    FLAGGED,
    CaseVerdict,
    Rate,
    Status,
    Tally,
    VariantFigures,
    exit_code,
    figures,
    ids_with,
)

SCHEMA = "activation-report/1"
INTERRUPTED = 130


@dataclass(frozen=True)
class VariantInfo:
    spec: str
    description: str
    source: str


@dataclass(frozen=True)
class RunInfo:
    """What was asked for: everything a reader needs to reproduce the run."""

    stage: Literal["A", "B"]
    model: str | None
    trials: int
    alpha: float
    seed: int
    skill_id: str
    skill_path: str
    baseline: VariantInfo
    candidate: VariantInfo


@dataclass(frozen=True)
class RunOutcome:
    info: RunInfo
    verdicts: tuple[CaseVerdict, ...]
    trials: tuple[Trial, ...]
    interrupted: bool = False
    unfinished: tuple[str, ...] = ()
    """Case ids whose trials did not all run (an interrupted run): no verdict, no figure;
    their finished trials still count in `usage`."""

    @property
    def exit_code(self) -> int:
        return INTERRUPTED if self.interrupted else exit_code(self.verdicts)

    def figures(self, variant: VariantName) -> VariantFigures:
        return figures(self.verdicts, variant, with_interval=self.info.trials > 1)

    @property
    def usage(self) -> Usage:
        return sum((trial.usage for trial in self.trials), Usage())


def _tally(tally: Tally) -> dict[str, object]:
    return {
        "activated": tally.activated,
        "valid": tally.valid,
        "errors": tally.errors,
        "verdict": tally.verdict,
    }


def _trial(trial: Trial) -> dict[str, object]:
    reading = "error" if trial.is_error else "activated" if trial.activated else "not_activated"
    entry: dict[str, object] = {
        "variant": trial.key.variant,
        "index": trial.key.index,
        "reading": reading,
        "activated": trial.activated,
        "evidence": trial.evidence,
    }
    if trial.error is not None:
        entry["error"] = trial.error
    if trial.transcript is not None:
        entry["transcript"] = trial.transcript
    if trial.usage.cost_usd:
        entry["cost_usd"] = trial.usage.cost_usd
    return entry


def _rate(value: Rate) -> list[int]:
    return [value.hits, value.total]


def _interval(value: Rate) -> list[float] | None:
    return list(value.interval) if value.interval else None


def report_data(outcome: RunOutcome) -> dict[str, object]:
    info = outcome.info
    by_case: dict[str, list[Trial]] = {}
    for trial in sorted(outcome.trials, key=lambda t: (t.key.variant, t.key.index)):
        by_case.setdefault(trial.key.case.id, []).append(trial)
    cases = [
        {
            "id": verdict.case.id,
            "prompt": verdict.case.prompt,
            "should_activate": verdict.case.should_activate,
            "tags": list(verdict.case.tags),
            "status": verdict.status.value,
            "p_value": verdict.p_value,
            "baseline": _tally(verdict.baseline),
            "candidate": _tally(verdict.candidate),
            "trials": [_trial(trial) for trial in by_case.get(verdict.case.id, [])],
        }
        for verdict in outcome.verdicts
    ]
    summary: dict[str, object] = {}
    for variant in VARIANTS:
        figs = outcome.figures(variant)
        summary[variant] = {
            "recall": _rate(figs.recall),
            "recall_interval": _interval(figs.recall),
            "false_positives": _rate(figs.false_positives),
            "false_positives_interval": _interval(figs.false_positives),
        }
    for name, status in (
        ("regressed", Status.REGRESSED),
        ("improved", Status.IMPROVED),
        ("unstable", Status.UNSTABLE),
        ("errors", Status.ERROR),
    ):
        summary[name] = ids_with(outcome.verdicts, status)
    summary["unfinished"] = list(outcome.unfinished)
    usage = outcome.usage
    usage_data: dict[str, object] = {
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
    }
    if info.stage == "B":
        usage_data["cost_usd"] = usage.cost_usd
    return {
        "schema": SCHEMA,
        "stage": info.stage,
        "model": info.model,
        "trials": info.trials,
        "alpha": info.alpha,
        "seed": info.seed,
        "skill": {"id": info.skill_id, "path": info.skill_path},
        "baseline": _variant(info.baseline),
        "candidate": _variant(info.candidate),
        "cases": cases,
        "summary": summary,
        "usage": usage_data,
        "interrupted": outcome.interrupted,
        "exit_code": outcome.exit_code,
    }


def _variant(variant: VariantInfo) -> dict[str, object]:
    return {
        "spec": variant.spec,
        "source": variant.source,
        "description": variant.description,
        "chars": len(variant.description),
    }


def write_report(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


def flagged_ids(verdicts: Sequence[CaseVerdict]) -> list[str]:
    return [verdict.case.id for verdict in verdicts if verdict.status in FLAGGED]
