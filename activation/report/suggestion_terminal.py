"""The terminal view of a `suggest` run: per round, the word diff of each proposal from the
description it started from, its select figures and its verdict; then the chosen
description, the holdback comparison (the headline), and what it cost."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from activation.report import cost_words, phrases
from activation.report.plan import diff_text
from activation.report.suggestion import Suggestion, headline, holdback_lines


def _round(suggestion: Suggestion, number: int) -> list[RenderableType]:
    found = suggestion.rounds[number]
    parts: list[RenderableType] = [Rule(f"round {found.number}")]
    if found.failures:
        parts.append(Text("What the train split's failures say:", style="bold"))
        parts += [Text(f"  {line}") for line in found.failures]
    else:
        parts.append(Text("The train split has no failure: the proposer was told so."))
    if found.problem:
        parts.append(Text(f"No proposals: {found.problem}", style="bold magenta"))
        return parts
    table = Table(title="Proposals on the select split", title_justify="left", show_lines=True)
    for column in ("#", "word diff from the round's start", "right (current -> it)", "verdict"):
        table.add_column(column)
    for index, proposal in enumerate(found.proposals, 1):
        style = "bold green" if proposal.verdict == "chosen" else ""
        table.add_row(
            str(index),
            diff_text(phrases.word_diff(found.current, proposal.text)),
            f"{proposal.current_correct} -> {proposal.correct} (worst cell {proposal.worst_cell})",
            Text(proposal.verdict, style=style),
        )
    parts.append(table)
    return parts


def render_suggestion(suggestion: Suggestion) -> RenderableType:
    parts: list[RenderableType] = [
        Text(f"activation suggest: {suggestion.skill}", style="bold"),
        Text(f"cells: {', '.join(suggestion.cells)}; proposer: {suggestion.proposer}"),
        Text(
            f"splits: train {len(suggestion.splits.train)}, select "
            f"{len(suggestion.splits.select)}, holdback {len(suggestion.splits.holdback)} cases"
        ),
    ]
    if suggestion.notice:
        parts.append(Text(f"NOTE: {suggestion.notice}", style="bold yellow"))
    for number in range(len(suggestion.rounds)):
        parts += _round(suggestion, number)
    parts.append(Rule("result"))
    parts.append(Text(f"Stopped: {suggestion.stopped}."))
    if suggestion.changed:
        parts.append(Text("Chosen description (word diff from the original):", style="bold"))
        parts.append(diff_text(phrases.word_diff(suggestion.original, suggestion.chosen)))
        parts += [Text(f"  {line}") for line in holdback_lines(suggestion)]
    parts.append(Text(headline(suggestion), style="bold"))
    cost = suggestion.usage.cost_usd
    spent = "unknown" if cost is None else cost_words.money(cost)
    parts.append(Text(f"cost {spent}, {suggestion.usage.requests:,} request(s)"))
    if suggestion.written:
        parts.append(Text(f"wrote the chosen description to {suggestion.written}"))
    return Group(*parts)
