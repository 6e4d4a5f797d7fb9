"""The main command: compare two descriptions on the case matrix and gate on the result.

Only the flags are imported before the arguments are parsed: `--help`, `--version` and a
bad flag never load the engine, the report or the renderers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from activation import __version__
from activation._errors import InputError
from activation.commands.flags import RUN, Command
from activation.commands.requests import RunRequest, TargetRequest, parse_request
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation._models import Inputs, RunSpec, Setting
    from activation.commands.requests import CacheRequest
    from activation.commands.runner import Stages
    from activation.report.matrix import Matrix
    from activation.trials.stage import Stage

NOT_REPEATED = frozenset(
    {"--junit", "--markdown", "--html", "--no-summary", "--show", "--debug", "--full-record",
     "--dry-run", "--simulate", "--verbose", "--show-listing", "--resume", "--keep-workspaces",
     "--shard"}
)  # fmt: skip
"""The flags that change no verdict, which a suggested command leaves out (`--json` stays:
the report it saves is what `--only-from` reads back), and `--shard`: the check is the
whole run, which `merge` puts together."""


def rerun_words(command: Command, argv: Sequence[str]) -> tuple[str, ...]:
    """The words after `activation` that run this check again: the command's own (`changed`,
    `behavior`), then every flag of `argv` that chose what ran, as `--flag value`, in the
    user's order (settings from a file are read again)."""
    options = {flag.name: flag for flag in command.flags if not flag.positional}
    words = list(command.prog.split()[1:])
    given = iter(argv)
    for item in given:
        name, equals, value = item.partition("=")
        if not name.startswith("--"):
            continue
        flag = options.get(name) or next(  # argparse takes a flag's unambiguous prefix
            (flag for known, flag in options.items() if known.startswith(name)), None
        )
        if flag is None:
            continue
        if flag.takes_value and not equals:
            value = next(given, "")
        if flag.name not in NOT_REPEATED:
            words += [flag.name, value] if flag.takes_value else [flag.name]
    return tuple(words)


def main_run(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_request("run", RunRequest, argv)
    from activation.commands.outputs import chosen_outputs, write_outputs
    from activation.commands.runner import cells_from, inputs_from, only_of, stage_of

    session.adopt(args.debug, args.json, full_record=args.full_record)
    args = replace(args, only=only_of(args.only, args.only_from))
    dry_run_only = {
        "simulate": args.simulate,
        "verbose": args.verbose,
        "show_listing": args.show_listing,
    }
    for flag, given in dry_run_only.items():
        if given and not args.dry_run:
            raise InputError(f"--{flag.replace('_', '-')} goes with --dry-run")
    outputs = chosen_outputs(args.files, args.no_summary, os.environ)
    stage = stage_of(args, stages)
    specs = cells_from(args, stage)
    if args.cases is None:
        args = replace(args, cases=own_cases(session, args))
    inputs = inputs_from(args, Path.cwd(), args.candidate, args.baseline)
    warnings = run_warnings(specs, inputs, bundled_cases=args.cases is None)
    session.warn(warnings)
    if args.only is None:
        inputs = stage.select(inputs, session.say)
    cells = shard_cells(session, args.shard, specs, inputs)
    if args.dry_run:
        return show_plan(
            session, stage, cells, settings, args.simulate, args.verbose, args.show_listing
        )
    cells = [(stage.preflight(spec), inputs) for spec, inputs in cells]
    rerun = rerun_words(RUN, argv)
    report = run_and_report(session, args, rerun, stage, cells, tuple(warnings))
    from activation.report.formats import terminal_view

    session.show(terminal_view(report, args.show))
    session.write_report(report)
    write_outputs(session, report, outputs)
    return report.exit_code


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
    from activation.report.plan import run_warnings as cell_warnings

    found = {spec.cell: cell_warnings(spec, inputs, bundled_cases) for spec in specs}
    said: dict[str, list[str]] = {}
    for cell, warnings in found.items():
        for warning in warnings:
            said.setdefault(warning, []).append(cell)
    return [
        warning if len(cells) == len(specs) else f"{warning} (in {', '.join(cells)})"
        for warning, cells in said.items()
    ]


def shard_cells(
    session: Session,
    shard: tuple[int, int] | None,
    specs: Sequence[RunSpec],
    inputs: Inputs,
) -> list[tuple[RunSpec, Inputs]]:
    """The cells this process runs: every cell on every case, or `--shard`'s share."""
    from activation.commands.runner import sharded_cells

    if shard is None:
        return [(spec, inputs) for spec in specs]
    index, count = shard
    cells = sharded_cells(specs, inputs, index, count)
    pairs = sum(len(cell_inputs.cases) for _spec, cell_inputs in cells)
    session.say(
        f"shard {index}/{count}: {pairs} of {len(inputs.cases) * len(specs)} (case, cell) pair(s)"
    )
    return cells


def show_plan(
    session: Session,
    stage: Stage,
    cells: Sequence[tuple[RunSpec, Inputs]],
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
    cells: Sequence[tuple[RunSpec, Inputs]],
    warnings: tuple[str, ...],
) -> Matrix:
    """The cells' trials, remembered for the next run and reported as their matrix;
    `rerun` is the command that checks it again (`rerun_words`)."""
    from activation.commands.runner import open_store, run_cells
    from activation.report.matrix import build_matrix

    with open_store(args) as store:
        outcomes = run_cells(session, stage, cells, store)
    stage.remember(outcomes)
    notices = [stage.notice(spec) for spec, _inputs in cells]
    return build_matrix(outcomes, __version__, warnings, rerun, notices)
