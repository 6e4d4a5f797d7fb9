"""The HTML view of a `suggest` run: one self-contained page (no script, no fetch)."""

from __future__ import annotations

from activation.report import cost_words, phrases
from activation.report.html import environment
from activation.report.suggestion import Suggestion, headline, holdback_lines


def render_suggestion_html(suggestion: Suggestion) -> str:
    template = environment().get_template("suggestion.html.j2")
    return template.render(
        suggestion=suggestion,
        headline=headline(suggestion),
        holdback=holdback_lines(suggestion),
        chosen_diff=phrases.word_diff(suggestion.original, suggestion.chosen),
        round_diffs=[
            [phrases.word_diff(found.current, proposal.text) for proposal in found.proposals]
            for found in suggestion.rounds
        ],
        cost=cost_words.money(suggestion.usage.cost_usd),
    )
