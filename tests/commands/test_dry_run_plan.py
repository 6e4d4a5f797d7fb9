"""The dry run's plan is one record, built in one pass and then drawn: each cell asks the
stage once for each figure, planning warnings wait in the record, and the drawing shows
what the record holds (report/dry_run.py, commands/plan.py)."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

import pytest
from rich.console import Console

from activation._errors import InputError
from activation._models import AgentSettings, BehaviorOptions, Inputs, RunSpec, VariantName
from activation.commands.plan import plan_cells
from activation.inputs.change_plan import GateRun, SkillPlan
from activation.inputs.changes import SkillChange, SkillPlace
from activation.inputs.load import load_inputs
from activation.report.dry_run import CellPlan, ChangedPlan, GatePlan, cell_text, changed_lines
from activation.trials.listing.model import Listing
from activation.trials.stage import CostEstimate, stage_named
from tests.support.billing_repo import EDIT, billing_repo
from tests.support.fake_stages import PRICING


class Counting:
    """Stage A, counting what the plan asks of it; `missing`: its preflight cannot find the
    agent CLI, as a machine without one."""

    def __init__(self, missing: str | None = None) -> None:
        self.real = stage_named("A")
        self.noun = self.real.noun
        self.asked: Counter[str] = Counter()
        self.missing = missing

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        self.asked["preflight"] += 1
        if self.missing:
            raise InputError(self.missing)
        return self.real.preflight(spec, calls=calls)

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        self.asked["estimate"] += 1
        return self.real.estimate(spec, inputs, count=count)

    def notice(self, spec: RunSpec) -> str | None:
        self.asked["notice"] += 1
        return self.real.notice(spec)

    def plan(self, spec: RunSpec, inputs: Inputs) -> list[str]:
        self.asked["plan"] += 1
        return self.real.plan(spec, inputs)

    def listings(self, spec: RunSpec, inputs: Inputs) -> Mapping[VariantName, Listing]:
        self.asked["listings"] += 1
        return self.real.listings(spec, inputs)


@pytest.fixture(scope="module")
def billing(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunSpec, Inputs]:
    """The billing example, refunds' cases, the edit that takes disputes' prompts; the mock."""
    repo = billing_repo(tmp_path_factory.mktemp("plan") / "billing")
    spec = stage_named("A").configure(RunSpec(model="mock", pricing=PRICING))
    inputs = load_inputs(repo, repo=repo, cases=repo / "cases.json", candidate=str(repo / EDIT))
    return spec, inputs


@pytest.fixture(scope="module")
def cell(billing: tuple[RunSpec, Inputs]) -> CellPlan:
    """The billing cell's plan, as the dry run makes it."""
    spec, inputs = billing
    (plan,) = plan_cells(stage_named("A"), [(spec, inputs)])
    return plan


def drawn(plan: CellPlan, verbose: bool = False) -> str:
    console = Console(width=1000, record=True, file=io.StringIO())
    console.print(cell_text(plan, verbose))
    return console.export_text()


def test_a_cells_plan_holds_every_figure_the_dry_run_prints(
    billing: tuple[RunSpec, Inputs],
) -> None:
    spec, inputs = billing
    stage = Counting()
    (plan,) = plan_cells(stage, [(spec, inputs)])  # type: ignore[arg-type]
    assert (plan.calls, plan.worst_calls, plan.llm_calls) == (72, 720, 0)
    assert plan.noun == "model call"
    assert plan.warnings == ()
    assert plan.detectable is None
    assert (plan.cost.first_round, plan.cost.worst_case) == (0.0, 0.0)
    assert plan.notice == stage.real.notice(spec)
    assert plan.stage_lines == (
        "listing: billing:refunds, 2 sibling(s), 0 distractor(s), 0 catalog skill(s), 13 of "
        "Claude Code's own (6,704 of 30,000 columns), in 4 orders",
        "an unusable answer is asked again once",
    )
    assert plan.distractors is None
    assert plan.visibility == (
        "visibility (no model call):",
        "  baseline: 6,613 of 30,000 columns: 3 listed whole",
        "  candidate: 6,704 of 30,000 columns: 3 listed whole",
    )
    assert set(plan.listings) == {"baseline", "candidate"}
    assert stage.asked == {"preflight": 1, "estimate": 1, "notice": 1, "plan": 1, "listings": 1}


def test_each_cell_is_planned_once_and_its_warnings_wait_in_the_record(
    billing: tuple[RunSpec, Inputs],
) -> None:
    """A missing agent CLI and a simulation too large are the cell's warnings, said when
    the cell is drawn, not while planning; every cell asks the stage once for each figure."""
    spec, inputs = billing
    stage = Counting(missing="cannot find the agent CLI")
    with_agent = replace(spec, agent=AgentSettings(), trials=100)
    cells = [(with_agent, inputs), (replace(with_agent, seed=2), inputs)]
    plans = plan_cells(stage, cells, simulate=True)  # type: ignore[arg-type]
    assert [plan.warnings for plan in plans] == [
        (
            "cannot find the agent CLI (a dry run plans without it; a run needs it)",
            "not simulated: over 1,500 calls in the first round",
        )
    ] * 2
    assert [plan.calls for plan in plans] == [2_400, 2_400]
    assert stage.asked == {"preflight": 2, "estimate": 2, "notice": 2, "plan": 2, "listings": 2}


def test_a_cell_without_an_agent_to_plan_stops_at_its_input_error(
    billing: tuple[RunSpec, Inputs],
) -> None:
    """Stage A's preflight refusing (no agent CLI involved) is the user's error, not a
    warning: the dry run stops there."""
    spec, inputs = billing
    with pytest.raises(InputError, match=r"^no key$"):
        plan_cells(Counting(missing="no key"), [(spec, inputs)])  # type: ignore[arg-type]


def test_the_drawing_shows_what_the_record_holds(cell: CellPlan) -> None:
    """The renderer reads the record, never the stage: a record's figures are what it
    prints, whatever the stage would say now."""
    told = replace(
        cell,
        notice="as planned",
        stage_lines=("listing: as the record says",),
        calls=5,
        worst_calls=50,
        noun="agent run",
    )
    text = drawn(told, verbose=True)
    assert text.startswith(
        "NOTE: as planned\n"
        "Dry run: Stage A, skill billing:refunds\n"
        "12 case(s): 3 expect billing:refunds, 7 expect another skill, 2 expect none\n"
        "  refunds (3): refund-order, partial-refund, undo-payment\n"
    )
    assert "\nlisting: as the record says\nbaseline git:HEAD (93 chars)\n" in text
    assert text.endswith(
        "\nThe first round would make 5 agent run(s) to mock (12 cases x 2 variants x 3 "
        "trials); suspicious cases then get more, up to 30 trials (50 at most). No call was "
        "made.\n"
    )


def test_the_llm_arm_is_counted_apart_from_the_agent_runs(cell: CellPlan) -> None:
    both = BehaviorOptions(arms=("none", "llm"))
    armed = replace(cell, spec=replace(cell.spec, behavior=both), llm_calls=36, llm_model="mock")
    assert drawn(armed).endswith(
        "\nThe first round would make 72 model call(s) to mock (12 cases x 3 arms x 3 trials) "
        "and 36 model call(s) to mock (the llm arm); suspicious cases then get more, up to 30 "
        "trials (720 at most). No call was made.\n"
    )


def test_a_changed_dry_run_sums_its_gates_and_an_unknown_cost_stays_unknown(
    cell: CellPlan,
) -> None:
    unknown = replace(cell.cost, per_trial=None, first_round=None, worst_case=None, gap="no price")
    refunds = SkillPlace("plugins/billing/skills/refunds/SKILL.md", "plugins/billing/skills",
                         "billing:refunds")  # fmt: skip
    invoices = SkillPlace("plugins/billing/skills/invoices/SKILL.md", "plugins/billing/skills",
                          "billing:invoices")  # fmt: skip
    skills = (
        SkillPlan(SkillChange(refunds, ("description",), (refunds.path,))),
        SkillPlan(SkillChange(invoices, ("body",), (invoices.path,)), untested=("body",)),
    )
    gates = (
        GatePlan(GateRun("activation", refunds, "cases.json", ("billing:refunds",)), (cell,)),
        GatePlan(
            GateRun("activation", invoices, "invoices.cases.json", ("billing:refunds",)),
            (cell, replace(cell, cost=unknown)),
        ),
    )
    plan = ChangedPlan("git:main", "the working tree", skills, gates, allow_untested=False)
    assert changed_lines(plan) == [
        "activation changed: git:main -> the working tree",
        "billing:refunds (plugins/billing/skills/refunds/SKILL.md): modified, description",
        "billing:invoices (plugins/billing/skills/invoices/SKILL.md): modified, body or references",
        "  not tested: body",
        "would run: activation gate of billing:refunds on cases.json (because of billing:refunds)",
        "would run: activation gate of billing:invoices on invoices.cases.json (because of "
        "billing:refunds)",
        "the run would fail: billing:invoices not tested (pass --allow-untested to accept it)",
        "cost of the activation gate of billing:refunds: first round $0.0000, worst case $0.0000",
        "cost of the activation gate of billing:invoices: unknown (no price)",
        "cost of every gate: unknown (no price)",
    ]
    allowed = replace(plan, gates=(), allow_untested=True)
    assert changed_lines(allowed)[-1] == "would run: nothing"
    assert "the run would fail" not in "\n".join(changed_lines(allowed))
