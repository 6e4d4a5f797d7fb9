"""A dry run's plan as one record: what each cell would run and cost, every figure the stage
gives gathered in one pass (commands/plan.py), then drawn from the record alone (`cell_text`,
`changed_lines`): a drawing that asks the stage nothing cannot plan one thing and print
another. The main run, `behavior`, `calibrate --behavior` and each gate of `changed` plan
their cells with the same record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text

from activation._models import VARIANTS, AnyInputs, RunSpec, Setting, VariantName
from activation.inputs.change_plan import GateRun, SkillPlan
from activation.report import behavior_words, phrases
from activation.report.changed import (
    KIND_TITLES,
    breaks_text,
    hidden_text,
    skill_findings,
    still_broken,
)
from activation.report.changed import cost_text as gates_cost_text
from activation.report.plan import Detectable, characteristics_text, cost_text, diff_text, groups
from activation.report.views import view_of
from activation.trials.behavior.stage import JudgeCalls
from activation.trials.listing.model import Listing
from activation.trials.listing.visibility import LessVisible
from activation.trials.stage import CostEstimate


@dataclass(frozen=True)
class CellPlan:
    """One cell as it would run: its spec and inputs, and what the stage says of them."""

    spec: RunSpec
    """As planned: the agent CLI's version found, when it was."""
    inputs: AnyInputs
    warnings: tuple[str, ...]
    """What planning found that the run itself would refuse or skip (an agent CLI missing,
    a simulation too large)."""
    notice: str | None
    stage_lines: tuple[str, ...]
    """The stage's own lines on what it would run (listing, agent, arms)."""
    noun: str
    """What a trial is, in words: a model call or an agent run."""
    calls: int
    """The first round's trials (the llm arm's model calls apart)."""
    worst_calls: int
    """Every case escalated to `max_trials` (the llm arm's apart)."""
    llm_calls: int
    """The llm arm's model calls: one per case and trial, no agent (0 without that arm)."""
    llm_model: str | None
    """The model the llm arm asks (None without that arm)."""
    judge: JudgeCalls | None
    """What the run would ask its judge (None: no grader asks one, or not Stage C)."""
    cost: CostEstimate
    detectable: Detectable | None
    """What the settings can detect, simulated (None: not asked, or declined)."""
    listings: Mapping[VariantName, Listing]
    distractors: str | None
    """The note on the distractors the listings show (None: none listed)."""
    visibility: tuple[str, ...]
    """What the cell's agent shows of the set and catalog, as `activation visibility` says."""


@dataclass(frozen=True)
class RunPlan:
    """A dry run of the main run, `behavior` or `calibrate --behavior`: its cells, and the
    settings it would run with."""

    cells: tuple[CellPlan, ...]
    settings: tuple[Setting, ...]
    verbose: bool = False
    """Every case id per group and every setting, the defaults too."""
    show_listing: bool = False
    """Each cell's listing as its agent sends it."""


@dataclass(frozen=True)
class GatePlan:
    """A gate of `changed` as it would run: why, and its cells' plans."""

    run: GateRun
    cells: tuple[CellPlan, ...]


@dataclass(frozen=True)
class ChangedPlan:
    """A dry run of `changed`: each changed skill, each gate that would run, and whether the
    run would fail on an untested skill or one the change hides whatever its gates find."""

    base: str
    head: str
    skills: tuple[SkillPlan, ...]
    gates: tuple[GatePlan, ...]
    allow_untested: bool
    less_visible: tuple[LessVisible, ...] = ()


def cell_text(plan: CellPlan, verbose: bool = False) -> RenderableType:
    """A cell's plan on the terminal: the cases by group, the stage's lines, the two
    descriptions and their word diff, what the settings can detect, the cost and the calls."""
    spec, inputs = plan.spec, plan.inputs
    text = Text()
    if plan.notice:
        text.append(f"NOTE: {plan.notice}\n", style="bold yellow")
    heading = f"Dry run: {phrases.stage_text(spec)}, skill {inputs.target.skill_id}\n"
    text.append(heading, style="bold")
    text.append(f"{view_of(spec).plan_cases(inputs)}\n")
    for group, ids in groups(inputs.cases).items():
        listed = f": {', '.join(ids)}" if verbose else ""
        text.append(f"  {group} ({len(ids)}){listed}\n")
    for line in plan.stage_lines:
        text.append(f"{line}\n")
    for name in VARIANTS:
        variant = inputs.variant(name)
        text.append(f"{name} {variant.spec} ({len(variant.description)} chars)\n", style="bold")
        text.append(f"  {variant.description}\n")
    runs = phrases.word_diff(inputs.baseline.description, inputs.candidate.description)
    changed = any(op != "=" for op, _ in runs)
    text.append("word diff (baseline → candidate):\n", style="bold")
    diff = diff_text(runs) if changed else Text("(identical)")
    if inputs.baseline.tree or inputs.candidate.tree:
        files = behavior_words.tree_changes(inputs.baseline.tree, inputs.candidate.tree)
        diff.append("\nfiles of the set (baseline → candidate):\n", style="bold")
        diff.append("\n".join(f"  {line}" for line in files) if files else "  (identical)")
    detects = (
        characteristics_text(spec, inputs, plan.detectable)
        if plan.detectable is not None
        else Text(f"What these settings can detect {view_of(spec).detectable_hint()}\n")
    )
    parts = [text, Text("  ").append_text(diff), Text(), detects, cost_text(spec, plan.cost)]
    return Group(*parts, calls_text(plan))


def calls_text(plan: CellPlan) -> Text:
    """The calls of the first round and at most, and that none was made."""
    spec, cases = plan.spec, len(plan.inputs.cases)
    model = f" to {spec.model}" if spec.model else ""
    arms = 2 + len(spec.controls) - bool(plan.llm_calls)
    sides = f"{arms} arms" if spec.controls else "2 variants"
    extra = [
        *([f"{plan.llm_calls:,} model call(s) to {plan.llm_model} (the llm arm)"]
          if plan.llm_calls else []),
        *([judge_text(plan.judge)] if plan.judge is not None else []),
    ]  # fmt: skip
    also = "".join(f" and {text}" for text in extra)
    return Text(
        f"\nThe first round would make {plan.calls:,} {plan.noun}(s){model} ({cases} cases x "
        f"{sides} x {spec.trials} trials){also}; suspicious cases then get more, up to "
        f"{spec.max_trials} trials ({plan.worst_calls:,} at most{judge_worst(plan.judge)}). "
        "No call was made."
    )


def judge_text(judge: JudgeCalls) -> str:
    """ "54 judge call(s) to claude-haiku-5-5 (18 judge question(s) x 3 sample(s), about
    $0.04)": every sample of `--judge-samples` is a call, priced."""
    cost = "no price for its model" if judge.cost is None else f"about ${judge.cost:,.2f}"
    return (
        f"{judge.calls:,} judge call(s) to {judge.model} ({judge.questions:,} judge "
        f"question(s) x {judge.samples} sample(s), {cost})"
    )


def judge_worst(judge: JudgeCalls | None) -> str:
    return "" if judge is None else f", {judge.worst:,} judge call(s)"


def changed_lines(plan: ChangedPlan) -> list[str]:
    """A dry run of `changed`: each changed skill, each gate that would run and what it
    would cost, and that the run fails whatever its gates find when the change breaks a
    SKILL.md or a changed skill is not tested (the dry run itself plans, and exits 0)."""
    lines = [f"activation changed: {plan.base} -> {plan.head}"]
    for item in plan.skills:
        change = item.change
        moved = f" from {change.renamed_from.id}" if change.renamed_from else ""
        said = [f"{change.status}{moved}", *(KIND_TITLES[kind] for kind in change.kinds)]
        lines.append(f"{change.id} ({change.place.path}): {', '.join(said)}")
        if item.change.broken is not None and item.change.broken_before:
            lines.append(f"  not tested: {still_broken(item.change.broken, plan.base)}")
        elif item.untested:
            lines.append(f"  not tested: {', '.join(item.untested)}")
        if item.note:
            lines.append(f"  {item.note}")
        found = skill_findings(item.breaks, item.known, plan.base, plan.less_visible,
                               item.change.id)  # fmt: skip
        lines += [f"  {line}" for line in found]
    for gate in plan.gates:
        lines.append(
            f"would run: {gate.run.kind} gate of {gate.run.place.id} on {gate.run.suite} "
            f"(because of {', '.join(gate.run.because)})"
        )
    if not plan.gates:
        lines.append("would run: nothing")
    broken = [
        item.change.id
        for item in plan.skills
        if item.change.broken and not item.change.broken_before
    ]
    if broken:
        lines.append(f"the run would fail: the change breaks the SKILL.md of {', '.join(broken)}")
    breaks = [(item.change.id, line) for item in plan.skills for line in item.breaks]
    if breaks:
        lines.append(f"the run would fail: {breaks_text(breaks)}")
    untested = [item.change.id for item in plan.skills if item.untested]
    if untested and not plan.allow_untested:
        lines.append(
            f"the run would fail: {', '.join(untested)} not tested (pass --allow-untested to "
            "accept it)"
        )
    if plan.less_visible:
        lines.append(f"the run would fail: {hidden_text(plan.less_visible)}")
    for gate in plan.gates:
        costs = gates_cost_text([cell.cost for cell in gate.cells])
        lines.append(f"cost of the {gate.run.kind} gate of {gate.run.place.id}: {costs}")
    if len(plan.gates) > 1:
        every = [cell.cost for gate in plan.gates for cell in gate.cells]
        lines.append(f"cost of every gate: {gates_cost_text(every)}")
    return lines
