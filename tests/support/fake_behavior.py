"""Stage C for command-line tests: the real stage with an in-memory backend whose agent
"passes" or "fails" each trial as the test's script says, so the command's whole surface
(flags, dry run, arms, shards, outputs, exit codes) is tested without an agent CLI.

A trial's grades are two graders, `Writes the file` (L1) and the final judge, both passing
when the script says the trial passes and both failing otherwise; the skill loads in every
trial of an arm that has it, unless the script says otherwise. With `costs` (dollars per
trial, by arm) each trial's stream gives its cost, tokens (100,000 a dollar in, a tenth of
that out) and turns (one per 10 cents), as an agent's stream does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Self

from activation._behavior import BehaviorRunInputs
from activation._models import (
    VARIANTS,
    AnyInputs,
    ErrorClass,
    Grade,
    GradeOutcome,
    RunSpec,
    Trajectory,
    Trial,
    TrialKey,
    Usage,
)
from activation.trials.backend import Round, request_digest
from activation.trials.cache import Store
from activation.trials.stage import Stage, stage_named
from tests.support.fake_stages import RealStage

Outcome = tuple[bool | None, bool]
"""(passed, or None for an error; whether the skill loaded)."""
BehaviorScript = Callable[[TrialKey, str | None], Outcome]
"""(the trial, the SKILL.md its arm installs: None for a control) -> its outcome."""
GRADERS = (("Writes the file", "contains", "L1"), ("Does it do the task?", "judge", None))


def passing(rates: Mapping[str, Mapping[str, int]]) -> BehaviorScript:
    """Per case and arm, how many of the first trials pass (the rest fail); the skill loads
    in every trial of an arm that has it."""

    def outcome(key: TrialKey, _skill: str | None) -> Outcome:
        passes = rates.get(key.case.id, {}).get(key.variant, 0)
        return key.index < passes, key.variant in ("baseline", "candidate")

    return outcome


def taught_by(marker: str, control_passes: bool = False) -> BehaviorScript:
    """Every trial passes whose installed SKILL.md holds `marker` (a control's passes when
    `control_passes`)."""

    def outcome(_key: TrialKey, skill: str | None) -> Outcome:
        return (control_passes if skill is None else marker in skill), skill is not None

    return outcome


Costs = Mapping[str, float]
"""Arm -> what each of its trials costs, in dollars."""
MEASURED = frozenset({"input_tokens", "output_tokens", "cost_usd", "turns"})


def spent(cost: float) -> tuple[Usage, Trajectory]:
    """A trial's usage and trajectory at `cost` dollars."""
    tokens = round(cost * 100_000)
    usage = Usage(requests=1, input_tokens=tokens, output_tokens=tokens // 10, cost_usd=cost)
    return usage, Trajectory(turns=max(1, round(cost * 10)), measured=MEASURED)


def graded_trial(key: TrialKey, outcome: Outcome, target: str, costs: Costs | None = None) -> Trial:
    passed, loaded = outcome
    usage, trajectory = (Usage(requests=1, cost_usd=0.01), None)
    if costs is not None and key.variant in costs:
        usage, trajectory = spent(costs[key.variant])
    if passed is None:
        return key.failed("scripted error", usage, kind=ErrorClass.MODEL)
    result: GradeOutcome = "passed" if passed else "failed"
    grades = tuple(Grade(name, kind, level, result, f"scripted: {result}")
                   for name, kind, level in GRADERS)  # fmt: skip
    trial = key.graded(passed, grades, (target,) if loaded else (), target,
                       files=("app.py",), evidence="scripted", usage=usage)  # fmt: skip
    return replace(trial, trajectory=trajectory)


class GradedBackend:
    def __init__(self, script: BehaviorScript, inputs: AnyInputs, costs: Costs | None) -> None:
        self.script = script
        self.costs = costs
        self.inputs = inputs
        self.target = inputs.target.skill_id
        self.calls = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def cache_key(self, key: TrialKey) -> str | None:
        return request_digest("fake-behavior", {"prompt": key.case.prompt,
                                                "skill": self.skill(key)}, key)  # fmt: skip

    def skill(self, key: TrialKey) -> str | None:
        """The SKILL.md the trial's arm installs (None: a control installs none)."""
        return self.inputs.variant(key.variant).text if key.variant in VARIANTS else None

    async def run_round(self, round: Round) -> None:
        await round.each(self.run)

    async def run(self, key: TrialKey) -> Trial:
        self.calls += 1
        return graded_trial(key, self.script(key, self.skill(key)), self.target, self.costs)


class FakeBehavior(RealStage, Mapping[str, Stage]):
    """Stage C on the scripted backend; `opened` holds each (spec, inputs) it ran."""

    def __init__(self, script: BehaviorScript, costs: Costs | None = None) -> None:
        super().__init__(stage_named("C"))
        self.script = script
        self.costs = costs
        self.opened: list[tuple[RunSpec, BehaviorRunInputs, GradedBackend]] = []
        self.prepared: list[RunSpec] = []

    def __getitem__(self, name: str) -> Stage:
        if name != "C":
            raise KeyError(name)
        return self

    def __iter__(self) -> Iterator[str]:
        return iter(("C",))

    def __len__(self) -> int:
        return 1

    @property
    def calls(self) -> int:
        return sum(backend.calls for _spec, _inputs, backend in self.opened)

    def preflight(self, spec: RunSpec, *, calls: bool = True) -> RunSpec:
        self.prepared.append(spec)
        return replace(spec, agent=replace(spec.agent, version="fake")) if spec.agent else spec

    def open(
        self, spec: RunSpec, inputs: BehaviorRunInputs, store: Store | None = None
    ) -> GradedBackend:
        backend = GradedBackend(self.script, inputs, self.costs)
        self.opened.append((spec, inputs, backend))
        return backend
