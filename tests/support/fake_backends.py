"""`Backends` for command-line tests: the in-memory fake in place of both stages.

`prepare` checks nothing (no API key, no `claude` executable) and says the agent is
version "fake"; `open` makes a `FakeBackend` answering by the test's script. Both record what
they were given, so a test can assert what the command line asked for, and that a bad input
stopped it before any backend was prepared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from activation._models import Inputs, RunSpec, TrialKey
from activation.inputs.load import load_pricing
from activation.report.plan import CHARS
from activation.trials.fake import Answer, FakeBackend, Script

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
    credentials: bool


@dataclass(frozen=True)
class Opened:
    spec: RunSpec
    inputs: Inputs
    backend: FakeBackend


class FakeBackends:
    """Give either a `script` (see activation.trials.fake) or a `by_description` rule."""

    def __init__(
        self, script: Script | None = None, *, by_description: DescriptionRule | None = None
    ) -> None:
        if (script is None) == (by_description is None):
            raise TypeError("give FakeBackends exactly one of a script and a by_description rule")
        self.script = script
        self.rule = by_description
        self.prepared: list[Prepared] = []
        self.opened: list[Opened] = []

    def prepare(self, spec: RunSpec, *, credentials: bool = True) -> RunSpec:
        self.prepared.append(Prepared(spec, credentials))
        if spec.agent is None:
            return spec
        return replace(spec, agent=replace(spec.agent, version=FAKE_VERSION))

    def open(self, spec: RunSpec, inputs: Inputs) -> FakeBackend:
        backend = FakeBackend(self.script_for(inputs))
        self.opened.append(Opened(spec, inputs, backend))
        return backend

    def count_tokens(
        self, spec: RunSpec, requests: Sequence[dict[str, Any]]
    ) -> tuple[list[int] | None, str]:
        """No API to count with: the estimate comes from characters."""
        return None, CHARS

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
