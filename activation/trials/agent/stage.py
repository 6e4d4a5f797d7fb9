"""Stage B, the real agent: the Claude Code CLI run headless on each case prompt, with a
plugin copy per variant, its event stream read for a successful Skill call.

Nothing heavy is imported here, and the backend (processes, plugin copies) only when a run
opens it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from activation import _config, state
from activation._errors import InputError
from activation._models import AgentSettings, Inputs, RunOutcome, RunSpec, VariantName
from activation.trials import api_check
from activation.trials.backend import Backend
from activation.trials.listing.claude_code import Listing
from activation.trials.stage import CostEstimate, Say, priced

ROUGH = "a rough figure per agent run"
CLOUD_SWITCHES = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
"""The CLI can reach a model through a cloud provider's credentials instead of a key."""


class AgentStage:
    name = "B"
    noun = "agent run"
    flags: tuple[str, ...] = ("--real",)
    confirmed_by: tuple[str, ...] | None = None

    def configure(self, spec: RunSpec) -> RunSpec:
        if spec.batch:
            raise InputError("--batch is for Stage A: the real agent cannot run in a batch")
        if (spec.model or "").startswith(_config.OPENAI_PREFIX):
            raise InputError(
                f"--model {spec.model}: Stage B (--real) runs Claude Code on Anthropic's models; "
                "an openai: model is measured in Stage A"
            )
        # Agent processes are bounded by this machine, not by the API: always a fixed number
        # (`--concurrency auto` adapts Stage A's requests only).
        concurrency = spec.concurrency or _config.AGENT_CONCURRENCY
        return replace(
            spec, agent=spec.agent or AgentSettings(), concurrency=concurrency, max_concurrency=None
        )

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        """Credentials and the API's address (the CLI would retry for minutes otherwise),
        and the CLI itself, which says its version (also for a dry run)."""
        from activation.trials.agent.backend import check_claude

        if calls:
            api_check.require_credentials(instead=CLOUD_SWITCHES)
            api_check.check_reachable()
        agent = spec.agent or AgentSettings()
        return replace(spec, agent=replace(agent, version=check_claude(agent.claude)))

    def open(self, spec: RunSpec, inputs: Inputs) -> Backend:
        from activation.trials.agent.backend import AgentBackend

        return AgentBackend(spec, inputs, state.new_run_dir(inputs.target.repo, self.name))

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        """The CLI does not say its own prompt and tools in advance, and they dominate."""
        trial_input, trial_output = _config.STAGE_B_RUN_ESTIMATE
        return priced(spec, inputs, ROUGH, trial_input, trial_output, 1.0)

    def cost_basis(self, spec: RunSpec) -> str | None:
        if spec.pricing is None:
            return "the CLI's reported cost"
        return f"the CLI's reported cost, and list prices of {spec.pricing.date}"

    def notice(self, spec: RunSpec) -> str | None:
        return None

    def plan(self, spec: RunSpec, inputs: Inputs) -> list[str]:
        agent = spec.agent or AgentSettings()
        version = f" {agent.version}" if agent.version else ""
        return [
            f"agent: Claude Code{version} ({agent.claude}), skill {inputs.target.skill_id}, "
            f"up to {agent.max_turns} turns and {agent.timeout:g} s a run"
        ]

    def listings(self, spec: RunSpec, inputs: Inputs) -> Mapping[VariantName, Listing]:
        """The CLI's own listing of the installed set and catalog (no distractors: they are
        Stage A's stand-ins), for its model (the CLI's default without `--model`)."""
        from activation.trials.listing.menu import variant_listings

        return variant_listings(inputs, spec.model, distractors=False)

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

    def remember(self, outcome: RunOutcome) -> None:
        return None


STAGE = AgentStage()
