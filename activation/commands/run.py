"""The main command: compare two descriptions on the case matrix and gate on the result."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import anyio

from activation import __version__, state
from activation._models import FLAGGED, Inputs, RunOutcome, RunSpec, Shard
from activation.commands.arguments import spec_from
from activation.commands.backends import Backends, pair_key, stage_b_selection
from activation.commands.config import parse_settings
from activation.commands.outputs import chosen_outputs, write_outputs
from activation.commands.parsers import run_parser
from activation.commands.session import Session
from activation.inputs.cases import shard_of
from activation.report.data import build_report, fingerprint
from activation.report.plan import (
    CHARS,
    CostEstimate,
    chars_tokens,
    estimate_cost,
    planned_calls,
    render_plan,
    run_warnings,
    settings_table,
)
from activation.report.progress import TrialProgress
from activation.report.terminal import render_report
from activation.store import TrialStore, cache_folder
from activation.trials.backend import Backend, Keyed, Watched
from activation.trials.cache import CachedBackend
from activation.trials.classifier.prompt import Requests
from activation.trials.engine import execute
from activation.trials.simulate import Characteristics, simulate, typical

SIMULATED_RUNS = 60
"""Runs per population behind the characteristics `--dry-run` shows: a few seconds on 95
cases, with intervals that say how sure the figures are (benchmarks run 400)."""
SIMULATION_LIMIT = 1_500
"""First-round calls above which `--dry-run` does not simulate (it would take minutes)."""
RERUN_FLAGS = ("--baseline", "--candidate", "--repo", "--skill-path", "--cases", "--trials")
"""The flags worth repeating in a suggested command (settings from a file are read again)."""


def rerun_args(args: argparse.Namespace, argv: Sequence[str]) -> tuple[str, ...]:
    repeated: list[str] = []
    for flag in RERUN_FLAGS:
        if any(item == flag or item.startswith(flag + "=") for item in argv):
            repeated += [flag, str(getattr(args, flag[2:].replace("-", "_")))]
    return tuple(repeated)


def detectable(spec: RunSpec, cases: int) -> tuple[Characteristics, Characteristics]:
    """The simulated false-alarm chance and power of these settings on this many cases."""
    steady = typical(cases)

    async def both() -> tuple[Characteristics, Characteristics]:
        return (
            await simulate(steady, spec, SIMULATED_RUNS),
            await simulate(steady.with_drop(), spec, SIMULATED_RUNS),
        )

    return anyio.run(both)


@contextmanager
def open_store(args: argparse.Namespace) -> Iterator[TrialStore | None]:
    """The response cache the flags ask for (None with `--no-cache`), closed after."""
    if args.no_cache:
        yield None
        return
    store = TrialStore(cache_folder(args.cache_dir, os.environ), args.cache_ttl)
    try:
        yield store
    finally:
        store.close()


def open_backend(
    backends: Backends, spec: RunSpec, inputs: Inputs, store: TrialStore | None
) -> Backend:
    backend = backends.open(spec, inputs)
    if store is not None and isinstance(backend, Keyed):
        return CachedBackend(backend, store)
    return backend


def cost_estimate(spec: RunSpec, inputs: Inputs, backends: Backends | None = None) -> CostEstimate:
    """What the run would cost; token counts from the API's counting endpoint when
    `backends` can count (a dry run with a key), else from characters."""
    if spec.stage == "B":
        return estimate_cost(spec, inputs, None, "")
    requests = Requests.for_run(spec, inputs).first_requests(inputs.cases)
    counted, how = (None, CHARS) if backends is None else backends.count_tokens(spec, requests)
    if counted is None:
        counted = [chars_tokens(request) for request in requests]
    return estimate_cost(spec, inputs, counted, how)


def run_with_progress(
    session: Session,
    backends: Backends,
    spec: RunSpec,
    inputs: Inputs,
    store: TrialStore | None = None,
) -> RunOutcome:
    label = f"Stage {spec.stage} trials"
    backend = open_backend(backends, spec, inputs, store)
    estimate = cost_estimate(spec, inputs).per_trial if spec.max_cost_usd is not None else None
    with TrialProgress(session.err, planned_calls(spec, inputs), label) as progress:
        if isinstance(backend, Watched):
            backend.watch(progress.batch)
        return execute(
            spec,
            inputs,
            backend,
            on_trial=progress,
            on_plan=progress.plan,
            cost_estimate=estimate,
        )


def sharded(spec: RunSpec, inputs: Inputs, index: int, count: int) -> tuple[RunSpec, Inputs]:
    """This shard's cases, with what `merge` needs to put the whole run back together."""
    whole = Shard(index, count, tuple(case.id for case in inputs.cases), fingerprint(spec, inputs))
    mine = tuple(case for case in inputs.cases if shard_of(case.id, count) == index)
    return replace(spec, shard=whole), replace(inputs, cases=mine)


def inputs_from(args: argparse.Namespace, cwd: Path, candidate: str | None) -> Inputs:
    """The inputs the flags name; `candidate` None is the working-tree SKILL.md."""
    from activation.inputs.load import load_inputs

    return load_inputs(
        cwd,
        repo=args.repo,
        skill_path=args.skill_path,
        cases=args.cases,
        distractors=args.distractors,
        baseline=args.baseline,
        candidate=candidate,
        only=args.only,
    )


def remember_flags(outcome: RunOutcome) -> None:
    """What Stage A flagged, for a later `--real` on the same two descriptions."""
    if outcome.spec.stage != "A" or outcome.interrupted:
        return
    state.record_flagged(
        outcome.inputs.target.repo,
        pair_key(outcome.inputs),
        [verdict.case.id for verdict in outcome.verdicts],
        outcome.ids_with(*FLAGGED),
        outcome.spec.model,
    )


def main_run(session: Session, argv: list[str], backends: Backends) -> int:
    args, settings = parse_settings(run_parser, argv)
    session.adopt(args.debug, args.json)
    outputs = chosen_outputs(args, os.environ)
    spec = spec_from(args)
    inputs = inputs_from(args, Path.cwd(), args.candidate)
    warnings = run_warnings(spec, inputs, bundled_cases=args.cases is None)
    session.warn(warnings)
    if spec.stage == "B" and args.only is None:
        inputs = stage_b_selection(inputs, session.err)
    if args.shard is not None:
        whole = len(inputs.cases)
        spec, inputs = sharded(spec, inputs, *args.shard)
        index, count = args.shard
        session.err.print(f"shard {index}/{count}: {len(inputs.cases)} of {whole} case(s)")
    if args.dry_run:
        spec = backends.prepare(spec, credentials=False)
        simulated = planned_calls(spec, inputs) <= SIMULATION_LIMIT
        found = detectable(spec, len(inputs.cases)) if simulated else None
        cost = cost_estimate(spec, inputs, backends)
        session.out.print(render_plan(spec, inputs, found, cost))
        session.show(settings_table(settings))
        return 0
    spec = backends.prepare(spec)
    with open_store(args) as store:
        outcome = run_with_progress(session, backends, spec, inputs, store)
    remember_flags(outcome)
    report = build_report(outcome, __version__, tuple(warnings), rerun=rerun_args(args, argv))
    session.show(render_report(report))
    session.write_report(report)
    write_outputs(session, report, outputs)
    return report.exit_code
