"""What a run would do, and what makes its answer weaker: said before it costs anything."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._config import (
    BATCH_DISCOUNT,
    LARGE_PLAN,
    LONG_PROMPT,
    STAGE_A_OUTPUT_ESTIMATE,
    STAGE_B_RUN_ESTIMATE,
)
from activation._models import VARIANTS, Case, Inputs, RunSpec, Setting
from activation.inputs.suite import suite_mismatch
from activation.inputs.variants import description_warnings
from activation.trials.simulate import Characteristics
from activation.verdicts.figures import Rate
from activation.verdicts.judge import can_regress


def planned_calls(spec: RunSpec, inputs: Inputs) -> int:
    """Model calls (Stage A) or agent runs (Stage B) of the first round, before any re-ask."""
    return len(inputs.cases) * 2 * spec.trials


def worst_case_calls(spec: RunSpec, inputs: Inputs) -> int:
    """Every case escalated to `--max-trials`."""
    return len(inputs.cases) * 2 * spec.max_trials


CHARS = "estimated from characters / 4"
COUNTED = "counted by the token-counting endpoint"


@dataclass(frozen=True)
class CostEstimate:
    """What a run would cost at list price; None figures are unknown (no price)."""

    how: str
    """Where the token figures come from, said to the user."""
    trial_input: float
    """Mean input tokens of one trial."""
    trial_output: int
    per_trial: float | None
    first_round: float | None
    worst_case: float | None
    model: str | None

    @property
    def known(self) -> bool:
        return self.per_trial is not None


def chars_tokens(request: Mapping[str, Any]) -> int:
    """Input tokens estimated from characters (about 4 a token), without any call."""
    text = str(request.get("system", "")) + "".join(
        str(message.get("content", "")) for message in request.get("messages", ())
    )
    return len(text) // 4


def estimate_cost(
    spec: RunSpec, inputs: Inputs, input_tokens: Sequence[int] | None, how: str
) -> CostEstimate:
    """The first round's cost and the worst case (every case escalated to `--max-trials`).

    Stage A: `input_tokens` per case and variant (counted, or estimated from characters)
    and a short answer; Stage B: a rough figure per agent run (its system prompt and tools
    dominate, and the CLI does not say them in advance).
    """
    if spec.stage == "A" and input_tokens:
        trial_input = sum(input_tokens) / len(input_tokens)
        trial_output = STAGE_A_OUTPUT_ESTIMATE
    else:
        trial_input, trial_output = STAGE_B_RUN_ESTIMATE
        how = "a rough figure per agent run"
    prices = spec.prices
    discount = BATCH_DISCOUNT if spec.batch else 1.0
    per_trial = (
        None
        if prices is None
        else (trial_input * prices.input + trial_output * prices.output) * discount / 1_000_000
    )
    return CostEstimate(
        how,
        trial_input,
        trial_output,
        per_trial,
        None if per_trial is None else per_trial * planned_calls(spec, inputs),
        None if per_trial is None else per_trial * worst_case_calls(spec, inputs),
        spec.model,
    )


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def cost_text(spec: RunSpec, estimate: CostEstimate) -> Text:
    text = Text()
    if not estimate.known:
        model = estimate.model or "the CLI's default model"
        text.append(
            f"cost: unknown, no price for {model} (pass --price-in and --price-out)\n",
            style="bold",
        )
        return text
    date = spec.pricing.date if spec.pricing else "?"
    batch = ", at the batch discount (half)" if spec.batch else ""
    text.append(
        f"cost at list prices of {date}{batch}: first round {money(estimate.first_round)}, "
        f"worst case {money(estimate.worst_case)} (every case escalated to "
        f"{spec.max_trials} trials)\n",
        style="bold",
    )
    text.append(
        f"  per trial about {estimate.trial_input:,.0f} input tokens ({estimate.how}) and "
        f"{estimate.trial_output:,} output tokens (assumed)\n"
    )
    if spec.max_cost_usd is not None:
        text.append(f"  ceiling: {money(spec.max_cost_usd)} (--max-cost-usd)\n")
    return text


def run_warnings(spec: RunSpec, inputs: Inputs, bundled_cases: bool) -> list[str]:
    """What makes a run's answer weaker, or its bill larger, than the user may think."""
    warnings = [w for name in VARIANTS for w in description_warnings(inputs.variant(name))]
    mismatch = suite_mismatch(inputs.written_for, inputs.target.skill_id, bundled_cases)
    if mismatch:
        warnings.append(mismatch)
    if not can_regress(spec.trials, spec.alpha):
        warnings.append(
            f"with {spec.trials} trial(s) per variant no case can reach p < "
            f"{spec.alpha}, so nothing can be REGRESSED and the gate cannot fail on a "
            "regression: use --trials 3 or more"
        )
    long_prompts = [case.id for case in inputs.cases if len(case.prompt) > LONG_PROMPT]
    if long_prompts:
        warnings.append(
            f"{len(long_prompts)} prompt(s) over {LONG_PROMPT:,} characters "
            f"({', '.join(long_prompts)}): each costs that much in every trial"
        )
    calls = planned_calls(spec, inputs)
    if calls > LARGE_PLAN:
        warnings.append(
            f"the run plans {calls:,} model calls in its first round (over {LARGE_PLAN:,}): "
            "check --trials, --only and the cases file"
        )
    return warnings


def groups(cases: Sequence[Case]) -> dict[str, list[str]]:
    """Case ids per tag, in file order; a case with several tags shows in each."""
    grouped: dict[str, list[str]] = {}
    for case in cases:
        for tag in case.tags or ("(untagged)",):
            grouped.setdefault(tag, []).append(case.id)
    return grouped


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(op, words) runs with op one of '=', '-', '+', from a word-level alignment."""
    a, b = old.split(), new.split()
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            runs.append(("+", " ".join(b[j1:j2])))
    return runs


def diff_text(runs: Sequence[tuple[str, str]]) -> Text:
    text = Text()
    styles = {"=": "", "-": "red strike", "+": "green underline"}
    marks = {"=": "{}", "-": "[-{}-]", "+": "{{+{}+}}"}
    for position, (op, words) in enumerate(runs):
        if position:
            text.append(" ")
        text.append(marks[op].format(words), style=styles[op])
    return text


def percent(value: Rate | None) -> str:
    if value is None or not value.total:
        return "n/a"
    interval = f" ({value.interval_text})" if value.interval_text else ""
    return f"{value.hits / value.total:.0%}{interval}"


def characteristics_text(
    spec: RunSpec, inputs: Inputs, steady: Characteristics, dropped: Characteristics
) -> Text:
    """What these settings can detect on a suite of this size, from the simulation."""
    text = Text()
    text.append(
        f"What these settings can detect on {len(inputs.cases)} cases "
        f"(simulated, {steady.runs} runs each; half the cases right 97% of the time, "
        "a quarter 80%, a quarter 60%):\n",
        style="bold",
    )
    text.append(f"  a false alarm when nothing changed: {percent(steady.false_alarms)}\n")
    text.append(f"  one case falling from 0.9 to 0.3 caught: {percent(dropped.caught)}\n")
    text.append(
        f"  calls: {planned_calls(spec, inputs):,} in the first round, about "
        f"{round(steady.mean_calls):,} in all "
        f"when nothing changed, at most {worst_case_calls(spec, inputs):,} "
        f"(every case escalated to {spec.max_trials} trials)\n"
    )
    return text


def render_plan(
    spec: RunSpec,
    inputs: Inputs,
    detectable: tuple[Characteristics, Characteristics] | None,
    cost: CostEstimate | None = None,
) -> RenderableType:
    skill_id = inputs.target.skill_id
    cases = inputs.cases
    positives = sum(case.should_activate for case in cases)
    text = Text()
    text.append(f"Dry run: Stage {spec.stage}, skill {skill_id}\n", style="bold")
    text.append(
        f"{len(cases)} case(s): {positives} should activate, {len(cases) - positives} should not\n"
    )
    for tag, ids in groups(cases).items():
        text.append(f"  {tag} ({len(ids)}): {', '.join(ids)}\n")
    if spec.stage == "A":
        names = [skill.name for skill in inputs.distractors]
        text.append(f"menu: {skill_id} and {len(names)} distractor(s): {', '.join(names)}\n")
    for name in VARIANTS:
        variant = inputs.variant(name)
        text.append(f"{name} {variant.spec} ({len(variant.description)} chars)\n", style="bold")
        text.append(f"  {variant.description}\n")
    runs = word_diff(inputs.baseline.description, inputs.candidate.description)
    changed = any(op != "=" for op, _ in runs)
    text.append("word diff (baseline → candidate):\n", style="bold")
    diff = diff_text(runs) if changed else Text("(identical)")
    what = "model call(s)" if spec.stage == "A" else "agent run(s)"
    model = f" to {spec.model}" if spec.model else ""
    reask = ", plus at most one re-ask per unusable answer" if spec.stage == "A" else ""
    footer = Text(
        f"\nThe first round would make {planned_calls(spec, inputs)} {what}{model} "
        f"({len(cases)} cases x 2 variants x {spec.trials} trials){reask}; suspicious cases "
        f"then get more, up to {spec.max_trials} trials. No call was made."
    )
    detects = (
        characteristics_text(spec, inputs, *detectable)
        if detectable is not None
        else Text(
            f"Not simulated: {planned_calls(spec, inputs):,} calls in the first round are too "
            "many to simulate what these settings can detect in a dry run "
            "(benchmarks/gate_validity.py measures it).\n"
        )
    )
    parts = [text, Text("  ").append_text(diff), Text(), detects]
    if cost is not None:
        parts.append(cost_text(spec, cost))
    return Group(*parts, footer)


def setting_text(value: object) -> str:
    """A setting as a person would type it: TOML's true/false, ids joined by commas."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)


def settings_table(settings: Sequence[Setting]) -> RenderableType:
    """Every setting of the run, its value and where that value came from; never wrapped,
    so a path or a file name can be copied whole."""
    table = Table()
    for column in ("key", "value", "source"):
        table.add_column(column, no_wrap=True)
    for setting in settings:
        style = "" if setting.source == "default" else "bold"
        cells = (setting.key, setting_text(setting.value), setting.source)
        table.add_row(*(Text(cell) for cell in cells), style=style)
    title = Text("Settings (command line > environment > file > default):", style="bold")
    return Group(title, table)
