"""Stage C, behavior: the Stage B agent does each case's task in a throwaway workspace, and
graders check what it left there (trials/behavior/backend.py).

Each trial is a whole agent run, so Stage C has its own smaller trial defaults (measured by
benchmarks/behavior_gate.py), more turns and time per run, and runs its controls (the `none`
arm, no skill of the set installed) beside baseline and candidate. Everything the agent's
own (its CLI, models, credentials, listing) comes from Stage B's adapter for that agent.
Nothing heavy is imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from activation import _config, state
from activation._behavior import BehaviorCase, BehaviorRunInputs
from activation._errors import InputError
from activation._models import AgentSettings, BehaviorOptions, RunSpec, Usage
from activation.graders.command_ran import CommandRan
from activation.graders.judge import Judge
from activation.trials.agent.stage import STAGE as AGENT_STAGE
from activation.trials.agent.stage import AgentRunStage, agent_runs
from activation.trials.agents import agent_named
from activation.trials.api_check import DRY_RUN, MissingKey
from activation.trials.backend import Backend
from activation.trials.cache import Store
from activation.trials.providers import provider_of
from activation.trials.stage import CostEstimate, Say, priced

ROUGH = "a rough figure per agent run at work, and per judge question"


def asked_models(spec: RunSpec) -> list[str]:
    """The models the run may ask itself: the judge's, and the `llm` arm's when it runs."""
    return sorted({judge_of(spec), *llm_model(spec)})


def options_of(spec: RunSpec) -> BehaviorOptions:
    """Stage C's options (their defaults on a spec that has none)."""
    return spec.behavior or BehaviorOptions()


def judge_of(spec: RunSpec) -> str:
    return options_of(spec).judge_model or _config.BEHAVIOR_JUDGE_MODEL


def llm_model(spec: RunSpec) -> tuple[str, ...]:
    """The `llm` arm's model when the arm runs (it asks it in every trial)."""
    return (spec.model or judge_of(spec),) if "llm" in spec.controls else ()


def judged(inputs: BehaviorRunInputs) -> bool:
    """Whether a grader of the suite (one inside an `all` too) asks the judge."""
    return any(isinstance(g, Judge) for case in inputs.cases for g in case.all_graders())


@dataclass(frozen=True)
class JudgeCalls:
    """What a run would ask its judge: every judge question of a graded trial, each asked
    `samples` times (`--judge-samples`), in the first round and with every case escalated."""

    model: str
    questions: int
    """Judge questions of the first round (one per judge grader and trial)."""
    samples: int
    calls: int
    worst: int
    cost: float | None
    """The first round's calls at the judge's list price, a rough figure per question
    (None: no price for its model)."""


def judge_calls(spec: RunSpec, inputs: BehaviorRunInputs) -> JudgeCalls | None:
    """The judge calls of a run (None: no grader of the suite asks the judge). Every arm's
    trial is graded, the `llm` arm's too; only baseline and candidate escalate."""
    # The suite's judge graders: each asks one question per trial of its case.
    judges = sum(isinstance(g, Judge) for case in inputs.cases for g in case.all_graders())
    if not judges:
        return None
    samples = options_of(spec).judge_samples
    questions = judges * spec.trials * (2 + len(spec.controls))
    worst = judges * (2 * spec.max_trials + len(spec.controls) * spec.trials) * samples
    prices = spec.pricing.for_model(judge_of(spec)) if spec.pricing else None
    tokens, output = _config.BEHAVIOR_JUDGE_ESTIMATE
    asked = Usage(input_tokens=tokens, output_tokens=output)
    cost = None if prices is None else prices.cost(asked) * questions * samples
    return JudgeCalls(judge_of(spec), questions, samples, questions * samples, worst, cost)


def check_judge(spec: RunSpec, inputs: BehaviorRunInputs) -> None:
    """The judge's key and address when a grader of the suite asks it (a suite of files
    and commands needs none); a missing key is said as the judge's, with the mock judge as
    the keyless way."""
    if not judged(inputs) or judge_of(spec) in llm_model(spec):
        return
    try:
        provider_of(judge_of(spec))[1].preflight(calls=True)
    except MissingKey as missing:
        whom = f" for the judge {judge_of(spec)}, which the suite's judge graders ask"
        raise missing.needed_by(
            whom, "or pass --judge-model mock to judge offline; " + DRY_RUN
        ) from None


def check_shell(spec: RunSpec, cases: Sequence[BehaviorCase]) -> None:
    """A `command_ran` or `command_not_ran` grader reads the commands the agent ran, and an
    agent at work on the host is offered no shell (`Run.shell`; Codex's runs in its own
    sandbox): such a case there would fail, or pass, for nothing. One line, before any run."""
    from activation.trials.agent.sandbox import HOST

    settings = spec.agent or AgentSettings()
    record = agent_named(spec.coding_agent)
    if settings.sandbox != HOST or record.adapter().own_shell:
        return
    for case in cases:
        shell = next((g for g in case.all_graders() if isinstance(g, CommandRan)), None)
        if shell is not None:
            raise InputError(
                f"case {case.id}: its {shell.type} grader reads the agent's shell commands, and "
                f"{record.title} at work on the host has no shell: pass --sandbox bwrap or "
                "--sandbox docker"
            )


def check_turns(spec: RunSpec, cases: Sequence[BehaviorCase]) -> None:
    """A case with `turns` needs an agent that continues its session headless (its
    adapter's `resume`): on one that cannot, one line, before any run."""
    from activation.trials.agent.kit import cannot_resume

    adapter = agent_named(spec.coding_agent).adapter()
    turned = next((case for case in cases if case.turns), None)
    if turned is not None and not adapter.resumes:
        raise InputError(f"case {turned.id}: {cannot_resume(adapter.agent.title)}")


class BehaviorStage(AgentRunStage):
    name = "C"
    flags: tuple[str, ...] = ("behavior",)

    def configure(self, spec: RunSpec) -> RunSpec:
        settings = spec.agent or AgentSettings(_config.BEHAVIOR_MAX_TURNS, _config.BEHAVIOR_TIMEOUT)
        configured = agent_runs(spec, "an agent at work", settings)
        judge = judge_of(spec)
        provider_of(judge)
        return replace(configured, behavior=replace(options_of(spec), judge_model=judge))

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        """The agent's as Stage B checks it, and the provider of the `llm` arm's model (its
        key); the judge's is checked when the run opens, where the suite says whether any
        grader asks it."""
        try:
            checked = AGENT_STAGE.preflight(spec, calls=calls)
        except MissingKey as missing:
            agent = agent_named(spec.coding_agent).title
            whom = f" for {agent}, the agent that does the suite's tasks"
            raise missing.needed_by(whom) from None
        for model in llm_model(spec):
            provider_of(model)[1].preflight(calls=calls)
        return checked

    def open(self, spec: RunSpec, inputs: BehaviorRunInputs, store: Store | None = None) -> Backend:
        """The backend, once the judge's key is checked (before any agent runs), if a
        grader of the suite asks the judge: a suite of files and commands needs no key."""
        from activation.trials.behavior.backend import BehaviorBackend

        check_judge(spec, inputs)

        keep = spec.kept_workspaces
        return BehaviorBackend(
            spec,
            inputs,
            state.new_run_dir(inputs.target.repo, self.name),
            judge_model=judge_of(spec),
            store=store,
            keep_dir=None if keep is None else Path(keep).resolve(),
        )

    def estimate(
        self, spec: RunSpec, inputs: BehaviorRunInputs, *, count: bool = False
    ) -> CostEstimate:
        """The CLI does not say its own prompt and tools in advance; a task takes more turns
        than Stage B's look around. Each arm's trial costs about the same."""
        trial_input, trial_output = _config.BEHAVIOR_RUN_ESTIMATE
        return priced(spec, inputs, ROUGH, trial_input, trial_output, 1.0)

    def notice(self, spec: RunSpec) -> str | None:
        """The mock's notice when it answers the judge or the `llm` arm."""
        notices = [provider_of(model)[1].notice() for model in asked_models(spec)]
        return "; ".join(dict.fromkeys(notice for notice in notices if notice)) or None

    def plan(self, spec: RunSpec, inputs: BehaviorRunInputs) -> list[str]:
        arms = ", ".join(("baseline", "candidate", *spec.controls))
        invoke = "; the prompt invokes the skill (--invoke)" if options_of(spec).invoke else ""
        llm = f"; llm arm: {spec.model or judge_of(spec)}" if "llm" in spec.controls else ""
        judge = judge_of(spec) if judged(inputs) else "none (no grader asks one)"
        per_trial = self.estimate(spec, inputs).per_trial
        runs = len(inputs.cases) * spec.trials
        cost = "" if per_trial is None else f", up to ${runs * per_trial:,.2f}"
        first = [
            f"  {arm}: {runs} model call(s), no agent"
            if arm == "llm"
            else f"  {arm}: {runs} agent run(s){cost}"
            for arm in ("baseline", "candidate", *spec.controls)
        ]
        agent_arms = 2 + len(spec.controls) - ("llm" in spec.controls)
        agents = len(inputs.cases) * spec.trials * agent_arms
        minutes = agents * _config.BEHAVIOR_RUN_SECONDS / (spec.concurrency or 1) / 60
        return [
            *AGENT_STAGE.plan(spec, inputs),
            f"arms: {arms}{invoke}; judge: {judge}{llm}",
            f"first round per arm ({len(inputs.cases)} case(s) x {spec.trials} trial(s)):",
            *first,
            f"time: about {minutes:.0f} min for the first round, {spec.concurrency} agent "
            f"run(s) at once at about {_config.BEHAVIOR_RUN_SECONDS / 60:.0f} min a run",
        ]

    def select(self, inputs: BehaviorRunInputs, say: Say) -> BehaviorRunInputs:
        """Every graded case: a behavior suite is small, and each case guards the body."""
        return inputs


STAGE = BehaviorStage()
