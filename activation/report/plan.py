"""What a run would do, and what makes its answer weaker: said before it costs anything."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from activation._config import LARGE_PLAN, LONG_PROMPT
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
    text = f"{value.hits / value.total:.0%}"
    if value.interval:
        low, high = value.interval
        text += f" ({low:.0%}-{high:.0%})"
    return text


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
    return Group(text, Text("  ").append_text(diff), Text(), detects, footer)


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
