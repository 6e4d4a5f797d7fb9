"""What `calibrate --agreement` found: how far Stage A can stand in for Stage B on this
suite. The same spot checks, the real description against the narrow control (so some
cases are right and some wrong in each variant), run once by each stage; per variant,
the share of cases the stages rate alike, Cohen's kappa with its interval, and the cases
where they differ (verdicts/agreement.py says how each is computed)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rich.console import Group, RenderableType
from rich.text import Text

from activation._errors import ExitCode
from activation._models import VARIANTS, RunOutcome, Status
from activation.report import matrix_words
from activation.report.calibration import titled_table
from activation.report.markdown import markdown_table
from activation.report.model import Report, SkillInfo, build_report
from activation.verdicts.agreement import Agreement, AgreementRow, agreement

SCHEMA = "activation-agreement/1"
HEADERS = ("variant", "cases", "alike", "Cohen's kappa (95%)", "they differ on")
ROLES = {"baseline": "the real description", "candidate": "the narrow control"}


@dataclass(frozen=True)
class StageAgreement:
    cheap: RunOutcome
    """Stage A's run."""
    real: RunOutcome
    """Stage B's run, on the same cases."""

    @property
    def cells(self) -> tuple[str, str]:
        return self.cheap.spec.cell, self.real.spec.cell

    @property
    def found(self) -> tuple[Agreement, ...]:
        return tuple(
            agreement(self.cells, self.cheap.verdicts, self.real.verdicts, variant)
            for variant in VARIANTS
        )

    @property
    def errors(self) -> list[str]:
        runs = (self.cheap, self.real)
        ids = [v.id for run in runs for v in run.verdicts if v.status is Status.ERROR]
        return list(dict.fromkeys(ids))

    @property
    def exit_code(self) -> ExitCode:
        """Agreement is a measurement, not a gate: only missing evidence fails it (closed)."""
        return ExitCode.INCOMPLETE if self.errors else ExitCode.OK


def _kappa(found: Agreement) -> str:
    if found.kappa is None:
        return "undefined (every case rated alike in both)"
    if found.kappa_interval is None:
        return f"{found.kappa:.2f} (no interval: one stage rated every case alike)"
    low, high = found.kappa_interval
    return f"{found.kappa:.2f} ({low:.2f} to {high:.2f})"


def _rows(run: StageAgreement) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            f"{found.variant} ({ROLES[found.variant]})",
            str(found.cases),
            f"{found.same} ({found.share:.0%})" if found.share is not None else "-",
            _kappa(found),
            ", ".join(found.disagree) or "-",
        )
        for found in run.found
    ]


def render_agreement(run: StageAgreement) -> RenderableType:
    cheap, real = run.cells
    table = titled_table(f"Agreement: {cheap} against {real}", HEADERS, _rows(run))
    parts: list[RenderableType] = [table]
    if run.errors:
        parts.append(Text(f"ERROR cases, left out: {', '.join(run.errors)}", style="magenta"))
    parts.append(Text(matrix_words.agreement_reading(), style="dim"))
    return Group(*parts)


@dataclass(frozen=True)
class StageReports:
    stage_a: Report
    stage_b: Report


@dataclass(frozen=True, kw_only=True)
class AgreementRecord:
    """What `calibrate --agreement --json` writes (`activation-agreement/1`)."""

    schema: Literal["activation-agreement/1"] = "activation-agreement/1"
    version: str
    skill: SkillInfo
    cells: tuple[str, str]
    """Stage A's cell, then Stage B's."""
    agreement: tuple[AgreementRow, ...]
    errors: tuple[str, ...]
    """The ERROR cases, left out."""
    reports: StageReports
    exit_code: int


def agreement_record(run: StageAgreement, version: str) -> AgreementRecord:
    target = run.cheap.inputs.target
    return AgreementRecord(
        version=version,
        skill=SkillInfo.of(target),
        cells=run.cells,
        agreement=tuple(found.row for found in run.found),
        errors=tuple(run.errors),
        reports=StageReports(build_report(run.cheap, version), build_report(run.real, version)),
        exit_code=int(run.exit_code),
    )


def record_stem(run: StageAgreement, when: datetime) -> str:
    """The name of a dated record: when, and the two cells."""
    cells = "-vs-".join(cell.replace("/", "-") for cell in run.cells)
    return f"{when:%Y-%m-%dT%H%M%S}-agreement-{cells}"


def agreement_markdown(run: StageAgreement, when: datetime) -> str:
    cheap, real = run.cells
    skill = run.cheap.inputs.target.skill_id
    lines = [
        f"# Agreement {when:%Y-%m-%d %H:%M} UTC",
        "",
        f"`{cheap}` against `{real}`, skill `{skill}`, {run.cheap.spec.trials} trials. "
        f"Exit code {int(run.exit_code)}.",
        "",
        *markdown_table(HEADERS, _rows(run)),
        "",
        matrix_words.agreement_reading(),
    ]
    if run.errors:
        lines += ["", f"ERROR cases, left out: {', '.join(run.errors)}"]
    return "\n".join(lines) + "\n"
