"""What a `suggest --dry-run` shows: the splits, and what the whole search would cost at
most, round by round, before any call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rich.text import Text

from activation import _config
from activation._models import Inputs, RunSpec
from activation.inputs.splits import Splits
from activation.report import cost_words
from activation.trials.providers import provider_of
from activation.trials.stage import Stage

CHARS_PER_TOKEN = 4


def _split(inputs: Inputs, ids: Sequence[str]) -> Inputs:
    wanted = set(ids)
    return replace(inputs, cases=tuple(case for case in inputs.cases if case.id in wanted))


def _cost(
    stage: Stage, specs: Sequence[RunSpec], inputs: Inputs, fixed: bool
) -> tuple[float | None, float | None]:
    """First round and worst case of one run of every cell on `inputs`."""
    first: float | None = 0.0
    worst: float | None = 0.0
    for spec in specs:
        cell = replace(spec, max_trials=spec.trials) if fixed else spec
        found = stage.estimate(cell, inputs)
        first = None if first is None or found.first_round is None else first + found.first_round
        worst = None if worst is None or found.worst_case is None else worst + found.worst_case
    return first, worst


def _sum(*values: float | None) -> float | None:
    return None if any(value is None for value in values) else sum(v or 0.0 for v in values)


def render_suggestion_plan(
    stage: Stage,
    specs: Sequence[RunSpec],
    inputs: Inputs,
    splits: Splits,
    rounds: int,
    proposals: int,
    proposer: str,
    notice: str | None = None,
) -> Text:
    train, select, holdback = (
        _split(inputs, ids) for ids in (splits.train, splits.select, splits.holdback)
    )
    text = Text(f"Dry run: suggest for {inputs.target.skill_id}\n", style="bold")
    text.append(
        f"splits: train {len(train.cases)}, select {len(select.cases)}, holdback "
        f"{len(holdback.cases)} cases; cells: {', '.join(spec.cell for spec in specs)}\n"
    )
    pricing = specs[0].pricing
    prices = pricing.for_model(proposer) if pricing else None
    asked = len(inputs.candidate.text) // CHARS_PER_TOKEN + 1_000
    ask = None
    if prices is not None:
        ask = (asked * prices.input + _config.SUGGEST_MAX_TOKENS * prices.output) / 1_000_000
    if provider_of(proposer)[1].free:
        ask = 0.0
    train_first, _ = _cost(stage, specs, train, fixed=True)
    select_first, select_worst = _cost(stage, specs, select, fixed=False)
    hold_first, hold_worst = _cost(stage, specs, holdback, fixed=False)
    per_round_first = _sum(train_first, ask, *([select_first] * proposals))
    per_round_worst = _sum(train_first, ask, *([select_worst] * proposals))
    text.append(
        f"a round: the train split once ({cost_words.money(train_first)}), one proposer request to "
        f"{proposer} (about {cost_words.money(ask)}), {proposals} proposal(s) on the select split "
        f"({cost_words.money(select_first)} each, {cost_words.money(select_worst)} at worst)\n"
    )
    whole_first = _sum(*([per_round_first] * rounds), hold_first)
    whole_worst = _sum(*([per_round_worst] * rounds), hold_worst)
    text.append(
        f"the whole search, {rounds} round(s) and the holdback: about "
        f"{cost_words.money(whole_first)} with first rounds only, "
        f"{cost_words.money(whole_worst)} at worst (every case escalated)\n",
        style="bold",
    )
    ceiling = specs[0].max_cost_usd
    if ceiling is not None:
        text.append(
            f"ceiling: {cost_words.money(ceiling)} (--max-cost-usd): the search stops there\n"
        )
    if notice:
        text.append(f"NOTE: {notice}\n", style="bold yellow")
    text.append("No call was made.")
    return text
