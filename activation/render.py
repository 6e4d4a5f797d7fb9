"""The terminal report: rich renderables built from a finished (or interrupted) run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation.menu import one_line
from activation.report import RunOutcome, flagged_ids
from activation.trial import VARIANTS
from activation.verdicts import FLAGGED, Rate, Status, Tally

STATUS_STYLE = {
    Status.REGRESSED: "bold red",
    Status.IMPROVED: "bold green",
    Status.UNSTABLE: "yellow",
    Status.PASS: "green",
    Status.FAIL: "red",
    Status.ERROR: "bold magenta",
}
PROMPT_WIDTH = 72


def cut(text: str, width: int = PROMPT_WIDTH) -> str:
    line = one_line(text)
    return line if len(line) <= width else line[: width - 1] + "…"


def tally_cell(tally: Tally) -> str:
    cell = f"{tally.activated}/{tally.valid}"
    return f"{cell} +{tally.errors} err" if tally.errors else cell


def rate_text(value: Rate) -> str:
    if not value.total:
        return "n/a (no case to count: ERROR cases and ties are left out)"
    text = f"{value.hits}/{value.total} = {value.hits / value.total:.0%}"
    if value.interval:
        low, high = value.interval
        text += f"  (95% Wilson {low:.0%}-{high:.0%})"
    return text


def case_table(outcome: RunOutcome) -> Table:
    table = Table(title="Cases (k/n = activated of valid trials)", title_justify="left")
    for column in ("id", "expected", "baseline", "candidate", "p", "status"):
        table.add_column(
            column, justify="right" if column in ("baseline", "candidate", "p") else "left"
        )
    for verdict in outcome.verdicts:
        table.add_row(
            verdict.case.id,
            "activate" if verdict.case.should_activate else "stay quiet",
            tally_cell(verdict.baseline),
            tally_cell(verdict.candidate),
            "" if verdict.p_value is None else f"{verdict.p_value:.3f}",
            Text(verdict.status.value, style=STATUS_STYLE[verdict.status]),
        )
    return table


def header(outcome: RunOutcome) -> Text:
    info = outcome.info
    text = Text()
    model = f", model {info.model}" if info.model else ""
    text.append(f"Stage {info.stage}{model}, {info.trials} trial(s), alpha {info.alpha}\n")
    text.append(f"skill {info.skill_id} ({info.skill_path})\n")
    for name, variant in (("baseline", info.baseline), ("candidate", info.candidate)):
        text.append(f"{name:9} {variant.spec}  ({len(variant.description)} chars)\n")
    return text


def figures_text(outcome: RunOutcome) -> Text:
    text = Text()
    for variant in VARIANTS:
        figs = outcome.figures(variant)
        text.append(f"{variant:9} recall {rate_text(figs.recall)}\n")
        text.append(f"{'':9} false positives {rate_text(figs.false_positives)}\n")
    usage = outcome.usage
    text.append(
        f"usage: {usage.requests} request(s), {usage.input_tokens} input / "
        f"{usage.output_tokens} output tokens"
    )
    if outcome.info.stage == "B":
        text.append(f", ${usage.cost_usd:.4f} reported by the CLI")
    return text


def status_lists(outcome: RunOutcome) -> Text:
    text = Text()
    for status in FLAGGED:
        verdicts = [v for v in outcome.verdicts if v.status is status]
        if not verdicts:
            continue
        text.append(f"{status.value} ({len(verdicts)})\n", style=STATUS_STYLE[status])
        for verdict in verdicts:
            text.append(f"  {verdict.case.id}: {cut(verdict.case.prompt)}\n")
            if status is Status.ERROR:
                for variant, reason in first_errors(outcome, verdict.case.id):
                    text.append(f"    {variant} error: {cut(reason, 100)}\n", style="magenta")
    return text


def first_errors(outcome: RunOutcome, case_id: str) -> list[tuple[str, str]]:
    """Each variant's first error reason for a case: enough to act on, without repeats."""
    found: dict[str, str] = {}
    for trial in sorted(outcome.trials, key=lambda t: t.key.index):
        if trial.key.case.id == case_id and trial.error:
            found.setdefault(trial.key.variant, trial.error)
    return [(variant, found[variant]) for variant in VARIANTS if variant in found]


def real_command(outcome: RunOutcome, rerun_args: Sequence[str]) -> str | None:
    """A ready `--real --only` line for what Stage A flagged, or None when nothing was."""
    flagged = flagged_ids(outcome.verdicts)
    if outcome.info.stage != "A" or not flagged:
        return None
    return shlex.join(["activation", "--real", "--only", ",".join(flagged), *rerun_args])


def render_outcome(outcome: RunOutcome, rerun_args: Sequence[str] = ()) -> RenderableType:
    parts: list[RenderableType] = [header(outcome), case_table(outcome), figures_text(outcome)]
    lists = status_lists(outcome)
    if lists.plain:
        parts.append(lists)
    command = real_command(outcome, rerun_args)
    if command:
        parts.append(Text(f"Check the flagged cases with the real agent:\n  {command}"))
    verdict = {
        0: Text("OK: no case regressed, no case errored.", style="bold green"),
        1: Text("FAILED: the candidate regressed.", style="bold red"),
        3: Text("INCOMPLETE: some trials errored, so the gate fails closed.", style="bold magenta"),
        130: Text("INTERRUPTED: partial results above.", style="bold yellow"),
    }[outcome.exit_code]
    if outcome.unfinished:
        ids = ", ".join(outcome.unfinished)
        parts.append(Text(f"Not finished, left out ({len(outcome.unfinished)}): {ids}"))
    parts.append(verdict)
    return Group(*parts)
