"""Stages for command-line tests: each real stage, with the in-memory fake as its backend.

A fake stage is the real one (its defaults, estimates, words, case selection and memory)
except where the machine comes in: `preflight` checks nothing (no API key, no `claude`
executable) and says the agent is version "fake"; `open` makes a `FakeBackend` answering by
the test's script, whose answers are cached like a real backend's (keyed by the description
and the prompt it was asked with). Both record what they were given, so a test can assert
what the command line asked for, and that a bad input stopped it before any stage was
prepared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from activation._models import AgentSettings, Inputs, RunOutcome, RunSpec, TrialKey, VariantName
from activation.inputs.load import load_pricing
from activation.trials.cache import Store
from activation.trials.fake import Answer, FakeBackend, Script
from activation.trials.listing.model import Listing
from activation.trials.stage import CostEstimate, Say, Stage, stage_named

PRICING = load_pricing()
"""The bundled price table, as every run's spec carries it."""
FAKE_VERSION = "fake"
"""The Claude Code version a prepared Stage B spec carries."""

DescriptionRule = Callable[[str, TrialKey], Answer]
"""(the target's description in the trial's variant, the trial) -> answer: the fake model
reads the description, as the real one does."""


@dataclass(frozen=True)
class Prepared:
    spec: RunSpec
    calls: bool


@dataclass(frozen=True)
class Opened:
    spec: RunSpec
    inputs: Inputs
    backend: FakeBackend


class RealStage:
    """A real stage's own parts (defaults, estimates, words, selection, memory), for a fake
    that replaces only where the machine comes in (`preflight`, `open`)."""

    def __init__(self, real: Stage) -> None:
        self.real = real
        self.name = real.name
        self.noun = real.noun
        self.flags = real.flags
        self.confirmed_by = real.confirmed_by

    def configure(self, spec: RunSpec) -> RunSpec:
        return self.real.configure(spec)

    def estimate(self, spec: RunSpec, inputs: Inputs, *, count: bool = False) -> CostEstimate:
        """Never counted by an API: the estimate comes from characters."""
        return self.real.estimate(spec, inputs)

    def cost_basis(self, spec: RunSpec) -> str | None:
        return self.real.cost_basis(spec)

    def unpriced(self, spec: RunSpec) -> str | None:
        return self.real.unpriced(spec)

    def notice(self, spec: RunSpec) -> str | None:
        return self.real.notice(spec)

    def plan(self, spec: RunSpec, inputs: Inputs) -> list[str]:
        return self.real.plan(spec, inputs)

    def listings(self, spec: RunSpec, inputs: Inputs) -> Mapping[VariantName, Listing]:
        return self.real.listings(spec, inputs)

    def select(self, inputs: Inputs, say: Say) -> Inputs:
        return self.real.select(inputs, say)

    def remember(self, outcomes: Sequence[RunOutcome]) -> None:
        self.real.remember(outcomes)


class FakeStage(RealStage):
    def __init__(self, real: Stage, owner: FakeStages) -> None:
        super().__init__(real)
        self.owner = owner

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        self.owner.prepared.append(Prepared(spec, calls))
        if spec.agent is None:
            return spec
        return replace(spec, agent=replace(spec.agent or AgentSettings(), version=FAKE_VERSION))

    def open(self, spec: RunSpec, inputs: Inputs, store: Store | None = None) -> FakeBackend:
        def asked(key: TrialKey) -> Mapping[str, object]:
            return {
                "description": inputs.variant(key.variant).description,
                "prompt": key.case.prompt,
            }

        backend = FakeBackend(
            self.owner.script_for(inputs), request=asked, target=inputs.target.skill_id
        )
        self.owner.opened.append(Opened(spec, inputs, backend))
        return backend


class FakeStages(Mapping[str, Stage]):
    """Both stages on the fake; give either a `script` (see activation.trials.fake) or a
    `by_description` rule."""

    def __init__(
        self, script: Script | None = None, *, by_description: DescriptionRule | None = None
    ) -> None:
        if (script is None) == (by_description is None):
            raise TypeError("give FakeStages exactly one of a script and a by_description rule")
        self.script = script
        self.rule = by_description
        self.prepared: list[Prepared] = []
        self.opened: list[Opened] = []
        self._stages: dict[str, Stage] = {
            name: FakeStage(stage_named(name), self) for name in ("A", "B")
        }

    def __getitem__(self, name: str) -> Stage:
        return self._stages[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._stages)

    def __len__(self) -> int:
        return len(self._stages)

    def script_for(self, inputs: Inputs) -> Script:
        if self.script is not None:
            return self.script
        rule = self.rule
        assert rule is not None

        def answer(key: TrialKey) -> Answer:
            return rule(inputs.variant(key.variant).description, key)

        return answer

    @property
    def calls(self) -> int:
        """Trials run, over every backend opened."""
        return sum(opened.backend.calls for opened in self.opened)
