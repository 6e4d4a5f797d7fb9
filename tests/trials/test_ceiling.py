"""The cost ceiling in the scheduler: no trial starts past it, the rest are ERROR trials."""

from __future__ import annotations

import anyio
import pytest

from activation._errors import ExitCode
from activation._models import RunSpec, Status
from activation.trials.budget import CEILING
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.simulate import _inputs, typical


def run(spec: RunSpec, cost: float, estimate: float | None, cases: int = 4):
    backend = FakeBackend(scripted({}, default=True), cost=cost)
    outcome = anyio.run(
        lambda: execute_async(spec, _inputs(typical(cases)), backend, cost_estimate=estimate)
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
    assert {v.case.id: v.status for v in outcome.verdicts} == {
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


def test_without_an_estimate_the_first_trial_runs_alone_and_sets_it() -> None:
    spec = RunSpec(trials=3, max_trials=3, concurrency=8, max_cost_usd=0.035)
    outcome, backend = run(spec, cost=0.01, estimate=None)
    assert backend.calls == 3
    assert outcome.ceiling_hit is True


def test_a_run_within_the_ceiling_is_untouched() -> None:
    spec = RunSpec(trials=3, max_trials=3, concurrency=8, max_cost_usd=1.0)
    outcome, backend = run(spec, cost=0.01, estimate=0.01)
    assert backend.calls == 24
    assert outcome.ceiling_hit is False
    assert outcome.exit_code is ExitCode.OK
