"""The Markdown report: a job summary or a pull-request comment, rendered from a Report.

Short on purpose: a verdict line, the counts, the figures, the flagged cases one line each
(up to SUMMARY_LIST_LIMIT; the rest are counted, the HTML and JSON reports list them all),
the word diff of the two descriptions and the commands to run next.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from activation._config import SUMMARY_LIST_LIMIT
from activation._models import VARIANTS, CaseVerdict, Status
from activation.report import (
    activation_words,
    cost_words,
    follow_up,
    phrases,
    routing_text,
    run_words,
)
from activation.report.model import Report
from activation.report.views import view_of
from activation.verdicts.routing import changed_cells

PROMPT_WIDTH = 90
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
ICONS = {0: "✅", 1: "❌", 3: "⚠️", 130: "⏹️"}


def escape(text: str) -> str:
    """Plain text that Markdown (and GitHub's HTML filter) shows as typed, on one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split())).replace("&", "&amp;")


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A markdown table's lines: the header, the rule, a line per row."""
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "---|" * len(headers),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _header(report: Report) -> list[str]:
    title = " ".join(
        filter(None, (ICONS.get(report.exit_code), "activation:", run_words.verdict(report)))
    )
    model = f", model {code(report.model)}" if report.model else ""
    escalation = f" (up to {report.max_trials})" if report.max_trials > report.trials else ""
    lines = [f"### {escape(title)}", ""]
    if report.notice:
        lines += [f"> **Note:** {escape(report.notice)}", ""]
    return [
        *lines,
        f"Skill {code(report.skill.id)} ({code(report.skill.path)}), "
        f"{phrases.stage_text(report)}{model}, "
        f"{report.trials} trial(s) per variant{escalation}, alpha {report.alpha}, "
        f"exit code {report.exit_code}.",
        "",
        *([escape(arms), ""] if (arms := view_of(report).arms(report)) else []),
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
    lines = view_of(report).markdown_figures(report)
    lines += ["", *(escape(line) for line in cost_words.usage_lines(report))]
    ceiling = cost_words.ceiling_line(report)
    if ceiling:
        lines.append(f"**{escape(ceiling)}**")
    return [*lines, ""]


def _case_line(report: Report, entry: CaseVerdict) -> str:
    case = view_of(report).case
    q = f", q {phrases.number(entry.q_value)}" if entry.q_value is not None else ""
    went = case.went(entry, report.skill.id) if entry.status in run_words.MOVED else None
    moved = f"; {escape(went)}" if went else ""
    line = (
        f"- {code(entry.id)} (baseline {case.cell(entry, 'baseline')}, candidate "
        f"{case.cell(entry, 'candidate')}{q}{moved}): "
        f"{escape(phrases.cut(entry.prompt, PROMPT_WIDTH))}"
    )
    trials = [f"  - {escape(trial.line)}" for trial in case.shown_trials(entry)]
    return "\n".join([line, *trials])


def _flagged(report: Report) -> list[str]:
    lines: list[str] = []
    budget = SUMMARY_LIST_LIMIT
    for status, entries in run_words.flagged_entries(report):
        lines += [f"**{status.value}** ({len(entries)})", ""]
        shown = entries[: max(budget, 0)]
        budget -= len(shown)
        lines += [_case_line(report, entry) for entry in shown]
        if len(entries) > len(shown):
            lines.append(f"- … and {len(entries) - len(shown)} more (see the HTML or JSON report)")
        lines.append("")
    return lines


def _routing(report: Report) -> list[str]:
    """The rows of the routing matrix that changed, and each skill's figures when the set
    has several."""
    target = report.skill.id
    routes = {name: report.summary.routing(name) for name in VARIANTS}
    changed_rows = {expected for expected, *_ in changed_cells(routes)}
    lines = []
    if changed_rows:
        lines += [
            "**Where the prompts went** (trials; the rows that changed)",
            "",
            "| expected | first skill fired | baseline | candidate |",
            "|---|---|---:|---:|",
        ]
        for expected in sorted(changed_rows, key=lambda label: (label in ("none", "other"), label)):
            columns = {c.went for r in routes.values() for c in r.cells if c.expected == expected}
            for went in sorted(columns):
                old, new = (routes[name].count(expected, went) for name in VARIANTS)
                lines.append(
                    f"| {escape(activation_words.label_text(expected, target))} | "
                    f"{escape(activation_words.label_text(went, target))} | {old} | {new} |"
                )
        lines.append("")
    skills = {f.skill: f for f in routes["baseline"].skills}
    candidate = {f.skill: f for f in routes["candidate"].skills}
    if len(skills | candidate) > 1:
        lines += [
            "| skill | recall baseline | recall candidate | precision baseline | "
            "precision candidate | candidate lost to | candidate took from |",
            "|---|---|---|---|---|---|---|",
        ]
        for skill in sorted(skills | candidate):
            sides = (skills.get(skill), candidate.get(skill))
            cells = [phrases.percent(f.recall, f.recall_interval) if f else "n/a" for f in sides]
            cells += [
                phrases.percent(f.precision, f.precision_interval) if f else "n/a" for f in sides
            ]
            found = candidate.get(skill)
            cells += [
                escape(routing_text.shares_text(shares, target))
                for shares in ((found.lost_to, found.took_from) if found else ((), ()))
            ]
            lines.append(f"| {code(skill)} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines + _ambiguous(report)


def _ambiguous(report: Report) -> list[str]:
    """The cases with several acceptable skills, and how often each was picked."""
    rows = routing_text.ambiguous_rows(report)
    if not rows:
        return []
    lines = [
        f"**{routing_text.AMBIGUOUS_TITLE}**",
        "",
        "| case | acceptable | baseline picked | candidate picked |",
        "|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _entry_diffs(report: Report) -> list[str]:
    marks = {"=": "{}", "-": "~~{}~~", "+": "**{}**"}
    lines = []
    for skill, runs in run_words.entry_diffs(report):
        text = " ".join(marks[op].format(escape(run)) for op, run in runs)
        lines += [f"**Entry of {code(skill)}** (baseline → candidate)", "", f"> {text}", ""]
    return lines


def _diff(report: Report) -> list[str]:
    runs = phrases.word_diff(report.baseline.description, report.candidate.description)
    sizes = f"{report.baseline.chars} → {report.candidate.chars} chars"
    if all(op == "=" for op, _ in runs):
        return [f"**Description** ({sizes}): unchanged.", ""]
    marks = {"=": "{}", "-": "~~{}~~", "+": "**{}**"}
    text = " ".join(marks[op].format(escape(run)) for op, run in runs)
    title = f"**Description** (baseline → candidate, {sizes}; ~~removed~~ **added**)"
    return [title, "", f"> {text}", ""]


def _commands(report: Report) -> list[str]:
    lines = []
    real = follow_up.real_command(report)
    if real:
        lines += [follow_up.REAL_TITLE, "", "```sh", real, "```", ""]
    lines += [follow_up.RERUN_TITLE, "", "```sh", follow_up.rerun_command(report), "```", ""]
    return lines


def render_markdown(report: Report) -> str:
    routing = _routing(report) if view_of(report).recall else []
    seen = [f"- {escape(line)}" for line in run_words.visibility_lines(report)]
    lines = _header(report) + ([*seen, ""] if seen else [])
    lines += _counts(report) + _figures(report) + routing
    lines += _flagged(report)
    if (against := run_words.against_line(report)) is not None:
        lines += [f"**{escape(against)}**", ""]
    if report.summary.unfinished:
        lines += [f"Not finished, left out: {len(report.summary.unfinished)} case(s).", ""]
    if (errors := run_words.errors_line(report)) is not None:
        lines += [escape(errors), ""]
    if report.warnings:
        lines += [f"- warning: {escape(warning)}" for warning in report.warnings] + [""]
    if report.distractors:
        lines += [f"- note: {escape(report.distractors)}", ""]
    lines += _diff(report) + _entry_diffs(report) + _commands(report)
    return "\n".join(lines).rstrip("\n") + "\n"
