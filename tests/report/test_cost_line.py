"""The cost line says what is really missing when a cost is unknown: a price (pass
--price-in and --price-out), or an agent's token counts, which no price replaces (a run
stopped at a load before the agent reported them; a stream that carries none)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation._models import Prices, Pricing, RunSpec, Stage, Usage
from activation.inputs.load import load_pricing
from activation.report import cost_words
from activation.report.matrix import Matrix
from activation.report.model import AgentSettings, Report
from activation.report.plan import cost_text, matrix_cost_line
from activation.trials.stage import CostEstimate, stage_named
from tests.support.reports import every_status_report

TOKENS = Usage(requests=1, input_tokens=100, output_tokens=10, cost_usd=0.001)
NONE = Usage(requests=1, cost_usd=None)
"""A run whose tokens the agent never reported: its cost is unknown, not zero."""
PRICED = Pricing("2026-11-30", {}, Prices(1.0, 2.0, 1.25, 0.1))
TABLE = load_pricing()
ESTIMATE = CostEstimate("rough", "list prices of 2026-11-30", 1000.0, 100, None, None, None)


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
        ("copilot", None, PRICED, "cost unknown (GitHub Copilot CLI's stream carried no "
                                  "token counts in any of 70 trials)"),
        ("copilot", None, None, "cost unknown (GitHub Copilot CLI's stream carried no "
                                "token counts in any of 70 trials)"),
        ("gemini", 0, None, "cost unknown (no price for gemini-3.1-pro-preview: pass "
                            "--price-in and --price-out)"),
    ],
)  # fmt: skip
def test_an_unknown_cost_says_what_is_missing(
    agent: str, blind: int | None, pricing: Pricing | None, line: str
) -> None:
    assert cost_words.cost_line(agent_run(agent, blind, pricing)) == line


def test_a_compact_report_says_some_trials_without_counting_them() -> None:
    report = replace(agent_run("gemini", 1, PRICED), trial_detail="flagged")
    assert cost_words.cost_line(report) == (
        "cost unknown (some trials stopped before Gemini CLI reported tokens)"
    )


def test_a_known_cost_is_shown_with_its_basis() -> None:
    report = replace(agent_run("gemini", 0, PRICED), usage=Usage(cost_usd=0.07))
    assert cost_words.cost_line(report) == (
        "cost $0.0700 (the prices given (--price-in and --price-out))"
    )
    table = replace(report, model="google:gemini-3.1-pro-preview", pricing=TABLE)
    assert cost_words.cost_line(table) == "cost $0.0700 (list prices of 2026-11-30)"


def test_a_matrix_names_what_each_unknown_cell_lacks() -> None:
    """The matrix says each cell's own gap, never a price hint for a cell that has one."""
    gemini, copilot = agent_run("gemini", 1, PRICED), agent_run("copilot", None, PRICED)
    copilot = replace(copilot, model="anthropic:claude-sonnet-4-6")
    matrix = Matrix(version="1", exit_code=0, cells=(gemini, copilot),
                    usage=Usage(requests=280, cost_usd=None))  # fmt: skip
    assert cost_words.matrix_cost_line(matrix) == (
        "cost unknown (B/gemini/gemini-3.1-pro-preview: 14 of 70 trials stopped before "
        "Gemini CLI reported tokens; B/copilot/anthropic:claude-sonnet-4-6: GitHub Copilot "
        "CLI's stream carried no token counts in any of 70 trials) over 2 cells, 280 request(s)"
    )


@pytest.mark.parametrize(
    ("stage", "agent", "model", "pricing", "gap"),
    [
        ("A", "claude-code", "mock", TABLE, None),
        ("A", "claude-code", "claude-nonesuch-1", TABLE,
         "no price for claude-nonesuch-1: pass --price-in and --price-out"),
        ("A", "claude-code", "claude-nonesuch-1", PRICED, None),
        ("B", "claude-code", None, TABLE, "no price for Claude Code's default model: pass "
                                          "--model with a model of the price table, or "
                                          "--price-in and --price-out (Claude Code reports "
                                          "each run's cost)"),
        ("B", "gemini", "google:gemini-3.1-pro-preview", TABLE, None),
        ("C", "codex", None, PRICED, None),
        ("B", "opencode", "anthropic:claude-nonesuch-1", TABLE,
         "no price for anthropic:claude-nonesuch-1: pass --price-in and --price-out (OpenCode "
         "reports each run's cost)"),
        ("B", "gemini", "google:gemini-nonesuch", TABLE,
         "no price for google:gemini-nonesuch: pass --price-in and --price-out"),
        ("B", "copilot", "anthropic:claude-sonnet-4-6", PRICED,
         "GitHub Copilot CLI's stream carries no token counts, which no price replaces"),
    ],
)  # fmt: skip
def test_each_stage_and_agent_says_what_keeps_its_cost_unknown(
    stage: Stage, agent: str, model: str | None, pricing: Pricing, gap: str | None
) -> None:
    """One answer for every cost line and plan: a price hint only where no price is found."""
    spec = RunSpec(stage=stage, coding_agent=agent, model=model, pricing=pricing)
    assert stage_named(stage).unpriced(spec) == gap


def test_a_plan_says_the_gap_and_a_priced_estimate_that_the_run_cannot_count() -> None:
    """With a price the estimate is shown; Copilot's run still cannot count its own cost."""
    spec = RunSpec(stage="B", coding_agent="copilot", model="anthropic:claude-sonnet-4-6",
                   pricing=PRICED)  # fmt: skip
    known = replace(ESTIMATE, per_trial=0.01, first_round=0.5, worst_case=2.0,
                    gap=stage_named("B").unpriced(spec))  # fmt: skip
    assert cost_text(spec, known).plain.splitlines()[-1] == (
        "  the run's own cost will stay unknown: GitHub Copilot CLI's stream carries no token "
        "counts, which no price replaces"
    )
    nonesuch = RunSpec(model="claude-nonesuch-1", pricing=load_pricing())
    unknown = replace(ESTIMATE, gap=stage_named("A").unpriced(nonesuch))
    assert cost_text(nonesuch, unknown).plain == (
        "cost: unknown, no price for claude-nonesuch-1: pass --price-in and --price-out\n"
    )
    claude = RunSpec(stage="B", pricing=load_pricing())
    unpriced = replace(ESTIMATE, gap=stage_named("B").unpriced(claude))
    assert cost_text(claude, unpriced).plain == (
        "cost: unknown, no price for Claude Code's default model: pass --model with a model of "
        "the price table, or --price-in and --price-out (Claude Code reports each run's cost)\n"
    )
    assert matrix_cost_line([unknown, known, unknown]).plain == (
        "3 cells: cost unknown (no price for claude-nonesuch-1: pass --price-in and --price-out)\n"
    )
