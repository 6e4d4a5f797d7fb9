"""What `calibrate` found: can the suite fail, on both axes, and does it stay quiet on A/A?

The real description is compared with a narrow control (fires only when asked by name: the
suite must catch lost recall) and a broad control (claims nearly all software work: it must
catch new false positives), and with itself (A/A: any REGRESSED there is a false alarm).
When cases expect a sibling skill, a sibling control (the real description claiming that
sibling's territory) must be caught taking the sibling's prompts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation._models import RunOutcome, Status
from activation.report.markdown import escape, markdown_table
from activation.report.model import Report, SkillInfo, build_report
from activation.verdicts.figures import Count, figures

SCHEMA = "activation-calibration/1"


@dataclass(frozen=True)
class Calibration:
    """The outcomes and what they say about the suite; `sibling` and `sibling_skill` (the
    sibling whose territory its control claimed) are None when no case expects a sibling."""

    narrow: RunOutcome
    broad: RunOutcome
    itself: RunOutcome
    sibling: RunOutcome | None = None
    sibling_skill: str | None = None
    notice: str | None = None
    """What every output says about the answers (a mock model's mean nothing)."""

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
    def sibling_caught(self) -> list[str]:
        """Cases whose home is the sibling that the control REGRESSED: it took them."""
        if self.sibling is None or self.sibling_skill is None:
            return []
        return [
            verdict.id
            for verdict in self.sibling.verdicts
            if verdict.status is Status.REGRESSED and self.sibling_skill in (verdict.expect or ())
        ]

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
        found = [("narrow", self.narrow), ("broad", self.broad), ("self", self.itself)]
        return found + ([("sibling", self.sibling)] if self.sibling is not None else [])

    @property
    def notes(self) -> list[str]:
        if self.sibling is None:
            return ["no sibling control: no case expects a sibling skill of the measured one"]
        return []

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
                "(add negatives that a description claiming every request would take)"
            )
        if self.sibling is not None and not self.sibling_caught:
            found.append(
                f"blind on routing: the sibling control (which claims the territory of "
                f"{self.sibling_skill}) regressed no case whose home is {self.sibling_skill} "
                f"(add cases that belong to {self.sibling_skill} and share words with the "
                "measured skill)"
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


@dataclass(frozen=True)
class Control:
    """Whether a control was caught, and the cases it REGRESSED."""

    detected: bool
    regressed: tuple[str, ...]


@dataclass(frozen=True)
class SelfControl:
    false_alarms: tuple[str, ...]
    """The cases A/A REGRESSED although nothing changed."""


@dataclass(frozen=True)
class SiblingControl:
    skill: str | None
    """The sibling whose territory the control claimed."""
    detected: bool
    regressed: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class CalibrationRecord:
    """What `calibrate --json` writes (`activation-calibration/1`): each control's finding,
    the suite's problems in words, and each comparison's full report."""

    schema: Literal["activation-calibration/1"] = "activation-calibration/1"
    version: str
    stage: str
    model: str | None
    trials: int
    alpha: float
    skill: SkillInfo
    notice: str | None
    """What answered, when it was the mock: its results mean nothing about the real agent."""
    narrow: Control
    broad: Control
    self: SelfControl
    sibling: SiblingControl | None
    """None when no case expects a sibling skill."""
    errors: tuple[str, ...]
    """`comparison:case` for each ERROR case."""
    problems: tuple[str, ...]
    reports: dict[str, Report]
    """Each comparison's report: narrow, broad, self and (when run) sibling."""
    exit_code: int


def calibration_record(calibration: Calibration, version: str) -> CalibrationRecord:
    spec, target = calibration.narrow.spec, calibration.narrow.inputs.target
    sibling = calibration.sibling_caught
    return CalibrationRecord(
        version=version,
        stage=spec.stage,
        model=spec.model,
        trials=spec.trials,
        alpha=spec.alpha,
        skill=SkillInfo.of(target),
        notice=calibration.notice,
        narrow=Control(bool(calibration.narrow_caught), tuple(calibration.narrow_caught)),
        broad=Control(bool(calibration.broad_caught), tuple(calibration.broad_caught)),
        self=SelfControl(tuple(calibration.false_alarms)),
        sibling=None
        if calibration.sibling is None
        else SiblingControl(calibration.sibling_skill, bool(sibling), tuple(sibling)),
        errors=tuple(calibration.errors),
        problems=tuple(calibration.problems),
        reports={
            name: build_report(outcome, version, notice=calibration.notice)
            for name, outcome in calibration.outcomes()
        },
        exit_code=int(calibration.exit_code),
    )


@dataclass(frozen=True, kw_only=True)
class BehaviorCalibrationRecord:
    """What `calibrate --behavior --json` writes (`activation-behavior-calibration/1`): the
    three checks and both runs' full reports."""

    schema: Literal["activation-behavior-calibration/1"] = "activation-behavior-calibration/1"
    version: str
    exit_code: int
    quiet: bool
    """A/A (the skill against itself) flagged nothing."""
    caught: bool
    """The broken-body control REGRESSED a case."""
    lift_shown: bool
    """The suite sees the skill's effect over no skill."""
    notice: str | None
    """What answered the judge or the `llm` arm, when it was the mock."""
    same: Report
    broken: Report


EXPECTATIONS = {
    "narrow": "positives REGRESSED",
    "broad": "negatives REGRESSED",
    "self": "no REGRESSED (A/A)",
    "sibling": "the sibling's cases REGRESSED",
}


def fraction(value: Count) -> str:
    return f"{value.hits}/{value.total}"


def _rows(calibration: Calibration) -> list[tuple[str, str, str, str, str, str]]:
    found = {
        "narrow": calibration.narrow_caught,
        "broad": calibration.broad_caught,
        "self": calibration.false_alarms,
        "sibling": calibration.sibling_caught,
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


def titled_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A terminal table of text rows under a left-aligned title."""
    table = Table(title=title, title_justify="left")
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    return table


def render_calibration(calibration: Calibration) -> RenderableType:
    table = titled_table("Calibration", HEADERS, _rows(calibration))
    parts: list[RenderableType] = [table]
    if calibration.notice:
        parts.append(Text(f"NOTE: {calibration.notice}", style="bold yellow"))
    parts += [Text(note, style="dim") for note in calibration.notes]
    if calibration.errors:
        parts.append(Text(f"ERROR cases: {', '.join(calibration.errors)}", style="magenta"))
    if calibration.problems:
        parts += [
            Text(f"The suite is {problem}", style="bold red") for problem in calibration.problems
        ]
    else:
        caught = "every control" if calibration.sibling else "both controls"
        parts.append(
            Text(f"The suite caught {caught} and raised no A/A alarm.", style="bold green")
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
        *([f"> **Note:** {escape(calibration.notice)}", ""] if calibration.notice else []),
        *markdown_table(HEADERS, _rows(calibration)),
        "",
    ]
    lines += [f"- {note}" for note in calibration.notes]
    lines += [f"- The suite is {problem}" for problem in calibration.problems]
    return "\n".join(lines) + "\n"
