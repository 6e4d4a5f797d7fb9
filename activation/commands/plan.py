"""The dry run's one pass and its drawing: each cell's spec as the stage would run it (an
agent CLI it cannot find is a warning here), its cost and, on request, what its settings
can detect, gathered into the plan record (report/dry_run.py); then that record is printed,
and nothing else is asked of the stage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from activation._behavior import BehaviorRunInputs
    from activation._models import Inputs, RunSpec
    from activation.commands.session import Session
    from activation.report.dry_run import CellPlan, ChangedPlan, RunPlan
    from activation.report.plan import Detectable
    from activation.trials.stage import CostEstimate, Stage

SIMULATED_RUNS = 60
"""Runs per population behind what `--dry-run --simulate` shows: a few seconds on 95 cases,
with intervals that say how sure the figures are (benchmarks run 400)."""
SIMULATION_LIMIT = 1_500
"""First-round calls above which `--simulate` declines (it would take minutes)."""


def detectable(spec: RunSpec, inputs: Inputs) -> Detectable | None:
    """The simulated false-alarm chance and power of these settings on this many cases
    (None: over `SIMULATION_LIMIT` calls in the first round)."""
    from activation.report.plan import Detectable
    from activation.trials.simulate import simulate, typical
    from activation.trials.stage import planned_calls

    if planned_calls(spec, inputs) > SIMULATION_LIMIT:
        return None
    steady = typical(len(inputs.cases))
    return Detectable(
        simulate(steady, spec, SIMULATED_RUNS), simulate(steady.with_drop(), spec, SIMULATED_RUNS)
    )


def plan_cells(
    stage: Stage,
    cells: Sequence[tuple[RunSpec, Inputs]],
    *,
    simulate: bool = False,
    count: bool = False,
) -> tuple[CellPlan, ...]:
    """Every cell's plan; `simulate`: with what its settings can detect, `count`: its
    tokens counted by a free call where the provider offers one (else estimated from the
    requests' characters)."""
    from activation.commands.runner import planned

    plans = []
    for spec, inputs in cells:
        warnings: list[str] = []
        spec = planned(stage, spec, warnings.extend)
        found = detectable(spec, inputs) if simulate else None
        if simulate and found is None:
            warnings.append(f"not simulated: over {SIMULATION_LIMIT:,} calls in the first round")
        cost = stage.estimate(spec, inputs, count=count)
        plans.append(cell_plan(stage, spec, inputs, cost, found, tuple(warnings)))
    return tuple(plans)


def cell_plan(
    stage: Stage,
    spec: RunSpec,
    inputs: Inputs,
    cost: CostEstimate,
    found: Detectable | None,
    warnings: tuple[str, ...],
) -> CellPlan:
    """A cell's plan from its planned spec, its inputs and its estimate: the listings are
    rendered once, and every figure the dry run prints follows from them."""
    from activation._models import VARIANTS
    from activation.report.dry_run import CellPlan
    from activation.report.model import cell_visibility, listed_distractors
    from activation.report.visibility import cell_lines
    from activation.trials.behavior.stage import judge_calls
    from activation.trials.stage import planned_calls, worst_case_calls

    listings = stage.listings(spec, inputs)
    visible = cell_visibility(spec, inputs, listings)
    seen = dict(zip(VARIANTS, (visible.baseline, visible.candidate), strict=True))
    llm_calls = len(inputs.cases) * spec.trials if "llm" in spec.controls else 0
    judge = spec.behavior.judge_model if spec.behavior else None
    return CellPlan(
        spec=spec,
        inputs=inputs,
        warnings=warnings,
        notice=stage.notice(spec),
        stage_lines=tuple(stage.plan(spec, inputs)),
        noun=stage.noun,
        calls=planned_calls(spec, inputs) - llm_calls,
        worst_calls=worst_case_calls(spec, inputs) - llm_calls,
        llm_calls=llm_calls,
        llm_model=(spec.model or judge) if llm_calls else None,
        judge=judge_calls(spec, cast("BehaviorRunInputs", inputs)) if spec.stage == "C" else None,
        cost=cost,
        detectable=found,
        listings=listings,
        distractors=listed_distractors(inputs, listings),
        visibility=tuple(cell_lines(listings, seen, visible.less_visible)),
    )


def draw_run_plan(session: Session, plan: RunPlan) -> None:
    """Each cell's plan (under a rule naming it when there are several), the whole run's
    cost over its cells, and the settings."""
    from rich.text import Text

    from activation.report.dry_run import cell_text
    from activation.report.listing_plan import listing_text
    from activation.report.plan import matrix_cost_line, settings_table

    several = len(plan.cells) > 1
    for cell in plan.cells:
        session.warn(cell.warnings)
        if several:
            session.out.rule(Text(f"cell {cell.spec.cell}"))
        session.out.print(cell_text(cell, plan.verbose))
        if cell.distractors:
            session.out.print(f"note: {cell.distractors}", markup=False, soft_wrap=True)
        session.out.print("\n".join(cell.visibility), markup=False, soft_wrap=True)
        if plan.show_listing:
            listing = listing_text(cell.spec, cell.listings)
            session.out.print(listing, markup=False, soft_wrap=True)
    if several:
        session.out.print(matrix_cost_line([cell.cost for cell in plan.cells]))
    session.show(settings_table(plan.settings, plan.verbose))


def draw_changed_plan(session: Session, plan: ChangedPlan) -> None:
    """What planning the gates found, then the changed skills, the gates and their cost."""
    from activation.report.dry_run import changed_lines

    for gate in plan.gates:
        for cell in gate.cells:
            session.warn(cell.warnings)
    session.out.print("\n".join(changed_lines(plan)), markup=False, soft_wrap=True)
