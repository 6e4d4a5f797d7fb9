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
from rich.table import Table
from rich.text import Text

from activation._errors import ExitCode
from activation._models import FLAGGED, VARIANTS, CaseVerdict, Status
from activation.report import words
from activation.report.model import Report
from activation.report.routing_terminal import routing_parts
from activation.report.views import view_of
from activation.verdicts.behavior import Behavior

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


def activation_table(entries: list[CaseVerdict]) -> Table:
    """Per case each variant's activations, p and q, and the status."""
    table = Table(title=f"Cases ({words.CASE_CELLS})", title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("expected")
    for column in ("baseline", "candidate", "p", "q"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for entry in entries:
        table.add_row(
            entry.id,
            words.expected_text(entry),
            words.case_cell(entry, "baseline"),
            words.case_cell(entry, "candidate"),
            words.number(entry.p_value),
            words.number(entry.q_value),
            Text(words.status_text(entry), style=STATUS_STYLE[entry.status]),
        )
    return table


def behavior_table(behavior: Behavior, entries: list[CaseVerdict]) -> Table:
    """Per case: each arm's pass rate with its interval, p and q of the gate (baseline vs
    candidate), the status and the grader that broke first (each case's lift is in the
    Markdown, HTML, JUnit and JSON; the terminal gives the suite's)."""
    table = Table(title=f"Cases ({words.PASSED_CELLS})", title_justify="left")
    table.add_column("id", no_wrap=True)
    for arm in behavior.arms:
        table.add_column(arm, justify="right")
    for column in ("p", "q"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("broke first")
    for entry in entries:
        case = behavior.case(entry.id)
        table.add_row(
            entry.id,
            *(words.rate_cell(case.rate(arm)) for arm in behavior.arms),
            words.number(entry.p_value),
            words.number(entry.q_value),
            Text(words.status_text(entry), style=STATUS_STYLE[entry.status]),
            words.case_broke(case),
        )
    return table


def grader_table(behavior: Behavior, entries: list[CaseVerdict]) -> Table | None:
    """Each grader of the cases that did not simply pass, per arm: where a case broke."""
    shown = [behavior.case(entry.id) for entry in entries if entry.status is not Status.PASS]
    if not shown:
        return None
    table = Table(title=words.GRADERS, title_justify="left")
    table.add_column("case", no_wrap=True)
    table.add_column("grader")
    for arm in behavior.arms:
        table.add_column(arm, justify="right", no_wrap=True)
    for case in shown:
        for grader in case.graders:
            broke = grader.grader == case.broke
            table.add_row(
                case.id,
                Text(words.grader_text(grader), style="bold red" if broke else ""),
                *(words.grader_cell(grader.rate(arm)) for arm in behavior.arms),
            )
    return table


def level_table(behavior: Behavior) -> Table:
    """Every grader of a level over the suite, per arm."""
    table = Table(title=words.LEVELS, title_justify="left")
    table.add_column("level", no_wrap=True)
    for arm in behavior.arms:
        table.add_column(arm, justify="right", no_wrap=True)
    for level in behavior.levels:
        table.add_row(
            words.level_text(level.level),
            *(words.grader_cell(level.rate(arm)) for arm in behavior.arms),
        )
    return table


def behavior_text(behavior: Behavior) -> Text:
    """Each arm's pass rate over the suite, the skill's lift over no skill, and how trials
    did where it loaded and where not."""
    text = Text()
    text.append(f"{words.suite_rates_text(behavior)}\n")
    text.append(
        f"{words.suite_lift_text(behavior)}\n", style="" if behavior.lift_shown else "yellow"
    )
    text.append(f"{words.LOADED.lower()}:\n")
    for loading in behavior.loading:
        text.append(f"  {words.loading_text(loading)}\n")
    text.rstrip()
    return text


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
        f"{words.stage_text(report)}{model}, {report.trials} trial(s){escalation}, "
        f"alpha {report.alpha}\n"
    )
    label = words.agent_label(report)
    if label is not None:
        text.append(f"{label}\n")
    text.append(f"skill {report.skill.id} ({report.skill.path})\n")
    if report.distractors:
        text.append(f"note: {report.distractors}\n", style="yellow")
    arms = view_of(report).arms(report)
    if arms is not None:
        text.append(f"{arms}\n")
    for name in VARIANTS:
        variant = report.variant(name)
        text.append(f"{name:9} {variant.spec}  ({variant.chars} chars)\n")
    changed = words.changed_entries(report)
    if changed and changed != [report.skill.id]:
        text.append(f"entries that differ: {', '.join(changed)}\n")
    return text


def figures_text(report: Report) -> Text:
    text = view_of(report).terminal_figures(report)
    for line in words.usage_lines(report):
        text.append(f"{line}\n")
    ceiling = words.ceiling_line(report)
    if ceiling:
        text.append(ceiling, style="bold magenta")
    text.rstrip()
    return text


def status_lists(report: Report) -> list[Text]:
    lines: list[Text] = []
    for status, entries in words.flagged_entries(report):
        lines.append(Text(f"{status.value} ({len(entries)})", style=STATUS_STYLE[status]))
        for entry in entries:
            moved = status in words.MOVED
            line = unbroken(f"  {words.moved_text(entry, report.skill.id) if moved else entry.id}")
            if status is Status.UNSTABLE:
                ran = sorted({entry.trials_run.baseline, entry.trials_run.candidate})
                line.append(f" (ran {'/'.join(map(str, ran))} trials per variant)")
            line.append(f": {words.cut(entry.prompt, PROMPT_WIDTH)}")
            lines.append(line)
            if words.graded_case(entry):
                lines += [unbroken(f"    {line}", "dim") for line in trial_lines(entry)]
            elif status is Status.ERROR:
                for variant, reason in words.first_errors(entry.trials):
                    lines.append(
                        Text(f"    {variant} error: {words.cut(reason, 100)}", style="magenta")
                    )
    return lines


def trial_lines(entry: CaseVerdict) -> list[str]:
    """Each arm's first trial that did not pass, and the graders that failed in it."""
    lines = []
    for trial in words.first_failures(entry):
        lines.append(words.trial_head(trial))
        lines += [f"  {grade}" for grade in words.failed_grades(trial)]
        lines += [f"  {detail}" for detail in words.trial_details(trial)]
    return lines


def visibility_texts(report: Report) -> list[Text]:
    """The cell's visibility findings, before its cases: a finding fails the gate, and a
    measured skill the agent does not list makes its misses meaningless."""
    return [
        unbroken(line, "bold red" if line.startswith("LESS VISIBLE") else "yellow")
        for line in words.visibility_lines(report)
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
    parts += status_lists(report)
    command = words.real_command(report)
    if command:
        parts += [Text(words.REAL_TITLE), unbroken(f"  {command}")]
    parts += unfinished_texts(report.summary.unfinished)
    if report.notice:
        parts.append(Text(f"NOTE: {report.notice}", style="bold yellow"))
    verdict_style = VERDICT_STYLE.get(ExitCode(report.exit_code), "")
    parts.append(Text(words.verdict(report), style=verdict_style))
    return Group(*parts)
