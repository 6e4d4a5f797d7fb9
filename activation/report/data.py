"""The report: one typed model of a run that every output renders, and its JSON form.

Built from a RunOutcome, or read back from a saved JSON report (`parse_report`), so a saved
run can be shown again in any format, compared or merged without a model call. The terminal
and every file format render this model, so they never disagree. Written with orjson; the
JSON names every figure the terminal shows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from activation._errors import ExitCode, InputError
from activation._models import (
    FLAGGED,
    VARIANTS,
    AgentSettings,
    Case,
    CaseVerdict,
    Inputs,
    Prices,
    Pricing,
    RunOutcome,
    RunSpec,
    Shard,
    Status,
    Tally,
    Trial,
    Usage,
    Variant,
    VariantName,
)
from activation.verdicts.figures import Rate, VariantFigures, figures

SCHEMA = "activation-report/2"
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read")
VERDICTS = {
    ExitCode.OK: "OK: no case regressed, no case errored.",
    ExitCode.REGRESSED: "FAILED: the candidate regressed.",
    ExitCode.INCOMPLETE: (
        "INCOMPLETE: some evidence is missing (errored trials or cases not run), so the gate "
        "fails closed."
    ),
    ExitCode.INTERRUPTED: "INTERRUPTED: partial results.",
}
"""A run's verdict in one line, by its exit code: every output says it the same way."""


@dataclass(frozen=True)
class VariantInfo:
    spec: str
    source: str
    description: str


@dataclass(frozen=True)
class TrialRecord:
    """One trial as reported; `activated` is None for an error, which is never a vote."""

    variant: VariantName
    index: int
    activated: bool | None
    evidence: str = ""
    error: str | None = None
    transcript: str | None = None
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    """Served from the response cache, not asked again."""

    @property
    def reading(self) -> str:
        if self.activated is None:
            return "error"
        return "activated" if self.activated else "not_activated"


@dataclass(frozen=True)
class CaseReport:
    case: Case
    status: Status
    p_value: float | None
    q_value: float | None
    baseline: Tally
    candidate: Tally
    trials: tuple[TrialRecord, ...] = ()
    escalated: bool = False
    partial: bool = False

    def tally(self, variant: VariantName) -> Tally:
        return self.baseline if variant == "baseline" else self.candidate

    def trials_run(self, variant: VariantName) -> int:
        tally = self.tally(variant)
        return tally.valid + tally.errors


@dataclass(frozen=True)
class Report:
    version: str
    spec: RunSpec
    skill_id: str
    skill_path: str
    baseline: VariantInfo
    candidate: VariantInfo
    cases: tuple[CaseReport, ...]
    figures: Mapping[VariantName, VariantFigures]
    usage: Usage
    exit_code: int
    fingerprint: str = ""
    """The whole run's identity (descriptions, cases, settings): what `merge` compares."""
    interrupted: bool = False
    unfinished: tuple[str, ...] = ()
    error: str | None = None
    """Why the run stopped without its verdicts (exit 2 or 4): one line."""
    warnings: tuple[str, ...] = field(default=())
    ceiling_hit: bool = False
    rerun: tuple[str, ...] = ()
    """The flags worth repeating to check this run again (`--baseline git:main ...`)."""

    def variant(self, name: VariantName) -> VariantInfo:
        return self.baseline if name == "baseline" else self.candidate

    def ids_with(self, *statuses: Status) -> list[str]:
        return [entry.case.id for entry in self.cases if entry.status in statuses]

    @property
    def extra_calls(self) -> int:
        """Trials beyond every case's first round: what escalation cost."""
        first = 2 * self.spec.trials
        return sum(
            max(0, sum(entry.trials_run(v) for v in VARIANTS) - first) for entry in self.cases
        )

    @property
    def cost_line(self) -> str:
        """The run's cost, and where it comes from; unknown is said, never shown as $0."""
        spec, cost = self.spec, self.usage.cost_usd
        if cost is None or (spec.pricing is None and spec.stage == "A"):
            model = spec.model or "the CLI's default model"
            return f"cost unknown (no price for {model}: pass --price-in and --price-out)"
        if spec.pricing is None:
            return f"cost ${cost:.4f} (the CLI's reported cost)"
        source = "the CLI's reported cost, and " if spec.stage == "B" else ""
        batch = " at the batch discount" if spec.batch else ""
        return f"cost ${cost:.4f} ({source}list prices of {spec.pricing.date}{batch})"

    @property
    def usage_lines(self) -> list[str]:
        """What the run spent, in words every output shares."""
        usage = self.usage
        lines = []
        if self.extra_calls:
            escalated = sum(entry.escalated for entry in self.cases)
            lines.append(
                f"escalated {escalated} case(s) past the first round: {self.extra_calls} "
                "extra trial(s)"
            )
        line = (
            f"usage: {usage.requests} request(s), {usage.input_tokens} input / "
            f"{usage.output_tokens} output tokens"
        )
        if usage.cache_write_tokens or usage.cache_read_tokens:
            line += (
                f", prompt cache {usage.cache_write_tokens} written / "
                f"{usage.cache_read_tokens} read"
            )
        lines.append(f"{line}; {self.cost_line}")
        if usage.from_cache:
            lines.append(f"{usage.from_cache} trial(s) from the cache (no request, no cost)")
        return lines

    @property
    def ceiling_line(self) -> str | None:
        if not self.ceiling_hit:
            return None
        return (
            f"cost ceiling ${self.spec.max_cost_usd:g} reached: the trials not started are "
            'errors ("cost ceiling")'
        )

    @property
    def verdict(self) -> str:
        return VERDICTS.get(ExitCode(self.exit_code), self.error or f"exit {self.exit_code}")

    def count(self, status: Status) -> int:
        return sum(entry.status is status for entry in self.cases)

    @property
    def real_command(self) -> str | None:
        """A ready `--real --only` line for what Stage A flagged, or None when nothing was."""
        flagged = self.ids_with(*FLAGGED)
        if self.spec.stage != "A" or not flagged:
            return None
        return shlex.join(["activation", "--real", "--only", ",".join(flagged), *self.rerun])

    @property
    def rerun_command(self) -> str:
        """This run again, with the flags that chose its inputs."""
        real = ["--real"] if self.spec.stage == "B" else []
        return shlex.join(["activation", *real, *self.rerun])


# --- from a run ------------------------------------------------------------------------


def _info(variant: Variant) -> VariantInfo:
    return VariantInfo(variant.spec, variant.source, variant.description)


def _record(trial: Trial) -> TrialRecord:
    key = trial.key
    return TrialRecord(
        key.variant, key.index, trial.activated, trial.evidence, trial.error, trial.transcript,
        trial.usage, trial.cached,
    )  # fmt: skip


def case_report(verdict: CaseVerdict) -> CaseReport:
    return CaseReport(
        verdict.case,
        verdict.status,
        verdict.p_value,
        verdict.q_value,
        verdict.baseline,
        verdict.candidate,
        tuple(_record(trial) for trial in verdict.trials),
        verdict.escalated,
        verdict.partial,
    )


def fingerprint(spec: RunSpec, inputs: Inputs) -> str:
    """A digest of what makes two runs the same run: the skill, both descriptions, every
    case as written, and the settings verdicts depend on."""
    material = {
        "skill": inputs.target.skill_id,
        "baseline": inputs.baseline.description,
        "candidate": inputs.candidate.description,
        "cases": [dataclasses.asdict(case) for case in inputs.cases],
        "settings": [spec.stage, spec.model, spec.trials, spec.max_trials, spec.alpha, spec.seed],
        "agent": None if spec.agent is None else [spec.agent.max_turns, spec.agent.timeout],
    }
    return hashlib.sha256(orjson.dumps(material)).hexdigest()[:32]


def build_report(
    outcome: RunOutcome,
    version: str,
    warnings: tuple[str, ...] = (),
    error: str | None = None,
    rerun: tuple[str, ...] = (),
) -> Report:
    inputs, spec = outcome.inputs, outcome.spec
    with_interval = spec.trials > 1
    return Report(
        version=version,
        spec=spec,
        skill_id=inputs.target.skill_id,
        skill_path=inputs.target.skill_path.as_posix(),
        baseline=_info(inputs.baseline),
        candidate=_info(inputs.candidate),
        cases=tuple(case_report(verdict) for verdict in outcome.verdicts),
        figures={v: figures(outcome.verdicts, v, with_interval) for v in VARIANTS},
        usage=outcome.usage,
        exit_code=int(outcome.exit_code),
        fingerprint=spec.shard.fingerprint if spec.shard else fingerprint(spec, inputs),
        interrupted=outcome.interrupted,
        unfinished=outcome.unfinished,
        error=error,
        warnings=warnings,
        ceiling_hit=outcome.ceiling_hit,
        rerun=rerun,
    )


# --- JSON ------------------------------------------------------------------------------


def _tally_data(tally: Tally) -> dict[str, object]:
    return {
        "activated": tally.activated,
        "valid": tally.valid,
        "errors": tally.errors,
        "verdict": tally.verdict,
    }


def _usage_data(usage: Usage) -> dict[str, object]:
    """`requests` were sent; `from_cache` trials were served by the cache and sent none.
    A `cost_usd` of null is unknown (a model without a price), never free."""
    return dataclasses.asdict(usage)


def _prices_data(prices: Prices) -> dict[str, float]:
    return {name: getattr(prices, name) for name in PRICE_FIELDS}


def _pricing_data(pricing: Pricing | None) -> dict[str, object] | None:
    if pricing is None:
        return None
    return {
        "date": pricing.date,
        "override": None if pricing.override is None else _prices_data(pricing.override),
        "models": {model: _prices_data(prices) for model, prices in pricing.table},
    }


def _trial_data(trial: TrialRecord) -> dict[str, object]:
    entry: dict[str, object] = {
        "variant": trial.variant,
        "index": trial.index,
        "reading": trial.reading,
        "activated": trial.activated,
        "evidence": trial.evidence,
        "cached": trial.cached,
        "usage": _usage_data(trial.usage),
    }
    if trial.error is not None:
        entry["error"] = trial.error
    if trial.transcript is not None:
        entry["transcript"] = trial.transcript
    return entry


def _case_data(entry: CaseReport) -> dict[str, object]:
    case = entry.case
    return {
        "id": case.id,
        "prompt": case.prompt,
        "should_activate": case.should_activate,
        "why": case.why,
        "tags": list(case.tags),
        "spot_check": case.spot_check,
        "twin": case.twin,
        "status": entry.status.value,
        "p_value": entry.p_value,
        "q_value": entry.q_value,
        "trials_run": {variant: entry.trials_run(variant) for variant in VARIANTS},
        "escalated": entry.escalated,
        "partial": entry.partial,
        "baseline": _tally_data(entry.baseline),
        "candidate": _tally_data(entry.candidate),
        "trials": [_trial_data(trial) for trial in entry.trials],
    }


def _rate_data(name: str, value: Rate) -> dict[str, object]:
    return {
        name: [value.hits, value.total],
        f"{name}_interval": list(value.interval) if value.interval else None,
    }


def report_dict(report: Report) -> dict[str, object]:
    spec = report.spec
    summary: dict[str, object] = {
        variant: {
            **_rate_data("recall", report.figures[variant].recall),
            **_rate_data("false_positives", report.figures[variant].false_positives),
        }
        for variant in VARIANTS
    }
    for name, status in (
        ("regressed", Status.REGRESSED),
        ("improved", Status.IMPROVED),
        ("unstable", Status.UNSTABLE),
        ("errors", Status.ERROR),
    ):
        summary[name] = report.ids_with(status)
    summary["unfinished"] = list(report.unfinished)
    summary["escalated"] = sum(entry.escalated for entry in report.cases)
    summary["extra_calls"] = report.extra_calls
    agent = spec.agent
    return {
        "schema": SCHEMA,
        "version": report.version,
        "exit_code": report.exit_code,
        "error": report.error,
        "interrupted": report.interrupted,
        "stage": spec.stage,
        "model": spec.model,
        "trials": spec.trials,
        "max_trials": spec.max_trials,
        "alpha": spec.alpha,
        "seed": spec.seed,
        "concurrency": spec.limit,
        "fingerprint": report.fingerprint,
        "shard": None
        if spec.shard is None
        else {
            "index": spec.shard.index,
            "count": spec.shard.count,
            "run_cases": list(spec.shard.run_cases),
        },
        "batch": spec.batch,
        "max_cost_usd": spec.max_cost_usd,
        "ceiling_hit": report.ceiling_hit,
        "pricing": _pricing_data(spec.pricing),
        "agent": None
        if agent is None
        else {
            "claude": agent.claude,
            "version": agent.version,
            "max_turns": agent.max_turns,
            "timeout": agent.timeout,
        },
        "skill": {"id": report.skill_id, "path": report.skill_path},
        **{
            variant: {
                "spec": info.spec,
                "source": info.source,
                "description": info.description,
                "chars": len(info.description),
            }
            for variant, info in (("baseline", report.baseline), ("candidate", report.candidate))
        },
        "warnings": list(report.warnings),
        "rerun": list(report.rerun),
        "cases": [_case_data(entry) for entry in report.cases],
        "summary": summary,
        "usage": _usage_data(report.usage),
    }


def report_json(report: Report) -> bytes:
    return orjson.dumps(report_dict(report), option=orjson.OPT_INDENT_2) + b"\n"


def failure_json(exit_code: ExitCode, error: str, version: str) -> bytes:
    """The report of a run that stopped before it had verdicts to report."""
    data = {"schema": SCHEMA, "version": version, "exit_code": int(exit_code), "error": error}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


# --- back from JSON ----------------------------------------------------------------------


def _usage(data: Mapping[str, Any]) -> Usage:
    cost = data.get("cost_usd", 0.0)
    return Usage(
        int(data.get("requests", 0)),
        int(data.get("input_tokens", 0)),
        int(data.get("output_tokens", 0)),
        None if cost is None else float(cost),
        int(data.get("cache_write_tokens", 0)),
        int(data.get("cache_read_tokens", 0)),
        int(data.get("from_cache", 0)),
    )


def _prices(data: Mapping[str, Any]) -> Prices:
    return Prices(*(float(data[name]) for name in PRICE_FIELDS))


def _pricing(data: Mapping[str, Any] | None) -> Pricing | None:
    if data is None:
        return None
    override = data.get("override")
    return Pricing(
        str(data["date"]),
        tuple((model, _prices(prices)) for model, prices in data.get("models", {}).items()),
        None if override is None else _prices(override),
    )


def _tally(data: Mapping[str, Any]) -> Tally:
    return Tally(int(data["activated"]), int(data["valid"]), int(data["errors"]))


def _trial(data: Mapping[str, Any]) -> TrialRecord:
    return TrialRecord(
        data["variant"],
        int(data["index"]),
        data["activated"],
        data.get("evidence", ""),
        data.get("error"),
        data.get("transcript"),
        _usage(data.get("usage", {})),
        bool(data.get("cached", False)),
    )


def _case(data: Mapping[str, Any]) -> CaseReport:
    case = Case(
        data["id"],
        data["prompt"],
        bool(data["should_activate"]),
        data.get("why", ""),
        tuple(data.get("tags", ())),
        bool(data.get("spot_check", False)),
        data.get("twin"),
    )
    return CaseReport(
        case,
        Status(data["status"]),
        data.get("p_value"),
        data.get("q_value"),
        _tally(data["baseline"]),
        _tally(data["candidate"]),
        tuple(_trial(trial) for trial in data.get("trials", ())),
        bool(data.get("escalated", False)),
        bool(data.get("partial", False)),
    )


def _variant_info(data: Mapping[str, Any]) -> VariantInfo:
    return VariantInfo(data["spec"], data["source"], data["description"])


def _rate(data: Mapping[str, Any], name: str) -> Rate:
    hits, total = data[name]
    interval = data.get(f"{name}_interval")
    return Rate(int(hits), int(total), tuple(interval) if interval else None)  # type: ignore[arg-type]


def parse_report(data: object, source: str) -> Report:
    """A saved JSON report as the typed model; anything else is an input error."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(f"{source}: not an activation report ({SCHEMA})")
    if "cases" not in data:
        raise InputError(f"{source}: the report of a run that stopped early ({data.get('error')})")
    try:
        agent, shard = data.get("agent"), data.get("shard")
        spec = RunSpec(
            stage=data["stage"],
            model=data.get("model"),
            trials=int(data["trials"]),
            max_trials=int(data["max_trials"]),
            alpha=float(data["alpha"]),
            seed=int(data["seed"]),
            concurrency=data.get("concurrency"),
            agent=None if agent is None else AgentSettings(**agent),
            shard=None
            if shard is None
            else Shard(
                int(shard["index"]),
                int(shard["count"]),
                tuple(shard["run_cases"]),
                data["fingerprint"],
            ),
            pricing=_pricing(data.get("pricing")),
            max_cost_usd=data.get("max_cost_usd"),
            batch=bool(data.get("batch", False)),
        )
        summary = data["summary"]
        return Report(
            version=data["version"],
            spec=spec,
            skill_id=data["skill"]["id"],
            skill_path=data["skill"]["path"],
            baseline=_variant_info(data["baseline"]),
            candidate=_variant_info(data["candidate"]),
            cases=tuple(_case(entry) for entry in data["cases"]),
            figures={
                variant: VariantFigures(
                    _rate(summary[variant], "recall"), _rate(summary[variant], "false_positives")
                )
                for variant in VARIANTS
            },
            usage=_usage(data["usage"]),
            exit_code=int(data["exit_code"]),
            fingerprint=data["fingerprint"],
            interrupted=bool(data.get("interrupted", False)),
            unfinished=tuple(summary.get("unfinished", ())),
            error=data.get("error"),
            warnings=tuple(data.get("warnings", ())),
            ceiling_hit=bool(data.get("ceiling_hit", False)),
            rerun=tuple(data.get("rerun", ())),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{source}: a damaged activation report ({error!r})") from None
