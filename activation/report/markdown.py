"""The Markdown report: a job summary or a pull-request comment, rendered from a Report.

Short on purpose: a verdict line, the counts, the figures, the flagged cases one line each
(up to SUMMARY_LIST_LIMIT; the rest are counted, the HTML and JSON reports list them all),
the word diff of the two descriptions and the commands to run next.
"""

from __future__ import annotations

import re

from activation._config import SUMMARY_LIST_LIMIT
from activation._models import VARIANTS, CaseVerdict, Status
from activation.report import words
from activation.report.model import Report

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
    title = " ".join(
        filter(None, (ICONS.get(report.exit_code), "activation:", words.verdict(report)))
    )
    model = f", model {code(report.model)}" if report.model else ""
    escalation = f" (up to {report.max_trials})" if report.max_trials > report.trials else ""
    lines = [f"### {escape(title)}", ""]
    if report.notice:
        lines += [f"> **Note:** {escape(report.notice)}", ""]
    return [
        *lines,
        f"Skill {code(report.skill.id)} ({code(report.skill.path)}), Stage {report.stage}{model}, "
        f"{report.trials} trial(s) per variant{escalation}, alpha {report.alpha}, "
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
        figures = report.summary.figures(name)
        lines.append(
            f"| {name} {code(report.variant(name).spec)} | {words.recall_text(figures)} "
            f"| {words.false_positives_text(figures)} |"
        )
    lines += ["", *(escape(line) for line in words.usage_lines(report))]
    ceiling = words.ceiling_line(report)
    if ceiling:
        lines.append(f"**{escape(ceiling)}**")
    return [*lines, ""]


def _case_line(entry: CaseVerdict) -> str:
    q = f", q {words.number(entry.q_value)}" if entry.q_value is not None else ""
    return (
        f"- {code(entry.id)} (baseline {words.tally_cell(entry.baseline)}, candidate "
        f"{words.tally_cell(entry.candidate)}{q}): {escape(words.cut(entry.prompt, PROMPT_WIDTH))}"
    )


def _flagged(report: Report) -> list[str]:
    lines: list[str] = []
    budget = SUMMARY_LIST_LIMIT
    for status, entries in words.flagged_entries(report):
        lines += [f"**{status.value}** ({len(entries)})", ""]
        shown = entries[: max(budget, 0)]
        budget -= len(shown)
        lines += [_case_line(entry) for entry in shown]
        if len(entries) > len(shown):
            lines.append(f"- … and {len(entries) - len(shown)} more (see the HTML or JSON report)")
        lines.append("")
    return lines


def _diff(report: Report) -> list[str]:
    runs = words.word_diff(report.baseline.description, report.candidate.description)
    sizes = f"{report.baseline.chars} → {report.candidate.chars} chars"
    if all(op == "=" for op, _ in runs):
        return [f"**Description** ({sizes}): unchanged.", ""]
    marks = {"=": "{}", "-": "~~{}~~", "+": "**{}**"}
    text = " ".join(marks[op].format(escape(run)) for op, run in runs)
    title = f"**Description** (baseline → candidate, {sizes}; ~~removed~~ **added**)"
    return [title, "", f"> {text}", ""]


def _commands(report: Report) -> list[str]:
    lines = []
    real = words.real_command(report)
    if real:
        lines += ["Check the flagged cases with the real agent:", "", "```sh", real, "```", ""]
    lines += ["Run this check again:", "", "```sh", words.rerun_command(report), "```", ""]
    return lines


def render_markdown(report: Report) -> str:
    lines = _header(report) + _counts(report) + _figures(report) + _flagged(report)
    if report.summary.unfinished:
        lines += [f"Not finished, left out: {len(report.summary.unfinished)} case(s).", ""]
    if report.warnings:
        lines += [f"- warning: {escape(warning)}" for warning in report.warnings] + [""]
    lines += _diff(report) + _commands(report)
    return "\n".join(lines).rstrip("\n") + "\n"
