"""`--dry-run`: what a run would do, shown before it costs anything."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text

from activation.cases import Case
from activation.report import RunInfo


@dataclass(frozen=True)
class Plan:
    info: RunInfo
    cases: tuple[Case, ...]
    distractors: tuple[str, ...]

    @property
    def calls(self) -> int:
        """Model calls (Stage A) or agent runs (Stage B), before any re-ask."""
        return len(self.cases) * 2 * self.info.trials


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


def render_plan(plan: Plan) -> RenderableType:
    info = plan.info
    positives = sum(case.should_activate for case in plan.cases)
    text = Text()
    text.append(f"Dry run: Stage {info.stage}, skill {info.skill_id}\n", style="bold")
    text.append(
        f"{len(plan.cases)} case(s): {positives} should activate, "
        f"{len(plan.cases) - positives} should not\n"
    )
    for tag, ids in groups(plan.cases).items():
        text.append(f"  {tag} ({len(ids)}): {', '.join(ids)}\n")
    if info.stage == "A":
        text.append(
            f"menu: {info.skill_id} and {len(plan.distractors)} distractor(s): "
            f"{', '.join(plan.distractors)}\n"
        )
    for name, variant in (("baseline", info.baseline), ("candidate", info.candidate)):
        text.append(f"{name} {variant.spec} ({len(variant.description)} chars)\n", style="bold")
        text.append(f"  {variant.description}\n")
    runs = word_diff(info.baseline.description, info.candidate.description)
    changed = any(op != "=" for op, _ in runs)
    text.append("word diff (baseline → candidate):\n", style="bold")
    diff = diff_text(runs) if changed else Text("(identical)")
    what = "model call(s)" if info.stage == "A" else "agent run(s)"
    model = f" to {info.model}" if info.model else ""
    reask = ", plus at most one re-ask per unusable answer" if info.stage == "A" else ""
    footer = Text(
        f"\nThe run would make {plan.calls} {what}{model} "
        f"({len(plan.cases)} cases x 2 variants x {info.trials} trials){reask}. "
        "No call was made."
    )
    return Group(text, Text("  ").append_text(diff), footer)
