"""A stage owns itself: everything that differs between Stage A, Stage B and each agent or
model provider lives behind this one interface, so the engine, the report and the commands
never ask which stage they are running.

A stage sets its own defaults on a spec, checks what it needs from the machine before any
call (credentials, an executable), builds its backend, estimates what a run costs and says
where a cost comes from, picks the cases it runs by default and remembers what a run found
for the next one. `stage_named` finds a stage by the name a spec or a saved report carries;
the modules are imported only then, and import nothing heavy themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from activation._models import AnyInputs, RunOutcome, RunSpec, VariantName
from activation.trials.backend import Backend
from activation.trials.cache import Store

if TYPE_CHECKING:
    from activation.trials.listing.model import Listing

Say = Callable[[str], None]
"""Where a stage tells the person running it about a choice it made (stderr)."""


@dataclass(frozen=True)
class CostEstimate:
    """What a run would cost at list price; None figures are unknown (no price)."""

    how: str
    """Where the token figures come from, said to the user."""
    basis: str
    """What the tokens are priced at ("list prices of 2026-11-30")."""
    trial_input: float
    """Mean input tokens of one trial."""
    trial_output: int
    per_trial: float | None
    first_round: float | None
    worst_case: float | None
    """Every case escalated to `--max-trials`."""
    gap: str | None = None
    """What keeps the run's cost from being counted (`Stage.unpriced`), said with it."""

    @property
    def known(self) -> bool:
        return self.per_trial is not None


def planned_calls(spec: RunSpec, inputs: AnyInputs) -> int:
    """Trials of the first round, before any re-ask: both variants and every control."""
    return len(inputs.cases) * (2 + len(spec.controls)) * spec.trials


def worst_case_calls(spec: RunSpec, inputs: AnyInputs) -> int:
    """Every case escalated to `--max-trials` (a control never escalates)."""
    return len(inputs.cases) * (2 * spec.max_trials + len(spec.controls) * spec.trials)


def price_basis(spec: RunSpec) -> str:
    """What a run's tokens are priced at: the table's list prices, or the prices the user
    gave (which override the table for every model)."""
    if spec.pricing is not None and spec.pricing.override is not None:
        return "the prices given (--price-in and --price-out)"
    return f"list prices of {spec.pricing.date if spec.pricing else '?'}"


def priced(
    spec: RunSpec,
    inputs: AnyInputs,
    how: str,
    trial_input: float,
    trial_output: int,
    discount: float,
    cached: float = 0.0,
    prefixes: int = 0,
) -> CostEstimate:
    """A trial's tokens at the spec's prices, for the first round and the worst case.

    `cached` of a trial's input tokens are a prompt-cache prefix, one of `prefixes`: each is
    written once (at the write price) and read by every later trial. `per_trial` is the most
    one trial can cost (one that writes its prefix), what the cost ceiling reserves."""
    prices = spec.prices
    half = ", at the batch discount (half)" if discount < 1 else ""
    cache = f"; the listing cached, {prefixes} prefix(es) written once" if cached else ""
    gap = stage_named(spec.stage).unpriced(spec)
    if prices is None:
        return CostEstimate(how, f"{price_basis(spec)}{half}{cache}", trial_input,
                            trial_output, None, None, None, gap)  # fmt: skip
    plain = (trial_input - cached) * prices.input + trial_output * prices.output
    read = (plain + cached * prices.cache_read) * discount / 1_000_000
    writes = prefixes * cached * (prices.cache_write - prices.cache_read) * discount / 1_000_000
    return CostEstimate(
        how,
        f"{price_basis(spec)}{half}{cache}",
        trial_input,
        trial_output,
        (plain + cached * max(prices.cache_write, prices.input)) * discount / 1_000_000,
        read * planned_calls(spec, inputs) + writes,
        read * worst_case_calls(spec, inputs) + writes,
        gap,
    )


class Stage(Protocol):
    name: str
    """What a spec and a report call it ("A", "B")."""
    noun: str
    """One trial, in words ("model call", "agent run")."""
    flags: tuple[str, ...]
    """The command-line flags that choose this stage (repeated in a suggested command)."""
    confirmed_by: tuple[str, ...] | None
    """The flags of the stage that checks this one's flagged cases (Stage A: `--real`)."""

    def configure(self, spec: RunSpec) -> RunSpec:
        """The spec with this stage's defaults (model, concurrency); InputError for an
        option this stage does not take."""
        ...

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        """Check the machine before any call (with `calls` False: a dry run, which needs no
        credentials); the spec with what was found (an executable's version)."""
        ...

    def open(self, spec: RunSpec, inputs: AnyInputs, store: Store | None = None) -> Backend:
        """The backend of a run; `store` is the response cache, for what a stage keeps
        besides its trials (Stage C's judge answers)."""
        ...

    def estimate(self, spec: RunSpec, inputs: AnyInputs, *, count: bool = False) -> CostEstimate:
        """What a run would cost; `count` allows a free call that counts tokens exactly."""
        ...

    def cost_basis(self, spec: RunSpec) -> str | None:
        """Where a known cost of this stage's run comes from ("list prices of 2026-11-30");
        None when this spec cannot know it (no prices to count with)."""
        ...

    def unpriced(self, spec: RunSpec) -> str | None:
        """What keeps this run's cost from being counted, and what would count it (a price
        to pass, a model to name), or that nothing can (a stream with no tokens); None when
        nothing does. Every cost line and plan says this one answer."""
        ...

    def notice(self, spec: RunSpec) -> str | None:
        """What every output must say about the answers (a mock's mean nothing)."""
        ...

    def plan(self, spec: RunSpec, inputs: AnyInputs) -> list[str]:
        """Lines a dry run shows about what this stage would ask."""
        ...

    def listings(self, spec: RunSpec, inputs: AnyInputs) -> Mapping[VariantName, Listing]:
        """The skill listing each variant's trials show the model, as the agent renders it."""
        ...

    def select(self, inputs: AnyInputs, say: Say) -> AnyInputs:
        """The cases a run takes when none are named (`--only`)."""
        ...

    def remember(self, outcomes: Sequence[RunOutcome]) -> None:
        """Keep what a finished run found in its cells, for a later run (Stage A's flagged
        cases)."""
        ...


STAGE_MODULES: Mapping[str, str] = {
    "A": "activation.trials.classifier.stage",
    "B": "activation.trials.agent.stage",
    "C": "activation.trials.behavior.stage",
}
"""Each module holds `STAGE`; a new stage is a new module and one line here."""


def stage_named(name: str) -> Stage:
    from activation._registry import registered

    stage: Stage = registered(STAGE_MODULES, name, "STAGE", KeyError(f"no stage {name!r}"))
    return stage
