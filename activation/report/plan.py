"""What a run would do, and what makes its answer weaker: said before it costs anything."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from activation._config import LARGE_PLAN, LONG_PROMPT
from activation._models import VARIANTS, Case, Inputs, RunSpec
from activation.inputs.suite import suite_mismatch
from activation.inputs.variants import description_warnings
from activation.verdicts.judge import can_regress


def planned_calls(spec: RunSpec, inputs: Inputs) -> int:
    """Model calls (Stage A) or agent runs (Stage B), before any re-ask."""
    return len(inputs.cases) * 2 * spec.trials


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
            f"the run plans {calls:,} model calls (over {LARGE_PLAN:,}): "
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


def render_plan(spec: RunSpec, inputs: Inputs) -> RenderableType:
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
        f"\nThe run would make {planned_calls(spec, inputs)} {what}{model} "
        f"({len(cases)} cases x 2 variants x {spec.trials} trials){reask}. No call was made."
    )
    return Group(text, Text("  ").append_text(diff), footer)
