"""The cost ceiling in the scheduler: no trial starts past it, the rest are ERROR trials."""

from __future__ import annotations

import anyio
import pytest

from activation._errors import ExitCode
from activation._models import RunOutcome, RunSpec, Status
from activation.trials.budget import CEILING
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.simulate import simulated_inputs, typical


def run(
    spec: RunSpec, cost: float, estimate: float | None, cases: int = 4
) -> tuple[RunOutcome, FakeBackend]:
    backend = FakeBackend(scripted({}, default=True), cost=cost)
    outcome = anyio.run(
        lambda: execute_async(
            spec, simulated_inputs(typical(cases)), backend, cost_estimate=estimate
        )
    )
    return outcome, backend


def test_one_at_a_time_the_ceiling_is_never_passed() -> None:
    # 0.01 a trial, ceiling 0.055: five trials fit (0.05), the sixth would pass it.
    spec = RunSpec(trials=3, max_trials=3, concurrency=1, max_cost_usd=0.055)
    outcome, backend = run(spec, cost=0.01, estimate=0.01)
    assert backend.calls == 5
    assert outcome.ceiling_hit is True
    assert outcome.usage.cost_usd == pytest.approx(0.05)
    refused = [trial for trial in outcome.trials if trial.error == CEILING]
    assert len(refused) == 4 * 2 * 3 - 5
    assert all(t.usage.requests == 0 for t in refused)
    assert {v.id: v.status for v in outcome.verdicts} == {
        "case-0": Status.ERROR, "case-1": Status.ERROR, "case-2": Status.ERROR,
        "case-3": Status.ERROR,
    }  # fmt: skip
    assert outcome.exit_code is ExitCode.INCOMPLETE


def test_in_flight_trials_count_against_the_ceiling() -> None:
    # Eight at once at 0.01 each, ceiling 0.035: three may be in flight, never a fourth.
    spec = RunSpec(trials=3, max_trials=3, concurrency=8, max_cost_usd=0.035)
    outcome, backend = run(spec, cost=0.01, estimate=0.01)
    assert backend.calls == 3
    assert outcome.usage.cost_usd == pytest.approx(0.03)


def test_a_ceiling_without_an_estimate_is_refused_before_any_trial() -> None:
    spec = RunSpec(trials=3, max_trials=3, concurrency=8, max_cost_usd=0.035)
    with pytest.raises(ValueError, match="a cost ceiling needs cost_estimate"):
        run(spec, cost=0.01, estimate=None)


def test_the_estimate_gives_way_to_what_trials_really_cost() -> None:
    # Estimated at 0.001 but really 0.01 each, one at a time: the first trials' real cost
    # replaces the estimate, so the run stops near the ceiling rather than ten times past it.
    spec = RunSpec(trials=3, max_trials=3, concurrency=1, max_cost_usd=0.035)
    outcome, backend = run(spec, cost=0.01, estimate=0.001)
    assert backend.calls == 3
    assert outcome.usage.cost_usd == pytest.approx(0.03)


def test_a_run_within_the_ceiling_is_untouched() -> None:
    spec = RunSpec(trials=3, max_trials=3, concurrency=8, max_cost_usd=1.0)
    outcome, backend = run(spec, cost=0.01, estimate=0.01)
    assert backend.calls == 24
    assert outcome.ceiling_hit is False
    assert outcome.exit_code is ExitCode.OK
