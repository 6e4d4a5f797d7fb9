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
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial, wraps
from typing import Any, ParamSpec, TypeVar

import anyio
import anyio.lowlevel

from activation._config import CONCURRENCY
from activation._models import AnyInputs, RunOutcome, RunSpec, Trial, TrialKey
from activation.trials.backend import Backend, Progress, Round, Silent
from activation.trials.budget import Budget
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots, Schedule, decisive
from activation.verdicts.escalation import Escalation
from activation.verdicts.judge import Evidence, judge_groups
from activation.verdicts.stats import warm_up

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
WARM_UP_POLL = 0.02
"""Seconds between two looks for the end of scipy's import while finished trials wait."""
OPENING_STEP = 100
"""Cases whose first rounds are built between two passes through the event loop: building
every key of a large run at once (0.4 s for 180,000 keys on a quiet machine, seconds on a
busy one) would leave Ctrl-C unread that long."""
P = ParamSpec("P")
T = TypeVar("T")


def escalation_for(spec: RunSpec, inputs: AnyInputs, cells: int = 1) -> Escalation:
    """A shard decides as the whole run would: by the run's number of (case, cell) pairs."""
    cases = len(spec.shard.run_cases) if spec.shard else len(inputs.cases)
    return Escalation(spec.trials, spec.max_trials, spec.alpha, cases * cells)


def budget_for(spec: RunSpec, cost_estimates: Sequence[float | None]) -> Budget | None:
    """The run's one ceiling, over every cell; before any trial has finished, a trial is
    expected to cost what the dearest cell's does."""
    if spec.max_cost_usd is None:
        return None
    known = [estimate for estimate in cost_estimates if estimate is not None]
    if len(known) < len(cost_estimates):
        raise ValueError("a cost ceiling needs cost_estimate: a trial's expected cost")
    return Budget(spec.max_cost_usd, max(known))


def slots_for(spec: RunSpec, budget: Budget | None) -> RunSlots:
    """A cell's own concurrency limit (each stage and provider has its own), and the run's
    ceiling."""
    start = spec.concurrency or CONCURRENCY
    return RunSlots(Limiter(start, spec.max_concurrency), budget)


@dataclass(frozen=True)
class Cell:
    """One cell of a run, as the engine runs it: its spec (stage, agent, model), its cases
    (a shard's share of them), its backend and a trial's expected cost before any has
    finished (for the ceiling)."""

    spec: RunSpec
    inputs: AnyInputs
    backend: Backend
    cost_estimate: float | None = None


def evidence_of(
    spec: RunSpec, inputs: AnyInputs, schedule: Schedule
) -> tuple[list[Evidence], list[str], int]:
    """What a cell's cases are judged on: a case an interruption cut short is judged from
    its finished trials (marked partial) when each variant has one, else left unfinished.
    The count is of the cases that have no say here (unfinished, or another shard's)."""
    evidence = []
    unfinished = []
    # A shard's cases are judged as if the other shards' cases had p = 1: its statuses can
    # only be more cautious than the merged run's, which `activation merge` decides.
    others = len(spec.shard.run_cases) - len(inputs.cases) if spec.shard else 0
    for case in inputs.cases:
        trials = schedule.by_case.get(case.id, [])
        if not {"baseline", "candidate"} <= {trial.variant for trial in trials}:
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
    return evidence, unfinished, len(unfinished) + others


def judge_schedules(
    cells: Sequence[tuple[RunSpec, AnyInputs]],
    schedules: Sequence[Schedule],
    slots: Sequence[RunSlots],
    interrupted: bool = False,
) -> tuple[RunOutcome, ...]:
    """Each cell's outcome, significance judged across every (case, cell) pair of the run."""
    found = [evidence_of(spec, inputs, schedule)
             for (spec, inputs), schedule in zip(cells, schedules, strict=True)]  # fmt: skip
    verdicts = judge_groups(
        [evidence for evidence, _, _ in found],
        cells[0][0].alpha,
        unjudged=sum(unjudged for _, _, unjudged in found),
    )
    return tuple(
        RunOutcome(
            spec,
            inputs,
            judged,
            tuple(schedule.trials),
            interrupted,
            tuple(unfinished),
            cell_slots.cut_off,
            ceiling_hit=cell_slots.budget is not None and cell_slots.budget.hit,
            peak_concurrency=cell_slots.limiter.peak,
            final_concurrency=cell_slots.limiter.limit,
            retried=cell_slots.retried,
        )
        for (spec, inputs), schedule, cell_slots, judged, (_, unfinished, _) in zip(
            cells, schedules, slots, verdicts, found, strict=True
        )
    )


async def drive(
    schedule: Schedule, backend: Backend, slots: RunSlots, progress: Progress, behavior: bool
) -> None:
    """Every round the schedule makes ready, on the backend, until none is left.

    scipy, which the verdicts may need, loads in a daemon thread once the first trial is
    back that may need it (so the first requests go out without competing with the import):
    any trial of a `behavior` run (its efficiency figures are scipy's rank tests), else a
    trial after which its case's variants differ (`Schedule.may_test`); a run whose variants
    never differ never imports it (most of a small run's own CPU). Until it has loaded,
    finished trials wait to be recorded (deciding a case's next round may need an exact
    test) rather than stall the event loop on the import; the schedule decides from the
    trials, not from when they came, so only its timing moves. The loop looks for the end of
    the import every WARM_UP_POLL seconds rather than wait for it in a worker thread: the
    interpreter waits for a worker thread at exit, so an interruption during the import
    (seconds on a busy machine) would hold the exit until scipy had loaded.
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
                while not loaded.is_set():  # noqa: ASYNC110 (set by a thread, not a task)
                    await anyio.sleep(WARM_UP_POLL)
                while waiting:
                    record(waiting.pop(0))

            def deliver(trial: Trial) -> None:
                progress.trial(trial)
                if not waiting and (loaded.is_set() or not (behavior or schedule.may_test(trial))):
                    record(trial)
                    return
                if loading.ident is None:
                    loading.start()
                waiting.append(trial)
                if len(waiting) == 1:
                    group.start_soon(catch_up)

            for count, keys in enumerate(schedule.first_rounds(), 1):
                ready.extend(keys)
                if count % OPENING_STEP == 0:
                    await anyio.lowlevel.checkpoint()
            if ready:
                group.start_soon(dispatch)
    finally:
        for trial in waiting:  # an interruption came before the statistics did
            schedule.record(trial)


async def execute_cells_async(
    cells: Sequence[Cell], progress: Progress | None = None, stop_on_signals: bool = False
) -> tuple[RunOutcome, ...]:
    """Every cell's trials at once, each on its own backend and under its own concurrency
    limit, within the run's one cost ceiling. With `stop_on_signals` (the main thread
    only), SIGINT and SIGTERM stop the trials and the outcomes judge what finished."""
    schedules = [
        Schedule(
            cell.inputs.cases,
            escalation_for(cell.spec, cell.inputs, len(cells)),
            cell.spec.controls,
        )
        for cell in cells
    ]
    budget = budget_for(cells[0].spec, [cell.cost_estimate for cell in cells])
    slots = [slots_for(cell.spec, budget) for cell in cells]
    watching = progress or Silent()
    stopped = False

    async def watch(signals: AsyncIterator[signal.Signals], scope: anyio.CancelScope) -> None:
        nonlocal stopped
        async for _signal in signals:
            stopped = True
            scope.cancel()
            return

    async def run(cell: Cell, schedule: Schedule, cell_slots: RunSlots) -> None:
        async with cell.backend:
            await drive(
                schedule, cell.backend, cell_slots, watching, cell.spec.behavior is not None
            )

    with ExitStack() as stack:
        try:
            async with anyio.create_task_group() as group:
                if stop_on_signals:
                    signals = stack.enter_context(anyio.open_signal_receiver(*STOP_SIGNALS))
                    group.start_soon(watch, signals, group.cancel_scope)
                try:
                    async with anyio.create_task_group() as cells_group:
                        for cell, schedule, cell_slots in zip(cells, schedules, slots, strict=True):
                            cells_group.start_soon(run, cell, schedule, cell_slots)
                finally:
                    group.cancel_scope.cancel()
        except BaseExceptionGroup as failures:
            raise decisive(failures) from None
    runs = [(cell.spec, cell.inputs) for cell in cells]
    return judge_schedules(runs, schedules, slots, interrupted=stopped)


async def execute_async(
    spec: RunSpec,
    inputs: AnyInputs,
    backend: Backend,
    progress: Progress | None = None,
    cost_estimate: float | None = None,
    stop_on_signals: bool = False,
) -> RunOutcome:
    """A run of one cell. `cost_estimate`: a trial's expected cost in US dollars before any
    has finished, for `spec.max_cost_usd` (see trials/budget.py)."""
    cell = Cell(spec, inputs, backend, cost_estimate)
    (outcome,) = await execute_cells_async([cell], progress, stop_on_signals)
    return outcome


def blocking(run: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """`run`'s synchronous form, under the same signature. `stop_on_signals` installs signal
    handlers for the run; whatever it changed is put back after it."""

    @wraps(run)
    def blocking_run(*args: P.args, **kwargs: P.kwargs) -> T:
        handlers = {number: signal.getsignal(number) for number in STOP_SIGNALS}
        try:
            return anyio.run(partial(run, *args, **kwargs))
        finally:
            for number, handler in handlers.items():
                if signal.getsignal(number) is not handler:
                    signal.signal(number, handler)

    blocking_run.__name__ = blocking_run.__qualname__ = run.__name__.removesuffix("_async")
    blocking_run.__doc__ = f"`{run.__name__}`, blocking (see `blocking`)."
    return blocking_run


execute_cells = blocking(execute_cells_async)
execute = blocking(execute_async)
