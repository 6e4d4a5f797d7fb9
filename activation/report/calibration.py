"""What `calibrate` found: can the suite fail, on both axes, and does it stay quiet on A/A?

The real description is compared with a narrow control (fires only when asked by name: the
suite must catch lost recall) and a broad control (claims nearly all software work: it must
catch new false positives), and with itself (A/A: any REGRESSED there is a false alarm).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation._models import RunOutcome, Status
from activation.report.codec import report_data
from activation.report.model import build_report
from activation.verdicts.figures import Count, figures

SCHEMA = "activation-calibration/1"
COMPARISONS = ("narrow", "broad", "self")


@dataclass(frozen=True)
class Calibration:
    """The three outcomes and what they say about the suite."""

    narrow: RunOutcome
    broad: RunOutcome
    itself: RunOutcome

    def regressed(self, outcome: RunOutcome, should_activate: bool) -> list[str]:
        return [
            verdict.id
            for verdict in outcome.verdicts
            if verdict.status is Status.REGRESSED and verdict.should_activate is should_activate
        ]

    @property
    def narrow_caught(self) -> list[str]:
        return self.regressed(self.narrow, should_activate=True)

    @property
    def broad_caught(self) -> list[str]:
        return self.regressed(self.broad, should_activate=False)

    @property
    def false_alarms(self) -> list[str]:
        return [v.id for v in self.itself.verdicts if v.status is Status.REGRESSED]

    @property
    def errors(self) -> list[str]:
        return sorted(
            {
                f"{name}:{verdict.id}"
                for name, outcome in self.outcomes()
                for verdict in outcome.verdicts
                if verdict.status is Status.ERROR
            }
        )

    def outcomes(self) -> list[tuple[str, RunOutcome]]:
        return list(zip(COMPARISONS, (self.narrow, self.broad, self.itself), strict=True))

    @property
    def problems(self) -> list[str]:
        """What the suite is blind to, in words a suite author can act on."""
        found = []
        if not self.narrow_caught:
            found.append(
                "blind on recall: the narrow control regressed no positive case "
                "(add positives the real description covers and a narrow one would miss)"
            )
        if not self.broad_caught:
            found.append(
                "blind on false positives: the broad control regressed no negative case "
                "(add negatives that a description claiming all software work would take)"
            )
        if self.false_alarms:
            found.append(
                f"raises false alarms: A/A regressed {', '.join(self.false_alarms)} "
                "although nothing changed (more --trials, or fix flaky cases)"
            )
        return found

    @property
    def exit_code(self) -> ExitCode:
        if self.problems:
            return ExitCode.REGRESSED
        return ExitCode.INCOMPLETE if self.errors else ExitCode.OK


def calibration_data(calibration: Calibration, version: str) -> dict[str, object]:
    spec, target = calibration.narrow.spec, calibration.narrow.inputs.target
    return {
        "schema": SCHEMA,
        "version": version,
        "stage": spec.stage,
        "model": spec.model,
        "trials": spec.trials,
        "alpha": spec.alpha,
        "skill": {"id": target.skill_id, "path": target.skill_path.as_posix()},
        "narrow": {
            "detected": bool(calibration.narrow_caught),
            "regressed": calibration.narrow_caught,
        },
        "broad": {
            "detected": bool(calibration.broad_caught),
            "regressed": calibration.broad_caught,
        },
        "self": {"false_alarms": calibration.false_alarms},
        "errors": calibration.errors,
        "problems": calibration.problems,
        "reports": {
            name: report_data(build_report(outcome, version))
            for name, outcome in calibration.outcomes()
        },
        "exit_code": int(calibration.exit_code),
    }


EXPECTATIONS = {
    "narrow": "positives REGRESSED",
    "broad": "negatives REGRESSED",
    "self": "no REGRESSED (A/A)",
}


def fraction(value: Count) -> str:
    return f"{value.hits}/{value.total}"


def _rows(calibration: Calibration) -> list[tuple[str, str, str, str, str, str]]:
    found = {
        "narrow": calibration.narrow_caught,
        "broad": calibration.broad_caught,
        "self": calibration.false_alarms,
    }
    rows = []
    for name, outcome in calibration.outcomes():
        ok = bool(found[name]) if name != "self" else not found[name]
        with_interval = outcome.spec.trials > 1
        base = figures(outcome.verdicts, "baseline", with_interval)
        cand = figures(outcome.verdicts, "candidate", with_interval)
        rows.append(
            (
                name,
                EXPECTATIONS[name],
                "yes" if ok else "NO",
                ", ".join(found[name]) or "-",
                f"{fraction(base.recall)} / {fraction(cand.recall)}",
                f"{fraction(base.false_positives)} / {fraction(cand.false_positives)}",
            )
        )
    return rows


HEADERS = ("comparison", "expected", "met", "REGRESSED", "recall real / other", "FP real / other")


def render_calibration(calibration: Calibration) -> RenderableType:
    table = Table(title="Calibration", title_justify="left")
    for header in HEADERS:
        table.add_column(header)
    for row in _rows(calibration):
        table.add_row(*row)
    parts: list[RenderableType] = [table]
    if calibration.errors:
        parts.append(Text(f"ERROR cases: {', '.join(calibration.errors)}", style="magenta"))
    if calibration.problems:
        parts += [
            Text(f"The suite is {problem}", style="bold red") for problem in calibration.problems
        ]
    else:
        parts.append(
            Text("The suite caught both controls and raised no A/A alarm.", style="bold green")
        )
    return Group(*parts)


def record_stem(calibration: Calibration, when: datetime) -> str:
    """The name of a dated record: when, which stage, which model."""
    spec = calibration.narrow.spec
    model = (spec.model or "cli-default").replace("/", "-")
    return f"{when:%Y-%m-%dT%H%M%S}-stage-{spec.stage.lower()}-{model}"


def calibration_markdown(calibration: Calibration, when: datetime) -> str:
    spec, skill_id = calibration.narrow.spec, calibration.narrow.inputs.target.skill_id
    lines = [
        f"# Calibration {when:%Y-%m-%d %H:%M} UTC",
        "",
        f"Stage {spec.stage}, model `{spec.model or 'CLI default'}`, {spec.trials} trials, "
        f"alpha {spec.alpha}, skill `{skill_id}`. Exit code {int(calibration.exit_code)}.",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "---|" * len(HEADERS),
        *("| " + " | ".join(row) + " |" for row in _rows(calibration)),
        "",
    ]
    lines += [f"- The suite is {problem}" for problem in calibration.problems]
    return "\n".join(lines) + "\n"
