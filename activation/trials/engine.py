"""The engine: a run's trials on any backend, judged into a RunOutcome.

`execute_async` is the library entry point; `execute` is its synchronous form. The engine
hands the backend every trial the schedule has ready at one moment as one round: the first
rounds of every case at the start, then whatever the finished trials made ready, gathered
until the trials that finished together have all been recorded (a batch's results arrive
together, so their cases' next rounds go out as one batch). With `stop_on_signals` (the
command line), SIGINT and SIGTERM stop the trials (the backends clean up on the way out:
processes killed, temporary folders removed) and the outcome judges what finished.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import AsyncIterator
from contextlib import ExitStack
from functools import partial

import anyio

from activation._config import CONCURRENCY
from activation._models import Inputs, RunOutcome, RunSpec, Trial, TrialKey
from activation.trials.backend import Backend, Progress, Round, Silent
from activation.trials.budget import Budget
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots, Schedule, decisive
from activation.verdicts.escalation import Escalation
from activation.verdicts.judge import Evidence, judge_all
from activation.verdicts.stats import warm_up

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def escalation_for(spec: RunSpec, inputs: Inputs) -> Escalation:
    """A shard decides as the whole run would: by the run's number of cases."""
    cases = len(spec.shard.run_cases) if spec.shard else len(inputs.cases)
    return Escalation(spec.trials, spec.max_trials, spec.alpha, cases)


def slots_for(spec: RunSpec, cost_estimate: float | None) -> RunSlots:
    """The run's limit and ceiling; a ceiling needs a trial's expected cost to start with."""
    budget = None
    if spec.max_cost_usd is not None:
        if cost_estimate is None:
            raise ValueError("a cost ceiling needs cost_estimate: a trial's expected cost")
        budget = Budget(spec.max_cost_usd, cost_estimate)
    start = spec.concurrency or CONCURRENCY
    return RunSlots(Limiter(start, spec.max_concurrency), budget)


def judge_schedule(
    spec: RunSpec,
    inputs: Inputs,
    schedule: Schedule,
    slots: RunSlots,
    interrupted: bool = False,
) -> RunOutcome:
    """Verdicts from what exists: a case an interruption cut short is judged from its
    finished trials (marked partial) when each variant has one, else left unfinished."""
    evidence = []
    unfinished = []
    # A shard's cases are judged as if the other shards' cases had p = 1: its statuses can
    # only be more cautious than the merged run's, which `activation merge` decides.
    others = len(spec.shard.run_cases) - len(inputs.cases) if spec.shard else 0
    for case in inputs.cases:
        trials = schedule.by_case.get(case.id, [])
        if {trial.variant for trial in trials} != {"baseline", "candidate"}:
            unfinished.append(case.id)
            continue
        evidence.append(
            Evidence(
                case,
                trials,
                escalated=case.id in schedule.escalated,
                partial=case.id not in schedule.settled,
            )
        )
    return RunOutcome(
        spec,
        inputs,
        judge_all(evidence, spec.alpha, unjudged=len(unfinished) + others),
        tuple(schedule.trials),
        interrupted,
        tuple(unfinished),
        slots.cut_off,
        ceiling_hit=slots.budget is not None and slots.budget.hit,
        peak_concurrency=slots.limiter.peak,
        final_concurrency=slots.limiter.limit,
    )


async def drive(schedule: Schedule, backend: Backend, slots: RunSlots, progress: Progress) -> None:
    """Every round the schedule makes ready, on the backend, until none is left.

    scipy, which the verdicts need, loads in a worker thread once the first trial is back
    (so the first requests go out without competing with the import). Until it has loaded,
    finished trials wait to be recorded (deciding a case's next round may need an exact
    test) rather than stall the event loop on the import; the schedule decides from the
    trials, not from when they came, so only its timing moves.
    """
    ready: list[TrialKey] = []
    waiting: list[Trial] = []
    loaded = threading.Event()

    def load() -> None:
        try:
            warm_up()
        finally:  # a failed import shows where the statistics are used, not here
            loaded.set()

    loading = threading.Thread(target=load, daemon=True)

    try:
        async with anyio.create_task_group() as group:

            async def dispatch() -> None:
                keys = tuple(ready)
                ready.clear()
                await backend.run_round(Round(keys, deliver, slots, progress))

            def record(trial: Trial) -> None:
                keys = schedule.record(trial)
                if not keys:
                    return
                progress.planned(len(keys))
                if not ready:
                    group.start_soon(dispatch)
                ready.extend(keys)

            async def catch_up() -> None:
                await anyio.to_thread.run_sync(loaded.wait, abandon_on_cancel=True)
                while waiting:
                    record(waiting.pop(0))

            def deliver(trial: Trial) -> None:
                progress.trial(trial)
                if loaded.is_set() and not waiting:
                    record(trial)
                    return
                if loading.ident is None:
                    loading.start()
                waiting.append(trial)
                if len(waiting) == 1:
                    group.start_soon(catch_up)

            ready.extend(schedule.start())
            if ready:
                group.start_soon(dispatch)
    finally:
        for trial in waiting:  # an interruption came before the statistics did
            schedule.record(trial)


async def execute_async(
    spec: RunSpec,
    inputs: Inputs,
    backend: Backend,
    progress: Progress | None = None,
    cost_estimate: float | None = None,
    stop_on_signals: bool = False,
) -> RunOutcome:
    """`cost_estimate`: a trial's expected cost in US dollars before any has finished, for
    `spec.max_cost_usd` (see trials/budget.py). With `stop_on_signals` (the main thread
    only), SIGINT and SIGTERM stop the trials and the outcome judges what finished."""
    schedule = Schedule(inputs.cases, escalation_for(spec, inputs))
    slots = slots_for(spec, cost_estimate)
    stopped = False

    async def watch(signals: AsyncIterator[signal.Signals], scope: anyio.CancelScope) -> None:
        nonlocal stopped
        async for _signal in signals:
            stopped = True
            scope.cancel()
            return

    with ExitStack() as stack:
        try:
            async with anyio.create_task_group() as group:
                if stop_on_signals:
                    signals = stack.enter_context(anyio.open_signal_receiver(*STOP_SIGNALS))
                    group.start_soon(watch, signals, group.cancel_scope)
                try:
                    async with backend:
                        await drive(schedule, backend, slots, progress or Silent())
                finally:
                    group.cancel_scope.cancel()
        except BaseExceptionGroup as failures:
            raise decisive(failures) from None
    return judge_schedule(spec, inputs, schedule, slots, interrupted=stopped)


def execute(
    spec: RunSpec,
    inputs: Inputs,
    backend: Backend,
    progress: Progress | None = None,
    cost_estimate: float | None = None,
    stop_on_signals: bool = False,
) -> RunOutcome:
    """`execute_async`, blocking. It installs signal handlers only with `stop_on_signals`
    (and puts the previous ones back)."""
    handlers = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    run = partial(execute_async, spec, inputs, backend, progress, cost_estimate, stop_on_signals)
    try:
        return anyio.run(run)
    finally:
        if stop_on_signals:
            for number, handler in handlers.items():
                signal.signal(number, handler)
