"""The `activation` command: validate everything, run the trials, judge, report, gate."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anthropic
import anyio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from activation import state
from activation.arguments import OneLineParser, positive_int, probability
from activation.cases import Case, load_cases, parse_only, select
from activation.classifier import DEFAULT_MODEL, Classifier, ClassifierConfig
from activation.distractors import BUNDLED_CASES, BUNDLED_DISTRACTORS, Skill, load_distractors
from activation.errors import AuthError, InputError
from activation.lint import main_lint
from activation.menu import MenuEntry
from activation.plan import Plan, render_plan
from activation.render import render_outcome
from activation.report import (
    RunInfo,
    RunOutcome,
    VariantInfo,
    flagged_ids,
    report_data,
    write_report,
)
from activation.scheduler import TrialRunner, run_trials, trial_keys
from activation.target import Target, resolve_target
from activation.trial import Trial
from activation.variants import Variant, description_warnings, resolve_variant, working_tree_spec
from activation.verdicts import judge_all

MAX_RETRIES = 4
REQUEST_TIMEOUT = 180.0
LOG_WIDTH = 160
"""Output to a file or a CI log is not wrapped at rich's default of 80 columns."""


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags every subcommand that reads a skill shares."""
    parser.add_argument("--repo", type=Path, help="target repo (default: git root of the cwd)")
    parser.add_argument(
        "--skill-path",
        help="SKILL.md relative to the repo (default: plugins/auth0/skills/auth0/SKILL.md, "
        "or the only SKILL.md under plugins/)",
    )
    parser.add_argument("--cases", type=Path, help="cases file (default: the bundled suite)")
    parser.add_argument("--distractors", type=Path, help="distractor skills folder")
    parser.add_argument("--trials", type=positive_int, default=3, help="trials per case (3)")
    parser.add_argument("--model", help=f"model id (Stage A default {DEFAULT_MODEL})")
    parser.add_argument("--seed", type=int, default=0, help="menu shuffle seed (0)")
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance (0.05)")
    parser.add_argument("--concurrency", type=positive_int, help="parallel calls (A: 8, B: 4)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the JSON report")
    parser.add_argument("--real", action="store_true", help="Stage B: the real Claude Code CLI")
    parser.add_argument("--claude", default="claude", help="Claude Code executable (Stage B)")
    parser.add_argument("--max-turns", type=positive_int, default=8, help="Stage B (8)")
    parser.add_argument("--timeout", type=float, default=300.0, help="Stage B seconds/run (300)")


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
    add_target_arguments(parser)
    return parser


@dataclass(frozen=True)
class Inputs:
    """Everything a run needs, validated before the first call."""

    target: Target
    cases: tuple[Case, ...]
    distractors: tuple[Skill, ...]
    baseline: Variant
    candidate: Variant


def load_inputs(args: argparse.Namespace, cwd: Path) -> Inputs:
    target = resolve_target(args.repo, args.skill_path, cwd)
    cases = load_cases(args.cases or BUNDLED_CASES)
    if args.only is not None:
        if not args.only:
            raise InputError("--only names no case id")
        cases = select(cases, args.only)
    distractors = load_distractors(args.distractors or BUNDLED_DISTRACTORS)
    if any(skill.name == target.skill_id for skill in distractors):
        raise InputError(f"a distractor is named {target.skill_id}, like the target skill")
    baseline = resolve_variant(args.baseline, target, cwd)
    candidate = resolve_variant(args.candidate or working_tree_spec(target), target, cwd)
    return Inputs(target, cases, distractors, baseline, candidate)


def variant_info(variant: Variant) -> VariantInfo:
    return VariantInfo(variant.spec, variant.description, variant.source)


def require_api_key() -> None:
    if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
        raise InputError("no API key: set ANTHROPIC_API_KEY (--dry-run needs none)")


def rerun_args(args: argparse.Namespace, argv: Sequence[str]) -> list[str]:
    """The flags worth repeating in the suggested `--real` command."""
    keep = ("--baseline", "--candidate", "--repo", "--skill-path", "--cases", "--trials")
    repeated: list[str] = []
    for flag in keep:
        if any(item == flag or item.startswith(flag + "=") for item in argv):
            value = getattr(args, flag[2:].replace("-", "_"))
            repeated += [flag, str(value)]
    return repeated


class Reporter:
    """The live progress bar: done/total and errors so far, on stderr."""

    def __init__(self, console: Console, total: int, label: str) -> None:
        self.trials: list[Trial] = []
        self.errors = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors: {task.fields[errors]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self._progress.add_task(label, total=total, errors=0)

    def __enter__(self) -> Reporter:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, trial: Trial) -> None:
        self.trials.append(trial)
        self.errors += trial.is_error
        self._progress.update(self._task, advance=1, errors=self.errors)


def run_stage(
    runner: TrialRunner,
    cases: Sequence[Case],
    trials: int,
    concurrency: int,
    console: Console,
    label: str,
) -> tuple[list[Trial], bool]:
    """Run the matrix; on Ctrl-C return what finished and `interrupted=True`."""
    keys = trial_keys(cases, trials)

    async def go(reporter: Reporter) -> None:
        await run_trials(keys, runner, anyio.CapacityLimiter(concurrency), reporter)

    with Reporter(console, len(keys), label) as reporter:
        try:
            anyio.run(go, reporter)
        except KeyboardInterrupt:
            return reporter.trials, True
    return reporter.trials, False


def classifier_runner(args: argparse.Namespace, inputs: Inputs) -> Callable[[], TrialRunner]:
    def make() -> TrialRunner:
        client = anthropic.AsyncAnthropic(max_retries=MAX_RETRIES, timeout=REQUEST_TIMEOUT)
        config = ClassifierConfig(
            model=args.model or DEFAULT_MODEL,
            seed=args.seed,
            target_id=inputs.target.skill_id,
            descriptions={
                "baseline": inputs.baseline.description,
                "candidate": inputs.candidate.description,
            },
            distractors=tuple(MenuEntry(s.name, s.description) for s in inputs.distractors),
        )
        return Classifier(client, config)

    return make


def run_main(argv: Sequence[str], out: Console, err: Console) -> int:
    args = build_parser().parse_args(argv)
    inputs = load_inputs(args, Path.cwd())
    for variant in (inputs.baseline, inputs.candidate):
        for warning in description_warnings(variant):
            err.print(f"warning: {warning}", style="yellow", soft_wrap=True)
    stage = "B" if args.real else "A"
    model = args.model or (DEFAULT_MODEL if stage == "A" else None)
    info = RunInfo(
        stage=stage,
        model=model,
        trials=args.trials,
        alpha=args.alpha,
        seed=args.seed,
        skill_id=inputs.target.skill_id,
        skill_path=inputs.target.skill_path.as_posix(),
        baseline=variant_info(inputs.baseline),
        candidate=variant_info(inputs.candidate),
    )
    if args.dry_run:
        plan = Plan(
            stage, info.skill_id, inputs.cases, info.baseline, info.candidate, args.trials, model
        )
        out.print(render_plan(plan), highlight=False)
        return 0
    require_api_key()
    runner = classifier_runner(args, inputs)()
    trials, interrupted = run_stage(
        runner, inputs.cases, args.trials, args.concurrency or 8, err, "Stage A trials"
    )
    verdicts = judge_all(inputs.cases, trials, args.alpha)
    outcome = RunOutcome(info, verdicts, tuple(trials), interrupted)
    if not interrupted:
        key = state.pair_key(info.skill_id, info.baseline.description, info.candidate.description)
        state.record_flagged(inputs.target.repo, key, flagged_ids(verdicts), model)
    if args.json:
        write_report(args.json, report_data(outcome))
    out.print(render_outcome(outcome, rerun_args(args, argv)), highlight=False)
    return outcome.exit_code


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {"lint": main_lint}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    out = Console(highlight=False, width=None if sys.stdout.isatty() else LOG_WIDTH)
    err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else LOG_WIDTH)
    try:
        return run_main(argv, out, err)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    except (InputError, AuthError) as error:
        err.print(f"activation: error: {error}", markup=False, soft_wrap=True)
        return 2
