"""The main command: compare two descriptions on the case matrix and gate on the result.

Only the flags are imported before the arguments are parsed: `--help`, `--version` and a
bad flag never load the engine, the report or the renderers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from activation import __version__
from activation._errors import InputError
from activation.commands.flags import RUN, Command
from activation.commands.requests import RunRequest, TargetRequest, parse_request
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation._models import AnyInputs, Inputs, RunSpec, Setting, Trial
    from activation.commands.outputs import Outputs
    from activation.commands.requests import BehaviorRequest, CacheRequest
    from activation.commands.runner import Stages
    from activation.report.matrix import Matrix
    from activation.trials.stage import Stage

NOT_REPEATED = frozenset(
    {"--junit", "--markdown", "--html", "--no-summary", "--show", "--debug", "--full-record",
     "--dry-run", "--simulate", "--verbose", "--show-listing", "--resume", "--keep-workspaces",
     "--shard", "--durations"}
)  # fmt: skip
"""The flags that change no verdict, which a suggested command leaves out (`--json` stays:
the report it saves is what `--only-from` reads back), and `--shard` (with its
`--durations`): the check is the whole run, which `merge` puts together."""


def rerun_words(command: Command, argv: Sequence[str]) -> tuple[str, ...]:
    """The words after `activation` that run this check again: the command's own (`changed`,
    `behavior`), then every flag of `argv` that chose what ran, as `--flag value`, in the
    user's order (settings from a file are read again)."""
    options = {flag.name: flag for flag in command.flags if not flag.positional}
    words = list(command.prog.split()[1:])
    given = list(argv)
    for at, item in enumerate(given):
        name, equals, value = item.partition("=")
        if not name.startswith("--"):
            continue
        flag = options.get(name) or next(  # argparse takes a flag's unambiguous prefix
            (flag for known, flag in options.items() if known.startswith(name)), None
        )
        if flag is None:
            continue
        following = given[at + 1] if at + 1 < len(given) else ""
        if flag.takes_value and not equals:
            value = "" if flag.optional_value and following.startswith("-") else following
        if flag.name not in NOT_REPEATED:
            words += [flag.name, value] if flag.takes_value else [flag.name]
    return tuple(words)


@dataclass(frozen=True)
class StageRun:
    """What the one run pipeline runs, as the stage's command read it: the stage, a spec per
    cell, the inputs, and the warnings the report keeps (those the command said)."""

    stage: Stage
    specs: tuple[RunSpec, ...]
    inputs: AnyInputs
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanAsked:
    """What a dry run shows besides the plan (the main command's flags)."""

    simulate: bool = False
    verbose: bool = False
    show_listing: bool = False


def main_run(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_request("run", RunRequest, argv)
    from activation.commands.outputs import chosen_outputs
    from activation.commands.runner import only_of

    session.adopt(args.debug, args.json, full_record=args.full_record)
    args = replace(args, only=only_of(args.only, args.only_from))
    asked = PlanAsked(args.simulate, args.verbose, args.show_listing)
    for flag, given in vars(asked).items():
        if given and not args.dry_run:
            raise InputError(f"--{flag.replace('_', '-')} goes with --dry-run")
    outputs = chosen_outputs(args.files, args.no_summary, os.environ)
    run = trigger_run(session, args, stages)
    report = run_stage(session, args, run, outputs, settings, rerun_words(RUN, argv), asked)
    return 0 if report is None else report.exit_code


def trigger_run(session: Session, args: RunRequest, stages: Stages | None) -> StageRun:
    """Stage A's or B's run as the main command's flags ask for it: its cells, the cases
    (the repo's own when `--cases` is not given; the stage's pick when `--only` is not),
    the warnings about them said."""
    from activation.commands.runner import cells_from, inputs_from, stage_of

    stage = stage_of(args, stages)
    specs = cells_from(args, stage)
    if args.cases is None:
        args = replace(args, cases=own_cases(session, args))
    inputs = inputs_from(args, Path.cwd(), args.candidate, args.baseline)
    warnings = run_warnings(specs, inputs, bundled_cases=args.cases is None)
    session.warn(warnings)
    if args.only is None:
        inputs = stage.select(inputs, session.say)
    return StageRun(stage, specs, inputs, tuple(warnings))


def run_stage(
    session: Session,
    args: RunRequest | BehaviorRequest,
    run: StageRun,
    outputs: Outputs,
    settings: Sequence[Setting],
    rerun: tuple[str, ...],
    asked: PlanAsked = PlanAsked(),
) -> Matrix | None:
    """The one run pipeline, whatever the stage: this process's cells (`--shard`'s share),
    their plan for a dry run (None), else their trials, reported and written."""
    from activation.commands.outputs import against_base, write_outputs

    against = against_base(session, args.against)
    cells = shard_cells(session, args, run.specs, run.inputs)
    if args.dry_run:
        show_plan(session, run.stage, cells, settings, asked.simulate, asked.verbose,
                  asked.show_listing)  # fmt: skip
        return None
    from activation.commands.runner import resumed

    kept = resumed(session, args.resume, cells, run.inputs)
    cells = [(run.stage.preflight(spec), inputs) for spec, inputs in cells]
    report = against(run_and_report(session, args, rerun, run.stage, cells, run.warnings, kept))
    from activation.report.formats import terminal_view

    session.show(terminal_view(report, args.show))
    session.write_report(report)
    write_outputs(session, report, outputs)
    return report


def own_cases(session: Session, args: TargetRequest) -> list[Path] | None:
    """With no `--cases`, the repo's own case files about the skill measured, said with
    where they were looked for (None: none found, the bundled suite)."""
    from activation.inputs.load import explicit_repo, git_root
    from activation.inputs.repo_cases import cases_for_run

    cwd = Path.cwd()
    try:
        repo = git_root(cwd) if args.repo is None else explicit_repo(args.repo, cwd)
    except InputError:
        return None  # the target's own error comes when the inputs are read
    chosen = cases_for_run(repo, args.skill_path)
    if chosen.lines:
        session.say("\n".join(chosen.lines))
    return list(chosen.files) or None


def run_warnings(specs: Sequence[RunSpec], inputs: Inputs, bundled_cases: bool) -> list[str]:
    """Every cell's warnings about its inputs, each said once; one that holds in some
    cells only (a listing that cuts the entry) names them."""
    from activation.inputs.load import nested_warnings
    from activation.report.plan import run_warnings as cell_warnings

    found = {spec.cell: cell_warnings(spec, inputs, bundled_cases) for spec in specs}
    said: dict[str, list[str]] = {}
    for cell, warnings in found.items():
        for warning in warnings:
            said.setdefault(warning, []).append(cell)
    return [
        warning if len(cells) == len(specs) else f"{warning} (in {', '.join(cells)})"
        for warning, cells in said.items()
    ] + nested_warnings(inputs.target)


def shard_cells(
    session: Session,
    args: RunRequest | BehaviorRequest,
    specs: Sequence[RunSpec],
    inputs: AnyInputs,
) -> list[tuple[RunSpec, AnyInputs]]:
    """The cells this process runs: every cell on every case, or `--shard`'s share (planned
    by `--durations` when given)."""
    from activation.commands.runner import durations_in, sharded_cells

    if args.shard is None:
        if args.durations is not None:
            raise InputError("--durations plans the shards of --shard I/N: pass --shard too")
        return [(spec, inputs) for spec in specs]
    index, count = args.shard
    durations = None if args.durations is None else durations_in(args.durations, len(specs) > 1)
    cells = sharded_cells(specs, inputs, index, count, durations)
    pairs = sum(len(cell_inputs.cases) for _spec, cell_inputs in cells)
    planned = "" if durations is None else f", planned by the durations in {args.durations}"
    session.say(
        f"shard {index}/{count}: {pairs} of {len(inputs.cases) * len(specs)} (case, cell) "
        f"pair(s){planned}"
    )
    return cells


def show_plan(
    session: Session,
    stage: Stage,
    cells: Sequence[tuple[RunSpec, AnyInputs]],
    settings: Sequence[Setting],
    simulate: bool = False,
    verbose: bool = False,
    show_listing: bool = False,
) -> int:
    """What a dry run shows: each cell's plan (`show_listing`: and the listing its model
    would see), and the whole run's cost over its cells; built in one pass, then drawn."""
    from activation.commands.plan import draw_run_plan, plan_cells
    from activation.report.dry_run import RunPlan

    planned = plan_cells(stage, cells, simulate=simulate, count=True)
    draw_run_plan(session, RunPlan(planned, tuple(settings), verbose, show_listing))
    return 0


def run_and_report(
    session: Session,
    args: CacheRequest,
    rerun: tuple[str, ...],
    stage: Stage,
    cells: Sequence[tuple[RunSpec, AnyInputs]],
    warnings: tuple[str, ...],
    kept: Sequence[Mapping[tuple[str, str, int], Trial]] = (),
) -> Matrix:
    """The cells' trials (less those `kept` from an interrupted run), remembered for the
    next run and reported as their matrix; `rerun` is the command that checks it again
    (`rerun_words`)."""
    from activation.commands.runner import open_store, run_cells
    from activation.report.matrix import build_matrix

    with open_store(args) as store:
        outcomes = run_cells(session, stage, cells, store, kept)
    stage.remember(outcomes)
    notices = [stage.notice(spec) for spec, _inputs in cells]
    return build_matrix(outcomes, __version__, warnings, rerun, notices)
