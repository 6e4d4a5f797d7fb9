"""The engine: a run's trials on any backend, judged into a RunOutcome.

`execute_async` is the library entry point; `execute` is its synchronous form for the
command line, where SIGINT and SIGTERM stop the trials (the backends clean up on the way
out: processes killed, temporary folders removed) and the outcome judges what finished.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack
from functools import partial
from typing import Any

import anyio

from activation._models import Inputs, RunOutcome, RunSpec, Trial
from activation.trials.backend import Backend
from activation.trials.budget import Budget
from activation.trials.schedule import Ledger, decisive, run_cases
from activation.verdicts.escalation import Escalation
from activation.verdicts.judge import Evidence, judge_all

OnTrial = Callable[[Trial], None]
OnPlan = Callable[[int], None]
"""Told how many more trials an escalated round adds, as it is planned."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def escalation_for(spec: RunSpec, inputs: Inputs) -> Escalation:
    """A shard decides as the whole run would: by the run's number of cases."""
    cases = len(spec.shard.run_cases) if spec.shard else len(inputs.cases)
    return Escalation(spec.trials, spec.max_trials, spec.alpha, cases)


def budget_for(spec: RunSpec, first_estimate: float | None) -> Budget | None:
    if spec.max_cost_usd is None:
        return None
    return Budget(spec.max_cost_usd, first_estimate)


async def _run(
    spec: RunSpec, inputs: Inputs, backend: Backend, ledger: Ledger, budget: Budget | None
) -> None:
    async with backend:
        await run_cases(
            inputs.cases, escalation_for(spec, inputs), backend, spec.limit, ledger, budget
        )


def judge_ledger(
    spec: RunSpec,
    inputs: Inputs,
    ledger: Ledger,
    interrupted: bool = False,
    budget: Budget | None = None,
) -> RunOutcome:
    """Verdicts from what exists: a case an interruption cut short is judged from its
    finished trials (marked partial) when each variant has one, else left unfinished."""
    evidence = []
    unfinished = []
    # A shard's cases are judged as if the other shards' cases had p = 1: its statuses can
    # only be more cautious than the merged run's, which `activation merge` decides.
    others = len(spec.shard.run_cases) - len(inputs.cases) if spec.shard else 0
    for case in inputs.cases:
        trials = ledger.by_case.get(case.id, [])
        if {trial.key.variant for trial in trials} != {"baseline", "candidate"}:
            unfinished.append(case.id)
            continue
        evidence.append(
            Evidence(
                case,
                trials,
                escalated=case.id in ledger.escalated,
                partial=case.id not in ledger.settled,
            )
        )
    return RunOutcome(
        spec,
        inputs,
        judge_all(evidence, spec.alpha, unjudged=len(unfinished) + others),
        tuple(ledger.trials),
        interrupted,
        tuple(unfinished),
        ledger.cut_off,
        ceiling_hit=budget is not None and budget.hit,
    )


async def execute_async(
    spec: RunSpec,
    inputs: Inputs,
    backend: Backend,
    on_trial: OnTrial | None = None,
    on_plan: OnPlan | None = None,
    cost_estimate: float | None = None,
    stop_on_signals: bool = False,
) -> RunOutcome:
    """`cost_estimate`: a trial's expected cost in US dollars before any has finished, for
    `spec.max_cost_usd` (see trials/budget.py). With `stop_on_signals` (the main thread
    only), SIGINT and SIGTERM stop the trials and the outcome judges what finished."""
    ledger = Ledger(on_trial, on_plan)
    budget = budget_for(spec, cost_estimate)
    stopped = False

    async def watch(signals: AsyncIterator[signal.Signals], scope: anyio.CancelScope) -> None:
        nonlocal stopped
        async for _signal in signals:
            stopped = True
            scope.cancel()
            return

    with ExitStack() as stack:
        async with anyio.create_task_group() as group:
            if stop_on_signals:
                signals = stack.enter_context(anyio.open_signal_receiver(*STOP_SIGNALS))
                group.start_soon(watch, signals, group.cancel_scope)
            try:
                await _run(spec, inputs, backend, ledger, budget)
            finally:
                group.cancel_scope.cancel()
    return judge_ledger(spec, inputs, ledger, interrupted=stopped, budget=budget)


def execute(spec: RunSpec, inputs: Inputs, backend: Backend, **options: Any) -> RunOutcome:
    """`execute_async` with the same options, blocking, stopped by SIGINT or SIGTERM."""
    handlers = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    run = partial(execute_async, spec, inputs, backend, stop_on_signals=True, **options)
    try:
        return anyio.run(run)
    except BaseExceptionGroup as group:
        raise decisive(group) from None
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
