"""What a run would do, and what makes its answer weaker: said before it costs anything.

The dry run fits a screen: counts per group, the descriptions and their word diff, the
calls and their cost, and the settings that differ from their defaults; `--verbose` adds
every case id per group and every setting, `--simulate` what the settings can detect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._config import LARGE_PLAN, LONG_PROMPT
from activation._models import VARIANTS, Case, Inputs, RunSpec, Setting
from activation.inputs.cases import unexplained_line
from activation.inputs.suite import suite_mismatch
from activation.inputs.variants import description_warnings
from activation.report import cost_words, phrases
from activation.trials.listing.menu import listing_warnings
from activation.trials.simulate import Characteristics
from activation.trials.stage import CostEstimate, planned_calls, stage_named
from activation.verdicts.judge import can_regress


def run_warnings(spec: RunSpec, inputs: Inputs, bundled_cases: bool) -> list[str]:
    """What makes a run's answer weaker, or its bill larger, than the user may think."""
    warnings = [w for name in VARIANTS for w in description_warnings(inputs.variant(name))]
    mismatch = suite_mismatch(inputs.written_for, inputs.target.skill_id, bundled_cases)
    if mismatch:
        warnings.append(mismatch)
    listings = stage_named(spec.stage).listings(spec, inputs)
    warnings += listing_warnings(listings, inputs.target.skill_id)
    if not can_regress(spec.trials, spec.alpha):
        warnings.append(
            f"with {spec.trials} trial(s) per variant no case can reach p < "
            f"{spec.alpha}, so nothing can be REGRESSED and the gate cannot fail on a "
            "regression: use --trials 3 or more"
        )
    unexplained = unexplained_line(sum(not case.why for case in inputs.cases))
    if unexplained:
        warnings.append(unexplained)
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
    """Case ids per group (the first tag), in file order."""
    grouped: dict[str, list[str]] = {}
    for case in cases:
        grouped.setdefault(case.group, []).append(case.id)
    return grouped


def diff_text(runs: Sequence[tuple[str, str]]) -> Text:
    text = Text()
    styles = {"=": "", "-": "red strike", "+": "green underline"}
    marks = {"=": "{}", "-": "[-{}-]", "+": "{{+{}+}}"}
    for position, (op, run) in enumerate(runs):
        if position:
            text.append(" ")
        text.append(marks[op].format(run), style=styles[op])
    return text


@dataclass(frozen=True)
class Detectable:
    """What the settings can detect on a suite of this size, simulated."""

    steady: Characteristics
    dropped: Characteristics


def characteristics_text(spec: RunSpec, inputs: Inputs, found: Detectable) -> Text:
    text = Text()
    text.append(
        f"What these settings can detect on {len(inputs.cases)} cases "
        f"(simulated, {found.steady.runs} runs each; half the cases right 97% of the time, "
        "a quarter 80%, a quarter 60%):\n",
        style="bold",
    )
    steady, dropped = found.steady, found.dropped
    alarms = phrases.percent(steady.false_alarms, steady.false_alarms_interval)
    text.append(f"  a false alarm when nothing changed: {alarms}\n")
    caught = phrases.percent(dropped.caught, dropped.caught_interval)
    text.append(f"  one case falling from 0.9 to 0.3 caught: {caught}\n")
    text.append(f"  calls: about {round(steady.mean_calls):,} in all when nothing changed\n")
    return text


def cost_text(spec: RunSpec, estimate: CostEstimate) -> Text:
    text = Text()
    if not estimate.known:
        text.append(f"cost: unknown, {estimate.gap or 'no price'}\n", style="bold")
        return text
    text.append(
        f"cost at {estimate.basis}: first round {cost_words.money(estimate.first_round)}, "
        f"worst case {cost_words.money(estimate.worst_case)} (every case escalated to "
        f"{spec.max_trials} trials)\n",
        style="bold",
    )
    text.append(
        f"  per trial about {estimate.trial_input:,.0f} input tokens ({estimate.how}) and "
        f"{estimate.trial_output:,} output tokens (assumed)\n"
    )
    if estimate.gap:
        text.append(f"  the run's own cost will stay unknown: {estimate.gap}\n")
    if spec.max_cost_usd is not None:
        text.append(f"  ceiling: {cost_words.money(spec.max_cost_usd)} (--max-cost-usd)\n")
    return text


def matrix_cost_line(estimates: Sequence[CostEstimate]) -> Text:
    """The whole run's cost over its cells: known only when every cell's is."""
    text = Text(f"{len(estimates)} cells: ", style="bold")
    firsts = [estimate.first_round for estimate in estimates]
    worsts = [estimate.worst_case for estimate in estimates]
    if any(value is None for value in (*firsts, *worsts)):
        text.append(f"cost unknown ({cost_words.estimate_gaps(estimates)})\n")
        return text
    first = sum(value for value in firsts if value is not None)
    worst = sum(value for value in worsts if value is not None)
    text.append(
        f"first round {cost_words.money(first)}, worst case {cost_words.money(worst)} in all\n"
    )
    return text


def case_counts(cases: Sequence[Case], target: str) -> str:
    """What the cases expect, in words: a suite that routes (`expect`) counts the cases of
    the target, of another skill and of none, for "should not activate" would lump most of
    a routing suite's cases under the wrong name."""
    positives = sum(case.should_activate for case in cases)
    if all(case.expect is None for case in cases):
        return f"{positives} should activate, {len(cases) - positives} should not"
    anys = sum(case.any_skill for case in cases)
    others = sum(bool(case.expect) and not case.should_activate for case in cases) - anys
    nothing = sum(case.expect == () for case in cases)
    rest = len(cases) - positives - others - nothing - anys
    parts = [
        (others, "another skill"),
        (nothing, "none"),
        (rest, f"anything but {target}"),
        (anys, "any skill but their must_not"),
    ]
    return ", ".join(
        [f"{positives} expect {target}", *(f"{n} expect {what}" for n, what in parts if n)]
    )


def setting_text(value: object) -> str:
    """A setting as a person would type it: TOML's true/false, ids joined by commas."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)


def settings_table(settings: Sequence[Setting], verbose: bool = False) -> RenderableType:
    """The settings that differ from their defaults (every one with `verbose`), each with
    its value and where it came from; never wrapped, so a path can be copied whole."""
    shown = [s for s in settings if verbose or s.source != "default"]
    title = Text("Settings (command line > environment > file > default):", style="bold")
    if not shown:
        return Group(title, Text("  every setting at its default (--verbose lists them)"))
    table = Table()
    for column in ("key", "value", "source"):
        table.add_column(column, no_wrap=True)
    for setting in shown:
        style = "" if setting.source == "default" else "bold"
        cells = (setting.key, setting_text(setting.value), setting.source)
        table.add_row(*(Text(cell) for cell in cells), style=style)
    hidden = len(settings) - len(shown)
    note = Text(f"  {hidden} more at their defaults (--verbose lists them)") if hidden else Text()
    return Group(title, table, note)
