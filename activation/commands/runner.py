"""What every command that runs trials shares (the main run and `calibrate`): the stage the
flags choose, the spec, the inputs, the response cache, and a run with its progress bar."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from activation._config import MAX_TRIALS
from activation._errors import InputError
from activation._models import (
    AgentSettings,
    AnyInputs,
    Inputs,
    RunOutcome,
    RunSpec,
    Shard,
    Trial,
)
from activation.commands.requests import (
    ActivationTrials,
    CacheRequest,
    MatrixRequest,
    SamplingRequest,
)
from activation.commands.session import Session
from activation.inputs.identity import matrix_identity, pair_shard, shard_of
from activation.inputs.shards import pair_key, plan_digest, planned_shards
from activation.report.progress import TrialProgress
from activation.store import TrialStore, cache_folder
from activation.trials.cache import CachedBackend
from activation.trials.engine import Cell, execute_cells
from activation.trials.executor import LOCAL, on_executor
from activation.trials.resume import ResumedBackend
from activation.trials.stage import Stage, planned_calls, stage_named

if TYPE_CHECKING:
    from activation.report.matrix import Matrix

Stages = Mapping[str, Stage]


def stage_of(args: ActivationTrials, stages: Stages | None) -> Stage:
    """The stage `--real` chooses (the `stages` given replace the registry's, by name)."""
    name = "B" if args.real else "A"
    return stages[name] if stages and name in stages else stage_named(name)


def planned(stage: Stage, spec: RunSpec, warn: Callable[[Sequence[str]], None]) -> RunSpec:
    """The spec a dry run plans with: an agent CLI it cannot find (or run) is a warning,
    not an error, for a dry run plans and does not run; the run itself will refuse."""
    try:
        return stage.preflight(spec, calls=False)
    except InputError as missing:
        if spec.agent is None:
            raise
        warn([f"{missing} (a dry run plans without it; a run needs it)"])
        return spec


def spec_from(args: ActivationTrials, stage: Stage, command: str) -> RunSpec:
    """The one cell a command that runs one cell takes (InputError for several)."""
    return one_cell(cells_from(args, stage), command)


def one_cell(cells: Sequence[RunSpec], command: str) -> RunSpec:
    """The only cell of a command that runs one, whatever the stage (InputError for
    several)."""
    (spec, *more) = cells
    if more:
        raise InputError(f"{command} runs one cell: pass one --model and one --agent")
    return spec


def cells_from(args: ActivationTrials, stage: Stage) -> tuple[RunSpec, ...]:
    """One spec per cell the flags ask for (each agent with each model, in the order
    given), each with the stage's own defaults."""
    check_escalation(args.trials, args.max_trials)
    if args.resume is True and not args.batch:
        raise InputError(
            "--resume alone picks up an interrupted --batch run: pass --batch too, or the "
            "report of the run to finish (--resume REPORT)"
        )
    if args.executor != LOCAL and not args.real:
        raise InputError("--executor starts agent runs elsewhere: it needs --real")
    from activation.inputs.load import load_pricing

    fixed, ceiling = args.concurrency or (None, None)
    asked = RunSpec(
        stage="B" if args.real else "A",
        trials=args.trials,
        max_trials=args.max_trials or max(MAX_TRIALS, args.trials),
        alpha=args.alpha,
        seed=args.seed,
        concurrency=fixed,
        max_concurrency=ceiling,
        agent=AgentSettings(
            args.max_turns,
            args.timeout,
            sandbox=args.sandbox,
            canary=not args.no_canary,
            executables=dict(args.executables),
            image=args.image,
            executor=args.executor,
        )
        if args.real
        else None,
        pricing=load_pricing(args.price_in, args.price_out),
        max_cost_usd=args.max_cost_usd,
        batch=args.batch,
        resume=bool(args.resume) and args.batch,
        fail_on=(args.fail_on,) if args.fail_on else (),
        min_coverage=args.min_coverage,
    )
    return cells_of(asked, stage, args)


def cells_of(asked: RunSpec, stage: Stage, args: SamplingRequest) -> tuple[RunSpec, ...]:
    """The spec asked for, once per cell (each `--agent` with each `--model`, in the order
    given, as `agent_models` pairs them), each with the stage's own defaults."""
    cells = tuple(
        stage.configure(replace(asked, coding_agent=agent, model=model))
        for agent, model in agent_models(stage, args.agent, args.model)
    )
    ceiling_priced(cells)
    return cells


AGENT_RUN = frozenset({"B", "C"})
"""The stages whose model the agent runs (Stage A's model reads the agent's listing)."""


def agent_models(
    stage: Stage, agents: Sequence[str], models: Sequence[str] | None
) -> list[tuple[str, str | None]]:
    """Each agent with each model; where the agent runs the model (Stage B, C) and several
    agents are asked, each model with the agents that run its provider (`--agent
    codex,gemini --model openai:gpt-5,google:gemini-2.5-pro` is two cells, not four of which
    two cannot run). A model no asked agent runs stays with every agent (its cells say
    why); an agent left with no model is one line."""
    pairs = [(agent, model) for agent in agents for model in models or (None,)]
    if stage.name not in AGENT_RUN or len(agents) < 2 or not models:
        return pairs
    from activation.trials.agents import agent_named
    from activation.trials.providers import parse_model

    runs = {agent: agent_named(agent).providers for agent in agents}
    served = {provider for providers in runs.values() for provider in providers}
    provider = {model: parse_model(model).provider for model in models}
    kept: list[tuple[str, str | None]] = [
        (agent, model)
        for agent in agents
        for model in models
        if provider[model] in runs[agent] or provider[model] not in served
    ]
    for agent in agents:
        if not any(kept_agent == agent for kept_agent, _model in kept):
            record = agent_named(agent)
            raise InputError(
                f"--agent {agent}: no --model given is one {record.title} runs (models of "
                f"{', '.join(record.providers)}): add --model {record.providers[0]}:<id>"
            )
    return kept


def check_escalation(trials: int, max_trials: int | None) -> None:
    """InputError when `--max-trials` is below `--trials`."""
    if max_trials is not None and max_trials < trials:
        raise InputError(
            f"--max-trials {max_trials} is below --trials {trials}: "
            "escalation cannot run fewer trials than the first round"
        )


def ceiling_priced(cells: Sequence[RunSpec]) -> None:
    """InputError for a cost ceiling on a cell whose cost cannot be counted (a free
    model's, the mock's, is known: nothing)."""
    for spec in cells:
        gap = stage_named(spec.stage).unpriced(spec)
        if spec.max_cost_usd is not None and gap is not None:
            raise InputError(f"cannot enforce a cost ceiling: {gap}")


def only_of(only: tuple[str, ...] | None, only_from: Path | None) -> tuple[str, ...] | None:
    """The cases `--only` names, or those the report `--only-from` names flagged."""
    if only_from is None:
        return only
    if only is not None:
        raise InputError("--only-from reads the cases from a report: leave out --only")
    return flagged_in(only_from)


def flagged_in(path: Path) -> tuple[str, ...]:
    """Every case a saved report flagged, in any cell of any of its runs (a report of
    `changed` holds one per gate)."""
    from activation._models import FLAGGED
    from activation.inputs.load import read_json
    from activation.report.changed import CHANGED_SCHEMA
    from activation.report.codec import parse_saved

    data = read_json(path, "report")
    gates = data.get("gates") if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("schema") == CHANGED_SCHEMA and isinstance(gates, list):
        runs = [
            parse_saved(gate.get("run") if isinstance(gate, dict) else gate, f"{path}, gate {n}")
            for n, gate in enumerate(gates, 1)
        ]
    else:
        runs = [parse_saved(data, str(path))]
    found = [id for run in runs for cell in run.cells for id in cell.ids_with(*FLAGGED)]
    if not found:
        raise InputError(f"--only-from {path}: the report flagged no case")
    return tuple(dict.fromkeys(found))


def inputs_from(
    args: MatrixRequest,
    cwd: Path,
    candidate: str | None,
    baseline: str | None = None,
    *,
    alone: bool = False,
    measured: str | None = None,
) -> Inputs:
    """The inputs the flags name; `candidate` None is the working-tree SKILL.md, `baseline`
    None the default one. `alone`: the candidate's description on both sides; `measured`:
    the id of the set's skill to measure (see `load_inputs`)."""
    from activation.inputs.load import load_inputs

    return load_inputs(
        cwd,
        repo=args.repo,
        skill_path=args.skill_path,
        cases=args.cases,
        cases_format=args.cases_format,
        distractors=args.distractors,
        catalog=args.catalog,
        baseline=baseline,
        candidate=candidate,
        only=args.only,
        alone=alone,
        measured=measured,
    )


def sharded_cells(
    specs: Sequence[RunSpec],
    inputs: AnyInputs,
    index: int,
    count: int,
    durations: Mapping[str, float] | None = None,
) -> list[tuple[RunSpec, AnyInputs]]:
    """This shard's (case, cell) pairs: each cell with its share of the cases, all of them
    carrying the whole matrix's identity. A one-cell run is sharded by case, as it always
    was (a pair is then just its case). With `durations` (a saved run's, by `pair_key`) the
    shards are planned by them (inputs/shards.py), else by a hash of each pair."""
    several = len(specs) > 1
    keys = [pair_key(case.id, spec.cell, several) for spec in specs for case in inputs.cases]
    plan = None if durations is None else planned_shards(keys, durations, count)
    whole = Shard(
        index,
        count,
        tuple(case.id for case in inputs.cases),
        matrix_identity(specs, inputs),
        None if plan is None else plan_digest(plan),
    )

    def mine(case_id: str, cell: str) -> bool:
        if plan is not None:
            return plan[pair_key(case_id, cell, several)] == index
        shard = pair_shard(case_id, cell, count) if several else shard_of(case_id, count)
        return shard == index

    return [
        (
            replace(spec, shard=whole),
            replace(inputs, cases=tuple(case for case in inputs.cases if mine(case.id, spec.cell))),
        )
        for spec in specs
    ]


def durations_in(path: Path, several: bool) -> dict[str, float]:
    """`--durations`: the work each case (or pair) of the saved run at `path` took; a
    report with none recorded is one line."""
    from activation.report.resume import recorded_durations

    found = recorded_durations(saved_by(path, "--durations"), several)
    if not found:
        raise InputError(f"--durations {path}: the report records no trial's duration")
    return found


def resumed(
    session: Session,
    resume: bool | Path | None,
    cells: Sequence[tuple[RunSpec, AnyInputs]],
    whole: AnyInputs,
) -> list[dict[tuple[str, str, int], Trial]]:
    """`--resume REPORT`: per cell, the trials the interrupted run at REPORT finished, said
    in one line (none when nothing resumes; InputError for the report of another run or
    shard)."""
    from activation.report.resume import kept_trials

    if not isinstance(resume, Path):
        return []
    specs = [spec for spec, _inputs in cells]
    shard = specs[0].shard
    identity = shard.fingerprint if shard else matrix_identity(specs, whole)
    saved = saved_by(resume, "--resume")
    kept = kept_trials(saved, str(resume), identity, shard, [spec.cell for spec in specs])
    session.say(
        f"resuming {resume}: {sum(map(len, kept))} finished trial(s) kept, "
        "only the missing ones run"
    )
    return kept


def saved_by(path: Path, flag: str) -> Matrix:
    """The saved report a flag names; a file that is none is one line naming the flag."""
    from activation.commands.report import load_saved

    try:
        return load_saved(path)
    except InputError as error:
        raise InputError(f"{flag}: {error}") from None


@contextmanager
def open_store(args: CacheRequest) -> Iterator[TrialStore | None]:
    """The response cache the flags ask for (None with `--no-cache`), closed after."""
    if args.no_cache:
        yield None
        return
    store = TrialStore(cache_folder(args.cache_dir, os.environ), args.cache_ttl)
    try:
        yield store
    finally:
        store.close()


def run_trials(
    session: Session, stage: Stage, spec: RunSpec, inputs: AnyInputs, store: TrialStore | None
) -> RunOutcome:
    """The run, its answers kept in and served from `store`, SIGINT and SIGTERM stopping it."""
    (outcome,) = run_cells(session, stage, [(spec, inputs)], store)
    return outcome


def run_cells(
    session: Session,
    stage: Stage,
    cells: Sequence[tuple[RunSpec, AnyInputs]],
    store: TrialStore | None,
    kept: Sequence[Mapping[tuple[str, str, int], Trial]] = (),
) -> tuple[RunOutcome, ...]:
    """Every cell's trials at once (one progress bar over all of them); `kept`: per cell,
    the trials of an interrupted run that are not run again (`--resume`)."""
    planned = []
    for number, (spec, inputs) in enumerate(cells):
        backend = stage.open(spec, inputs, store)
        if spec.agent is not None:
            backend = on_executor(backend, spec.agent.executor, os.environ)
        if store is not None:
            backend = CachedBackend(backend, store, inputs.target.skill_id)
        if kept:
            backend = ResumedBackend(backend, kept[number])
        estimate = None
        if spec.max_cost_usd is not None:
            estimate = stage.estimate(spec, inputs).per_trial
        planned.append(Cell(spec, inputs, backend, estimate))
    calls = sum(planned_calls(spec, inputs) for spec, inputs in cells)
    label = f"Stage {cells[0][0].stage} trials"
    if len(cells) > 1:
        label += f", {len(cells)} cells"
    with TrialProgress(session.err, calls, label) as progress:
        return execute_cells(planned, progress, stop_on_signals=True)
