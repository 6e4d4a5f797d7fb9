"""The Markdown view of a `suggest` run: fits a pull-request comment (the headline, the
chosen description's diff, the holdback figures, then each round folded)."""

from __future__ import annotations

from activation.report import cost_words, phrases
from activation.report.markdown import code, escape
from activation.report.suggestion import Suggestion, headline, holdback_lines


def diff_markdown(old: str, new: str) -> str:
    marks = {"=": "{}", "-": "~~{}~~", "+": "**{}**"}
    return " ".join(marks[op].format(escape(run)) for op, run in phrases.word_diff(old, new))


def render_suggestion_markdown(suggestion: Suggestion) -> str:
    lines = [
        f"### activation suggest: {code(suggestion.skill)}",
        "",
        escape(headline(suggestion)),
        "",
        f"Cells: {', '.join(code(cell) for cell in suggestion.cells)}; proposer "
        f"{code(suggestion.proposer)}. Splits: train "
        f"{len(suggestion.splits.train)}, select {len(suggestion.splits.select)}, holdback "
        f"{len(suggestion.splits.holdback)} cases. Stopped: {escape(suggestion.stopped)}.",
        "",
    ]
    if suggestion.notice:
        lines += [f"> **Note:** {escape(suggestion.notice)}", ""]
    if suggestion.changed:
        lines += ["Chosen description (from the original):", "",
                  f"> {diff_markdown(suggestion.original, suggestion.chosen)}", ""]  # fmt: skip
        lines += [f"- {escape(line)}" for line in holdback_lines(suggestion)] + [""]
    for found in suggestion.rounds:
        lines += [f"<details><summary>round {found.number}</summary>", ""]
        lines += [f"- failure: {escape(line)}" for line in found.failures]
        if found.problem:
            lines.append(f"- no proposals: {escape(found.problem)}")
        for index, proposal in enumerate(found.proposals, 1):
            lines.append(
                f"{index}. {diff_markdown(found.current, proposal.text)} — right "
                f"{proposal.current_correct} → {proposal.correct}; {escape(proposal.verdict)}"
            )
        lines += ["", "</details>", ""]
    cost = suggestion.usage.cost_usd
    lines.append(f"Cost {'unknown' if cost is None else cost_words.money(cost)}, "
                 f"{suggestion.usage.requests:,} request(s).")  # fmt: skip
    return "\n".join(lines) + "\n"
