"""The main command: compare two descriptions on the case matrix and gate on the result.

Only the flags are imported before the arguments are parsed: `--help`, `--version` and a
bad flag never load the engine, the report or the renderers.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from activation import __version__
from activation._errors import InputError
from activation.commands.config import parse_settings
from activation.commands.flags import RUN
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation._models import Inputs, RunSpec
    from activation.commands.runner import Stages
    from activation.report.plan import Detectable

SIMULATED_RUNS = 60
"""Runs per population behind what `--dry-run --simulate` shows: a few seconds on 95 cases,
with intervals that say how sure the figures are (benchmarks run 400)."""
SIMULATION_LIMIT = 1_500
"""First-round calls above which `--simulate` declines (it would take minutes)."""
RERUN_FLAGS = ("--baseline", "--candidate", "--repo", "--skill-path", "--cases", "--trials")
"""The flags worth repeating in a suggested command (settings from a file are read again)."""


def rerun_args(args: argparse.Namespace, argv: Sequence[str]) -> tuple[str, ...]:
    repeated: list[str] = []
    for flag in RERUN_FLAGS:
        if any(item == flag or item.startswith(flag + "=") for item in argv):
            repeated += [flag, str(getattr(args, flag[2:].replace("-", "_")))]
    return tuple(repeated)


def detectable(spec: RunSpec, inputs: Inputs) -> Detectable | None:
    """The simulated false-alarm chance and power of these settings on this many cases."""
    from activation.report.plan import Detectable
    from activation.trials.simulate import simulate, typical
    from activation.trials.stage import planned_calls

    if planned_calls(spec, inputs) > SIMULATION_LIMIT:
        return None
    steady = typical(len(inputs.cases))
    return Detectable(
        simulate(steady, spec, SIMULATED_RUNS), simulate(steady.with_drop(), spec, SIMULATED_RUNS)
    )


def main_run(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_settings(RUN, argv)
    from activation.commands.outputs import chosen_outputs, write_outputs
    from activation.commands.runner import (
        inputs_from,
        open_store,
        run_trials,
        sharded,
        spec_from,
        stage_of,
    )
    from activation.report.model import build_report
    from activation.report.plan import render_plan, run_warnings, settings_table
    from activation.report.terminal import render_report

    session.adopt(args.debug, args.json)
    for flag in ("simulate", "verbose"):
        if getattr(args, flag) and not args.dry_run:
            raise InputError(f"--{flag} goes with --dry-run")
    outputs = chosen_outputs(args, os.environ)
    stage = stage_of(args, stages)
    spec = spec_from(args, stage)
    inputs = inputs_from(args, Path.cwd(), args.candidate)
    warnings = run_warnings(spec, inputs, bundled_cases=args.cases is None)
    session.warn(warnings)
    if args.only is None:
        inputs = stage.select(inputs, session.say)
    if args.shard is not None:
        whole = len(inputs.cases)
        spec, inputs = sharded(spec, inputs, *args.shard)
        index, count = args.shard
        session.say(f"shard {index}/{count}: {len(inputs.cases)} of {whole} case(s)")
    if args.dry_run:
        spec = stage.preflight(spec, calls=False)
        found = detectable(spec, inputs) if args.simulate else None
        if args.simulate and found is None:
            session.warn([f"not simulated: over {SIMULATION_LIMIT:,} calls in the first round"])
        cost = stage.estimate(spec, inputs, count=True)
        session.out.print(render_plan(spec, stage, inputs, cost, found, args.verbose))
        session.show(settings_table(settings, args.verbose))
        return 0
    spec = stage.preflight(spec)
    with open_store(args) as store:
        outcome = run_trials(session, stage, spec, inputs, store)
    stage.remember(outcome)
    report = build_report(
        outcome,
        __version__,
        tuple(warnings),
        rerun=rerun_args(args, argv),
        notice=stage.notice(spec),
    )
    session.show(render_report(report, args.show))
    session.write_report(report)
    write_outputs(session, report, outputs)
    return report.exit_code
