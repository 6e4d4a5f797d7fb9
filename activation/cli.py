"""The `activation` command: validate everything, run the trials, judge, report, gate."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from activation.arguments import OneLineParser, add_run_arguments, settings_from
from activation.calibrate import main_calibrate
from activation.cases import parse_only
from activation.detect_command import main_detect
from activation.errors import AuthError, InputError
from activation.lint import main_lint
from activation.plan import Plan, render_plan
from activation.render import render_outcome
from activation.report import report_data, write_report
from activation.run import execute, load_inputs, prepare, run_info, stage_b_selection
from activation.terminal import consoles, run_warnings, warn


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="activation",
        description="Compare two versions of a skill description on a labelled case matrix "
        "and fail when the candidate makes the skill fire on fewer right prompts or more "
        "wrong ones. Subcommands: detect, lint, calibrate (activation SUBCOMMAND --help).",
    )
    parser.add_argument("--baseline", default="git:HEAD", help="git:<ref> or a path (git:HEAD)")
    parser.add_argument("--candidate", help="git:<ref> or a path (the working-tree SKILL.md)")
    parser.add_argument("--only", type=parse_only, help="comma-separated case ids")
    parser.add_argument("--dry-run", action="store_true", help="validate and plan; no model call")
    add_run_arguments(parser)
    return parser


def rerun_args(args: argparse.Namespace, argv: Sequence[str]) -> list[str]:
    """The flags worth repeating in the suggested `--real` command."""
    keep = ("--baseline", "--candidate", "--repo", "--skill-path", "--cases", "--trials", "--alpha")
    repeated: list[str] = []
    for flag in keep:
        if any(item == flag or item.startswith(flag + "=") for item in argv):
            repeated += [flag, str(getattr(args, flag[2:].replace("-", "_")))]
    return repeated


def run_main(argv: Sequence[str], out: Console, err: Console) -> int:
    args = build_parser().parse_args(argv)
    settings = settings_from(args)
    inputs = load_inputs(
        Path.cwd(),
        repo=args.repo,
        skill_path=args.skill_path,
        cases=args.cases,
        distractors=args.distractors,
        baseline=args.baseline,
        candidate=args.candidate,
        only=args.only,
    )
    warn(err, run_warnings(inputs, settings))
    if settings.stage == "B" and args.only is None:
        inputs = stage_b_selection(inputs, err)
    if args.dry_run:
        if settings.stage == "B":
            prepare(settings, need_credentials=False)
        distractors = tuple(skill.name for skill in inputs.distractors)
        out.print(render_plan(Plan(run_info(settings, inputs), inputs.cases, distractors)))
        return 0
    prepare(settings)
    outcome = execute(settings, inputs, err)
    if args.json:
        write_report(args.json, report_data(outcome))
    out.print(render_outcome(outcome, rerun_args(args, argv)))
    return outcome.exit_code


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "lint": main_lint,
    "detect": main_detect,
    "calibrate": main_calibrate,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    out, err = consoles()
    try:
        return run_main(argv, out, err)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    except (InputError, AuthError) as error:
        err.print(f"activation: error: {error}", markup=False, soft_wrap=True)
        return 2
