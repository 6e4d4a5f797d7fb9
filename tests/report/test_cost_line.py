"""The cost line says what is really missing when a cost is unknown: a price (pass
--price-in and --price-out), or an agent's token counts, which no price replaces (a run
stopped at a load before the agent reported them; a stream that carries none)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation._models import AgentSettings, Prices, Pricing, Usage
from activation.report import words
from activation.report.model import Report
from tests.support.reports import every_status_report

TOKENS = Usage(requests=1, input_tokens=100, output_tokens=10, cost_usd=0.001)
NONE = Usage(requests=1, cost_usd=None)
"""A run whose tokens the agent never reported: its cost is unknown, not zero."""
PRICED = Pricing("2026-11-30", {}, Prices(1.0, 2.0, 1.25, 0.1))


def agent_run(agent: str, blind: int | None, pricing: Pricing | None) -> Report:
    """The every-status run (7 cases x 2 variants x 5 trials) as `agent`'s Stage B, the
    trials of index below `blind` with no tokens (None: every trial)."""
    report = every_status_report("B")
    cases = tuple(
        replace(entry, trials=tuple(
            replace(trial, usage=NONE if blind is None or trial.index < blind else TOKENS)
            for trial in entry.trials
        ))
        for entry in report.cases
    )  # fmt: skip
    return replace(report, cases=cases, coding_agent=agent, agent=AgentSettings(),
                   pricing=pricing, model="gemini-3.1-pro-preview",
                   usage=replace(report.usage, cost_usd=None))  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "blind", "pricing", "line"),
    [
        ("gemini", 1, PRICED, "cost unknown (14 of 70 trials stopped before Gemini CLI "
                              "reported tokens)"),
        ("gemini", 2, None, "cost unknown (no price for gemini-3.1-pro-preview: pass "
                            "--price-in and --price-out; 28 of 70 trials stopped before "
                            "Gemini CLI reported tokens)"),
        ("copilot", None, PRICED, "cost unknown: GitHub Copilot CLI's stream carried no "
                                  "token counts in any of 70 trials"),
        ("copilot", None, None, "cost unknown: GitHub Copilot CLI's stream carried no "
                                "token counts in any of 70 trials"),
        ("gemini", 0, None, "cost unknown (no price for gemini-3.1-pro-preview: pass "
                            "--price-in and --price-out)"),
    ],
)  # fmt: skip
def test_an_unknown_cost_says_what_is_missing(
    agent: str, blind: int | None, pricing: Pricing | None, line: str
) -> None:
    assert words.cost_line(agent_run(agent, blind, pricing)) == line


def test_a_compact_report_says_some_trials_without_counting_them() -> None:
    report = replace(agent_run("gemini", 1, PRICED), trial_detail="flagged")
    assert words.cost_line(report) == (
        "cost unknown (some trials stopped before Gemini CLI reported tokens)"
    )


def test_a_known_cost_is_shown_with_its_basis() -> None:
    report = replace(agent_run("gemini", 0, PRICED), usage=Usage(cost_usd=0.07))
    assert words.cost_line(report) == "cost $0.0700 (list prices of 2026-11-30)"
