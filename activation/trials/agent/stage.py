"""Stage B, the real agent: the spec's agent CLI (Claude Code, OpenCode or Codex) run
headless on each case prompt with a copy of the skill set per variant, its event stream
read for a successful load of the target. What differs between the agents (their models,
credentials, executable and version, turn limit, listing) comes from the agent's adapter
(`adapter.py`).

Nothing heavy is imported here, and the backend (processes, plugin copies) only when a run
opens it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from activation import _config, state
from activation._errors import InputError
from activation._models import AgentSettings, AnyInputs, Inputs, RunOutcome, RunSpec, VariantName
from activation.trials.agents import agent_named
from activation.trials.backend import Backend
from activation.trials.cache import Store
from activation.trials.executor import RAY_CONCURRENCY, on_cluster
from activation.trials.listing.model import Listing
from activation.trials.stage import CostEstimate, Say, price_basis, priced

ROUGH = "a rough figure per agent run"
DEFAULT_MODEL_REMEDY = "pass --model with a model of the price table, or --price-in and --price-out"
"""How a run prices its agent's default model (`changed` says it otherwise for a behavior
gate, which never gets `--model`)."""


def agent_runs(spec: RunSpec, agent: str, settings: AgentSettings) -> RunSpec:
    """The spec of a stage whose trials are runs of `spec`'s agent (`agent`: how a refusal
    names it): never a batch, the adapter's own checks, these settings, and a fixed number
    of runs at once: agent processes are bounded by this machine, not by the API
    (`--concurrency auto` adapts Stage A's requests only), or on a Ray cluster by its
    nodes' resources (RAY_CONCURRENCY in flight), in the sandbox `--sandbox` settles on
    (InputError for bwrap where it cannot run)."""
    if spec.batch:
        raise InputError(f"--batch is for Stage A: {agent} cannot run in a batch")
    from activation.trials.agent.sandbox import settle

    agent_named(spec.coding_agent).adapter().configure(spec)
    concurrency = spec.concurrency or (
        RAY_CONCURRENCY if on_cluster(settings.executor) else _config.AGENT_CONCURRENCY
    )
    sandbox = settle(settings.sandbox, works=spec.stage == "C", image=settings.image)
    return replace(spec, agent=replace(settings, sandbox=sandbox), concurrency=concurrency,
                   max_concurrency=None)  # fmt: skip


class AgentRunStage:
    """What every stage whose trials are runs of an agent CLI shares: how they are priced,
    the agent's own listing, and no stage that confirms them."""

    noun = "agent run"
    confirmed_by: tuple[str, ...] | None = None

    def cost_basis(self, spec: RunSpec) -> str | None:
        if not agent_named(spec.coding_agent).adapter().reports_cost:  # its tokens at list price
            if spec.pricing is None or spec.prices is None:
                return None
            return price_basis(spec)
        if spec.pricing is None:
            return "the CLI's reported cost"
        return f"the CLI's reported cost, and {price_basis(spec)}"

    def unpriced(self, spec: RunSpec) -> str | None:
        """A stream with no tokens cannot be priced; else a price is missing only when
        neither the table (for `--model`) nor `--price-in`/`--price-out` has one."""
        from activation.trials.providers import parse_model, provider_named

        record = agent_named(spec.coding_agent)
        if not record.adapter().reports_tokens:
            return f"{record.title}'s stream carries no token counts, which no price replaces"
        free = spec.model is not None and provider_named(parse_model(spec.model).provider).free
        if spec.prices is not None or free:
            return None
        gap = f"no price for {spec.model}: pass --price-in and --price-out"
        if spec.model is None:
            gap = f"no price for {record.title}'s default model: {DEFAULT_MODEL_REMEDY}"
        reported = (
            f" ({record.title} reports each run's cost)" if record.adapter().reports_cost else ""
        )
        return gap + reported

    def listings(self, spec: RunSpec, inputs: AnyInputs) -> Mapping[VariantName, Listing]:
        """The agent's own listing of the installed set and catalog (no distractors: they
        are Stage A's stand-ins), for its model (the CLI's default without `--model`)."""
        from activation.trials.listing.menu import variant_listings

        return variant_listings(inputs, spec.model, distractors=False, agent=spec.coding_agent)

    def remember(self, outcomes: Sequence[RunOutcome]) -> None:
        return None


class AgentStage(AgentRunStage):
    name = "B"
    flags: tuple[str, ...] = ("--real",)

    def configure(self, spec: RunSpec) -> RunSpec:
        return agent_runs(spec, "the real agent", spec.agent or AgentSettings())

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        """The agent's credentials and the API's address (a CLI would retry for minutes
        otherwise), and the CLI itself, which says its version (also for a dry run); in
        docker, the CLI the image holds, when it holds the agent's (sandbox_image.py)."""
        from activation.trials.agent.sandbox_image import from_image

        record = agent_named(spec.coding_agent)
        adapter = record.adapter()
        if calls:
            adapter.preflight()
        agent = spec.agent or AgentSettings()
        held = from_image(agent, record)
        if held is not None:
            return replace(spec, agent=held)
        version = adapter.version(agent.executable(record.name, record.command))
        return replace(spec, agent=replace(agent, version=version))

    def open(self, spec: RunSpec, inputs: Inputs, store: Store | None = None) -> Backend:
        from activation.trials.agent.backend import AgentBackend

        return AgentBackend(spec, inputs, state.new_run_dir(inputs.target.repo, self.name))

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        """The CLI does not say its own prompt and tools in advance, and they dominate."""
        trial_input, trial_output = _config.STAGE_B_RUN_ESTIMATE
        return priced(spec, inputs, ROUGH, trial_input, trial_output, 1.0)

    def notice(self, spec: RunSpec) -> str | None:
        return None

    def plan(self, spec: RunSpec, inputs: AnyInputs) -> list[str]:
        from activation.trials.agent import canary

        record = agent_named(spec.coding_agent)
        adapter = record.adapter()
        agent = spec.agent or AgentSettings()
        return [
            f"agent: {record.label(agent.version)} "
            f"({agent.executable(record.name, record.command)}), "
            f"skill {inputs.target.skill_id}, {adapter.limits(agent)} and "
            f"{agent.timeout:g} s a run",
            canary.plan(agent),
        ]

    def select(self, inputs: Inputs, say: Say) -> Inputs:
        """The spot checks plus what the latest Stage A run on these descriptions flagged."""
        flagged = state.last_flagged(inputs.target.repo, state.pair_key(inputs))
        chosen = {case.id for case in inputs.cases if case.spot_check} | set(flagged or ())
        selection = tuple(case for case in inputs.cases if case.id in chosen)
        origin = (
            "spot checks and the cases the latest Stage A run on these descriptions flagged"
            if flagged is not None
            else "spot checks only (no Stage A run on these two descriptions yet)"
        )
        if not selection:
            raise InputError(f"no case selected for --real ({origin}): pass --only ids")
        say(f"--real selection: {len(selection)} case(s), {origin}")
        return replace(inputs, cases=selection)


STAGE = AgentStage()
