"""The Markdown report: a job summary or a pull-request comment, rendered from a Report.

Short on purpose: a verdict line, the counts, the figures, the flagged cases one line each
(up to SUMMARY_LIST_LIMIT; the rest are counted, the HTML and JSON reports list them all),
the word diff of the two descriptions and the commands to run next.
"""

from __future__ import annotations

import re

from activation._config import SUMMARY_LIST_LIMIT
from activation._models import FLAGGED, VARIANTS, Status
from activation.report.data import CaseReport, Report
from activation.report.plan import word_diff
from activation.report.terminal import cut, number, rate_text, tally_cell

PROMPT_WIDTH = 90
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
ICONS = {0: "✅", 1: "❌", 3: "⚠️", 130: "⏹️"}


def escape(text: str) -> str:
    """Plain text that Markdown (and GitHub's HTML filter) shows as typed, on one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split())).replace("&", "&amp;")


def code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _header(report: Report) -> list[str]:
    spec = report.spec
    title = " ".join(filter(None, (ICONS.get(report.exit_code), "activation:", report.verdict)))
    model = f", model {code(spec.model)}" if spec.model else ""
    escalation = f" (up to {spec.max_trials})" if spec.max_trials > spec.trials else ""
    return [
        f"### {escape(title)}",
        "",
        f"Skill {code(report.skill_id)} ({code(report.skill_path)}), Stage {spec.stage}{model}, "
        f"{spec.trials} trial(s) per variant{escalation}, alpha {spec.alpha}, "
        f"exit code {report.exit_code}.",
        "",
    ]


def _counts(report: Report) -> list[str]:
    statuses = list(Status)
    return [
        "| " + " | ".join(status.value for status in statuses) + " |",
        "|" + "---:|" * len(statuses),
        "| " + " | ".join(str(report.count(status)) for status in statuses) + " |",
        "",
    ]


def _figures(report: Report) -> list[str]:
    lines = ["| variant | recall | false positives |", "|---|---|---|"]
    for name in VARIANTS:
        figures = report.figures[name]
        lines.append(
            f"| {name} {code(report.variant(name).spec)} | {rate_text(figures.recall)} "
            f"| {rate_text(figures.false_positives)} |"
        )
    lines += ["", *(escape(line) for line in report.usage_lines)]
    if report.ceiling_line:
        lines.append(f"**{escape(report.ceiling_line)}**")
    return [*lines, ""]


def _case_line(entry: CaseReport) -> str:
    q = f", q {number(entry.q_value)}" if entry.q_value is not None else ""
    return (
        f"- {code(entry.case.id)} (baseline {tally_cell(entry.baseline)}, candidate "
        f"{tally_cell(entry.candidate)}{q}): {escape(cut(entry.case.prompt, PROMPT_WIDTH))}"
    )


def _flagged(report: Report) -> list[str]:
    lines: list[str] = []
    budget = SUMMARY_LIST_LIMIT
    for status in FLAGGED:
        entries = [entry for entry in report.cases if entry.status is status]
        if not entries:
            continue
        lines.append(f"**{status.value}** ({len(entries)})")
        lines.append("")
        shown = entries[: max(budget, 0)]
        budget -= len(shown)
        lines += [_case_line(entry) for entry in shown]
        if len(entries) > len(shown):
            lines.append(f"- … and {len(entries) - len(shown)} more (see the HTML or JSON report)")
        lines.append("")
    return lines


def _diff(report: Report) -> list[str]:
    runs = word_diff(report.baseline.description, report.candidate.description)
    sizes = f"{len(report.baseline.description)} → {len(report.candidate.description)} chars"
    if all(op == "=" for op, _ in runs):
        return [f"**Description** ({sizes}): unchanged.", ""]
    marks = {"=": "{}", "-": "~~{}~~", "+": "**{}**"}
    text = " ".join(marks[op].format(escape(words)) for op, words in runs)
    title = f"**Description** (baseline → candidate, {sizes}; ~~removed~~ **added**)"
    return [title, "", f"> {text}", ""]


def _commands(report: Report) -> list[str]:
    lines = []
    real = report.real_command
    if real:
        lines += ["Check the flagged cases with the real agent:", "", "```sh", real, "```", ""]
    lines += ["Run this check again:", "", "```sh", report.rerun_command, "```", ""]
    return lines


def render_markdown(report: Report) -> str:
    lines = _header(report) + _counts(report) + _figures(report) + _flagged(report)
    if report.unfinished:
        lines += [f"Not finished, left out: {len(report.unfinished)} case(s).", ""]
    if report.warnings:
        lines += [f"- warning: {escape(warning)}" for warning in report.warnings] + [""]
    lines += _diff(report) + _commands(report)
    return "\n".join(lines).rstrip("\n") + "\n"
