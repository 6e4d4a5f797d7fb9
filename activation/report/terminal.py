"""The terminal report: rich renderables built from a Report.

Case ids and the suggested command are what a user types next, so they never wrap or get
shortened, whatever the terminal's width; prompts and descriptions give way instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation._models import FLAGGED, VARIANTS, Status, Tally
from activation.report.data import Report, TrialRecord
from activation.verdicts.figures import Rate

STATUS_STYLE = {
    Status.REGRESSED: "bold red",
    Status.IMPROVED: "bold green",
    Status.UNSTABLE: "yellow",
    Status.PASS: "green",
    Status.FAIL: "red",
    Status.ERROR: "bold magenta",
}
PROMPT_WIDTH = 72
VERDICT_STYLE = {
    ExitCode.OK: "bold green",
    ExitCode.REGRESSED: "bold red",
    ExitCode.INCOMPLETE: "bold magenta",
    ExitCode.INTERRUPTED: "bold yellow",
}


def cut(text: str, width: int = PROMPT_WIDTH) -> str:
    """The text on one line, cut to `width` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def unbroken(text: str, style: str = "") -> Text:
    """Text never wrapped nor cut: printed at its natural width, it stays one whole line."""
    return Text(text, style=style, no_wrap=True, overflow="ignore")


def tally_cell(tally: Tally) -> str:
    cell = f"{tally.activated}/{tally.valid}"
    return f"{cell} +{tally.errors} err" if tally.errors else cell


def rate_text(value: Rate) -> str:
    if not value.total:
        return "n/a (no case to count: ERROR cases and ties are left out)"
    interval = f"  (95% Wilson {value.interval_text})" if value.interval_text else ""
    return f"{value.hits}/{value.total} = {value.hits / value.total:.0%}{interval}"


def number(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}" if value >= 0.001 else f"{value:.0e}"


def case_table(report: Report) -> Table:
    table = Table(title="Cases (k/n = activated of valid trials)", title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("expected")
    for column in ("baseline", "candidate", "p", "q"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for entry in report.cases:
        status = entry.status.value + (" (partial)" if entry.partial else "")
        table.add_row(
            entry.case.id,
            "activate" if entry.case.should_activate else "stay quiet",
            tally_cell(entry.baseline),
            tally_cell(entry.candidate),
            number(entry.p_value),
            number(entry.q_value),
            Text(status, style=STATUS_STYLE[entry.status]),
        )
    return table


def header(report: Report) -> Text:
    spec = report.spec
    text = Text()
    model = f", model {spec.model}" if spec.model else ""
    escalation = (
        f" (up to {spec.max_trials} for suspicious cases)" if spec.max_trials > spec.trials else ""
    )
    text.append(
        f"Stage {spec.stage}{model}, {spec.trials} trial(s){escalation}, alpha {spec.alpha}\n"
    )
    if spec.agent is not None and spec.agent.version:
        text.append(f"Claude Code {spec.agent.version}\n")
    text.append(f"skill {report.skill_id} ({report.skill_path})\n")
    for name in VARIANTS:
        variant = report.variant(name)
        text.append(f"{name:9} {variant.spec}  ({len(variant.description)} chars)\n")
    return text


def figures_text(report: Report) -> Text:
    text = Text()
    for variant in VARIANTS:
        figs = report.figures[variant]
        text.append(f"{variant:9} recall {rate_text(figs.recall)}\n")
        text.append(f"{'':9} false positives {rate_text(figs.false_positives)}\n")
    for line in report.usage_lines:
        text.append(f"{line}\n")
    if report.ceiling_hit:
        text.append(report.ceiling_line or "", style="bold magenta")
    text.rstrip()
    return text


def status_lists(report: Report) -> list[Text]:
    lines: list[Text] = []
    for status in FLAGGED:
        entries = [entry for entry in report.cases if entry.status is status]
        if not entries:
            continue
        lines.append(Text(f"{status.value} ({len(entries)})", style=STATUS_STYLE[status]))
        for entry in entries:
            line = unbroken(f"  {entry.case.id}")
            if status is Status.UNSTABLE:
                ran = sorted({entry.trials_run(variant) for variant in VARIANTS})
                line.append(f" (ran {'/'.join(map(str, ran))} trials per variant)")
            line.append(f": {cut(entry.case.prompt)}")
            lines.append(line)
            if status is Status.ERROR:
                for variant, reason in first_errors(entry.trials):
                    lines.append(Text(f"    {variant} error: {cut(reason, 100)}", style="magenta"))
    return lines


def first_errors(trials: Sequence[TrialRecord]) -> list[tuple[str, str]]:
    """Each variant's first error reason: enough to act on, without repeats."""
    found: dict[str, str] = {}
    for trial in sorted(trials, key=lambda t: t.index):
        if trial.error:
            found.setdefault(trial.variant, trial.error)
    return [(variant, found[variant]) for variant in VARIANTS if variant in found]


def render_report(report: Report) -> RenderableType:
    parts: list[RenderableType] = [header(report), case_table(report), figures_text(report)]
    parts += status_lists(report)
    command = report.real_command
    if command:
        parts += [Text("Check the flagged cases with the real agent:"), unbroken(f"  {command}")]
    if report.unfinished:
        parts.append(Text(f"Not finished, left out ({len(report.unfinished)}):"))
        parts += [unbroken(f"  {case_id}") for case_id in report.unfinished]
    parts.append(Text(report.verdict, style=VERDICT_STYLE.get(ExitCode(report.exit_code), "")))
    return Group(*parts)
