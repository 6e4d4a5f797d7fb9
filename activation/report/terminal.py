"""The terminal report: rich renderables built from a Report.

Case ids and the suggested command are what a user types next, so they never wrap or get
shortened, whatever the terminal's width; prompts and descriptions give way instead. A
suite of more than TABLE_LIMIT cases shows only its flagged cases in the table and counts
the rest, as pytest summarises its passes (`--show all` prints every row; the JSON and HTML
reports always hold every case).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from activation._errors import ExitCode
from activation._models import FLAGGED, VARIANTS, CaseVerdict, Status
from activation.report import cost_words, follow_up, phrases, run_words
from activation.report.model import Report
from activation.report.routing_terminal import routing_parts
from activation.report.views import TrialWords, view_of

STATUS_STYLE = {
    Status.REGRESSED: "bold red",
    Status.WEAKENED: "red",
    Status.IMPROVED: "bold green",
    Status.UNSTABLE: "yellow",
    Status.PASS: "green",
    Status.FAIL: "red",
    Status.ERROR: "bold magenta",
}
PROMPT_WIDTH = 72
TABLE_LIMIT = 50
"""Cases above which the table shows only the flagged ones, unless `--show all`."""
VERDICT_STYLE = {
    ExitCode.OK: "bold green",
    ExitCode.REGRESSED: "bold red",
    ExitCode.INCOMPLETE: "bold magenta",
    ExitCode.INTERRUPTED: "bold yellow",
}


def unbroken(text: str, style: str = "") -> Text:
    """Text never wrapped nor cut: printed at its natural width, it stays one whole line."""
    return Text(text, style=style, no_wrap=True, overflow="ignore")


def shown_cases(report: Report, show: str) -> list[CaseVerdict]:
    """`show`: "all", "flagged", or "auto" (all up to TABLE_LIMIT cases, else flagged)."""
    if show == "all" or (show == "auto" and len(report.cases) <= TABLE_LIMIT):
        return list(report.cases)
    return [entry for entry in report.cases if entry.status in FLAGGED]


def rest_line(report: Report, shown: int) -> Text | None:
    """What the table left out, counted per status."""
    left = len(report.cases) - shown
    if not left:
        return None
    counts = ", ".join(
        f"{status.value} {report.count(status)}"
        for status in Status
        if status not in FLAGGED and report.count(status)
    )
    return Text(
        f"{left} more case(s) not flagged ({counts}): `--show all` prints every row", style="dim"
    )


def header(report: Report) -> Text:
    text = Text()
    if report.notice:
        text.append(f"NOTE: {report.notice}\n", style="bold yellow")
    model = f", model {report.model}" if report.model else ""
    escalation = (
        f" (up to {report.max_trials} for suspicious cases)"
        if report.max_trials > report.trials
        else ""
    )
    text.append(
        f"{phrases.stage_text(report)}{model}, {report.trials} trial(s){escalation}, "
        f"alpha {report.alpha}\n"
    )
    label = phrases.agent_label(report)
    if label is not None:
        text.append(f"{label}{phrases.sandbox_text(report)}\n")
    text.append(f"skill {report.skill.id} ({report.skill.path})\n")
    if report.distractors:
        text.append(f"note: {report.distractors}\n", style="yellow")
    arms = view_of(report).arms(report)
    if arms is not None:
        text.append(f"{arms}\n")
    for name in VARIANTS:
        variant = report.variant(name)
        text.append(f"{name:9} {variant.spec}  ({variant.chars} chars)\n")
    changed = run_words.changed_entries(report)
    if changed and changed != [report.skill.id]:
        text.append(f"entries that differ: {', '.join(changed)}\n")
    return text


def figures_text(report: Report) -> Text:
    text = view_of(report).terminal_figures(report)
    for line in cost_words.usage_lines(report):
        text.append(f"{line}\n")
    ceiling = cost_words.ceiling_line(report)
    if ceiling:
        text.append(ceiling, style="bold magenta")
    text.rstrip()
    return text


def status_lists(report: Report) -> list[Text]:
    lines: list[Text] = []
    case = view_of(report).case
    for status, entries in run_words.flagged_entries(report):
        lines.append(Text(f"{status.value} ({len(entries)})", style=STATUS_STYLE[status]))
        for entry in entries:
            moved = status in run_words.MOVED
            line = unbroken(f"  {run_words.moved_text(report, entry) if moved else entry.id}")
            if status is Status.UNSTABLE:
                ran = sorted({entry.trials_run.baseline, entry.trials_run.candidate})
                line.append(f" (ran {'/'.join(map(str, ran))} trials per variant)")
            line.append(f": {phrases.cut(entry.prompt, PROMPT_WIDTH)}")
            lines.append(line)
            shown = case.shown_trials(entry)
            if shown:
                lines += [unbroken(f"    {line}", "dim") for line in trial_lines(shown)]
            elif status is Status.ERROR:
                for variant, reason in run_words.first_errors(entry.trials):
                    lines.append(
                        Text(f"    {variant} error: {phrases.cut(reason, 100)}", style="magenta")
                    )
    return lines


def trial_lines(trials: list[TrialWords]) -> list[str]:
    """Each trial a flagged case shows, what failed in it and what it left."""
    lines = []
    for trial in trials:
        lines.append(trial.head)
        lines += [f"  {line}" for line in (*trial.failed, *trial.details)]
    return lines


def visibility_texts(report: Report) -> list[Text]:
    """The cell's visibility findings, before its cases: a finding fails the gate, and a
    measured skill the agent does not list makes its misses meaningless."""
    return [
        unbroken(line, "bold red" if line.startswith("LESS VISIBLE") else "yellow")
        for line in run_words.visibility_lines(report)
    ]


def unfinished_texts(unfinished: Sequence[str]) -> list[Text]:
    """The cases an interruption left without a verdict, up to TABLE_LIMIT by name and the
    rest counted: a run cut short early among thousands of cases would otherwise print (and
    first measure) thousands of lines on its way out. The JSON report lists every one."""
    if not unfinished:
        return []
    texts = [Text(f"Not finished, left out ({len(unfinished):,}):")]
    texts += [unbroken(f"  {case_id}") for case_id in unfinished[:TABLE_LIMIT]]
    if len(unfinished) > TABLE_LIMIT:
        texts.append(Text(f"  and {len(unfinished) - TABLE_LIMIT:,} more"))
    return texts


def render_report(report: Report, show: str = "auto") -> RenderableType:
    entries = shown_cases(report, show)
    parts: list[RenderableType] = [header(report), *visibility_texts(report)]
    view = view_of(report)
    parts.append(view.terminal_cases(report, entries))
    rest = rest_line(report, len(entries))
    if rest is not None:
        parts.append(rest)
    parts += view.terminal_sections(report, entries)
    parts += routing_parts(report)
    parts.append(figures_text(report))
    against = run_words.against_line(report)
    if against is not None:
        parts.append(Text(against, style="cyan"))
    parts += status_lists(report)
    command = follow_up.real_command(report)
    if command:
        parts += [Text(follow_up.REAL_TITLE), unbroken(f"  {command}")]
    parts += unfinished_texts(report.summary.unfinished)
    errors = run_words.errors_line(report)
    if errors is not None:
        parts.append(unbroken(errors, "magenta"))
    if report.notice:
        parts.append(Text(f"NOTE: {report.notice}", style="bold yellow"))
    verdict_style = VERDICT_STYLE.get(ExitCode(report.exit_code), "")
    parts.append(Text(run_words.verdict(report), style=verdict_style))
    return Group(*parts)
