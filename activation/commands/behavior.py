"""`activation behavior`: Stage C, the gate for edits to a skill's body.

The same run as the main command's (cells, shards, cost ceiling, cache, every output), on a
behavior suite instead of a cases file, with the agent at work in its workspace and the
controls beside the two variants.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from activation._errors import InputError
from activation._models import CONTROLS, AgentSettings, Arm, RunSpec
from activation.commands.config import parse_settings
from activation.commands.flags import BEHAVIOR
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation.commands.runner import Stages
    from activation.trials.stage import Stage

SUITE = Path("evals")
"""Where the suite is looked for, at the repo root, when `--suite` is not given."""


def main_behavior(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_settings(BEHAVIOR, argv)
    from activation.commands.outputs import chosen_outputs, write_outputs
    from activation.commands.run import run_and_report, shard_cells, show_plan
    from activation.inputs.behavior_load import load_behavior_inputs
    from activation.inputs.load import git_root
    from activation.trials.stage import stage_named

    session.adopt(args.debug, args.json)
    outputs = chosen_outputs(args, os.environ)
    stage = stages["C"] if stages and "C" in stages else stage_named("C")
    specs = behavior_cells(args, stage)
    cwd = Path.cwd()
    suite = args.suite or (args.repo or git_root(cwd)) / SUITE
    if args.suite is None and not suite.is_dir():
        raise InputError(f"no behavior suite: {suite} does not exist (pass --suite PATH)")
    inputs = load_behavior_inputs(
        cwd,
        suite,
        repo=args.repo,
        skill_path=args.skill_path,
        baseline=args.baseline,
        candidate=args.candidate,
        only=args.only,
        catalog=args.catalog,
    )
    cells = shard_cells(session, args, specs, inputs)
    if args.dry_run:
        return show_plan(session, stage, cells, settings)
    cells = [(stage.preflight(spec), inputs) for spec, inputs in cells]
    report = run_and_report(session, args, argv, stage, cells, ())
    from activation.report.formats import terminal_view

    session.show(terminal_view(report, args.show))
    session.write_report(report)
    write_outputs(session, report, outputs)
    return report.exit_code


def arms_of(args: argparse.Namespace) -> tuple[Arm, ...]:
    """The controls the flags ask for, in the order given."""
    if args.no_control:
        return ()
    unknown = [arm for arm in args.arm if arm not in CONTROLS]
    if unknown:
        raise InputError(f"--arm {','.join(unknown)}: choose from {', '.join(CONTROLS)}")
    return tuple(arm for arm in CONTROLS if arm in args.arm)


def behavior_cells(args: argparse.Namespace, stage: Stage) -> tuple[RunSpec, ...]:
    """One spec per cell (each agent with each model), with Stage C's own defaults."""
    from activation.commands.runner import ceiling_priced, executables
    from activation.inputs.load import load_pricing

    if args.max_trials < args.trials:
        raise InputError(
            f"--max-trials {args.max_trials} is below --trials {args.trials}: "
            "escalation cannot run fewer trials than the first round"
        )
    keep = str(args.keep_workspaces.resolve()) if args.keep_workspaces else None
    asked = RunSpec(
        stage="C",
        trials=args.trials,
        max_trials=args.max_trials,
        alpha=args.alpha,
        seed=args.seed,
        concurrency=args.concurrency,
        agent=AgentSettings(
            args.max_turns, args.timeout, keep_workspaces=keep, executables=executables(args)
        ),
        pricing=load_pricing(args.price_in, args.price_out),
        max_cost_usd=args.max_cost_usd,
        fail_on=(args.fail_on,) if args.fail_on else (),
        arms=arms_of(args),
        invoke=args.invoke,
        judge_model=args.judge_model,
    )
    cells = tuple(
        stage.configure(replace(asked, coding_agent=agent, model=model))
        for agent in args.agent
        for model in args.model or (None,)
    )
    ceiling_priced(cells)
    return cells
