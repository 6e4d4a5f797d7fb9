"""`activation behavior`: Stage C, the gate for edits to a skill's body.

The same run as the main command's (cells, shards, cost ceiling, cache, every output), on a
behavior suite instead of a cases file, with the agent at work in its workspace and the
controls beside the two variants.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from activation._behavior import BehaviorCase, BehaviorRunInputs, BehaviorSuite
from activation._config import COST_MARGIN, MIN_COVERAGE
from activation._errors import InputError
from activation._models import CONTROLS, AgentSettings, Arm, BehaviorOptions, RunSpec
from activation.commands.flags import BEHAVIOR
from activation.commands.requests import (
    BehaviorInputs,
    BehaviorRequest,
    BehaviorTrials,
    parse_request,
)
from activation.commands.session import Session

if TYPE_CHECKING:
    from activation._models import Setting
    from activation.commands.run import StageRun
    from activation.commands.runner import Stages
    from activation.report.matrix import Matrix
    from activation.trials.stage import Stage

SUITE = Path("evals")
"""Where the suite is looked for last, at the repo root, when `--suite` is not given."""


def main_behavior(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, settings = parse_request("behavior", BehaviorRequest, argv)
    from activation.commands.run import rerun_words

    report = run_behavior(session, args, stages, settings, rerun_words(BEHAVIOR, argv))
    return 0 if report is None else report.exit_code


def run_behavior(
    session: Session,
    args: BehaviorRequest,
    stages: Stages | None,
    settings: Sequence[Setting] = (),
    rerun: tuple[str, ...] = (),
) -> Matrix | None:
    """`activation behavior` on a request, from the command line or from Python: the run
    pipeline on Stage C's run, its report, or None for a dry run; `settings` are what a dry
    run shows, `rerun` the command that checks it again."""
    from activation.commands.outputs import chosen_outputs
    from activation.commands.run import PlanAsked, run_stage

    session.adopt(args.debug, args.json, full_record=args.full_record)
    if args.verbose and not args.dry_run:
        raise InputError("--verbose goes with --dry-run")
    outputs = chosen_outputs(args.files, args.no_summary, os.environ)
    run = behavior_run(session, args, stages)
    return run_stage(session, args, run, outputs, settings, rerun, PlanAsked(verbose=args.verbose))


def behavior_run(session: Session, args: BehaviorRequest, stages: Stages | None) -> StageRun:
    """Stage C's run as `behavior`'s flags ask for it: the suite's graded cases, the
    warnings about them said, and a cell per agent and model with the controls asked for."""
    from activation.commands.run import StageRun
    from activation.inputs.lint import unread_warning
    from activation.inputs.load import skipped_warning
    from activation.inputs.variants import skipped_warnings
    from activation.trials.behavior.judge import own_model_warnings

    stage = stage_c(stages)
    inputs, loaded = graded_suite(session, args, (args.baseline, args.candidate), args.catalog)
    session.warn(skipped_warnings((inputs.baseline, inputs.candidate)))
    session.warn(unread_warning(inputs.cases, loaded.source))
    session.warn(skipped_warning(Path(loaded.source), loaded.skipped))
    specs = behavior_cells(args, stage, inputs.cases, args.arm, args.no_control, args.fail_on,
                           args.min_coverage, pass_k=args.pass_k, cost_margin=args.cost_margin,
                           suite=Path(loaded.source))  # fmt: skip
    session.warn(own_model_warnings(args.judge_model, (spec.model for spec in specs)))
    return StageRun(stage, specs, inputs)


def graded_suite(
    session: Session,
    args: BehaviorInputs,
    specs: tuple[str | None, str | None] | None,
    catalog: Path | None = None,
) -> tuple[BehaviorRunInputs, BehaviorSuite]:
    """The suite the flags name (`suite_of`) and the skill at each of `specs` (baseline,
    candidate; None: the candidate alone on both sides), as `behavior` and `calibrate
    --behavior` read them: refused when a case is unsound, and named when the run chose the
    suite itself."""
    from activation.inputs.load import load_behavior_inputs, load_behavior_suite

    cwd = Path.cwd()
    suite = suite_of(args, cwd)
    loaded = load_behavior_suite(suite)
    baseline, candidate = specs or (None, None)
    inputs = load_behavior_inputs(cwd, loaded, repo=args.repo, skill_path=args.skill_path,
                                  only=args.only, baseline=baseline, candidate=candidate,
                                  catalog=catalog, alone=specs is None)  # fmt: skip
    refuse_unsound(inputs.cases, suite)
    say_suite(session, args, suite, cwd)
    return inputs, loaded


def stage_c(stages: Stages | None) -> Stage:
    """Stage C (the `stages` given replace the registry's, by name)."""
    from activation.trials.stage import stage_named

    return stages["C"] if stages and "C" in stages else stage_named("C")


def suite_of(args: BehaviorInputs, cwd: Path) -> Path:
    """`--suite`, else the skill's suite as `changed` finds it: `--skill-path`'s own
    `evals/`, else `evals/<its folder's name>/` at the repo root, else its plugin's `evals/`
    (skill-creator's suite beside the plugin's `skills/`) unless that holds Claude Code's
    plugin-eval cases, else the repo's `evals/`."""
    if args.suite is not None:
        return args.suite
    from activation.inputs.load import git_root, relative_skill_path
    from activation.inputs.plugin_eval import plugin_evals as plugins_evals
    from activation.inputs.repo_cases import eval_places
    from activation.inputs.target import SKILL_FILE_NAME

    repo = args.repo or git_root(cwd)
    places = [SUITE]
    plugin_evals = ""
    if args.skill_path is not None:
        skill = relative_skill_path(repo, args.skill_path)
        folder = skill.parent if skill.name == SKILL_FILE_NAME else skill
        plugin_evals = _plugin_evals(repo, folder)
        beside = [] if plugin_evals else [Path(plugins_evals(folder.parent.as_posix()))]
        places = [*(Path(p) for p in eval_places(folder.as_posix())), *beside, SUITE]
    suite = next((repo / place for place in places if (repo / place).is_dir()), None)
    if suite is None:
        looked = list(dict.fromkeys(str(repo / place) for place in places))
        missing = (
            f"{looked[0]} does not exist"
            if len(looked) == 1
            else f"none of {', '.join(looked)} exists"
        )
        hint = _skills_with_suites(repo) if args.skill_path is None else ""
        raise InputError(f"no behavior suite: {missing} (pass --suite PATH){hint}{plugin_evals}")
    return suite


def _skills_with_suites(repo: Path) -> str:
    """Where the repo's skills keep suites of their own, when the command was not told
    which skill: the `--skill-path` that finds each (none: nothing to add)."""
    from activation.inputs.load import find_skill_files
    from activation.inputs.repo_cases import eval_places

    owned = [
        path.parent.as_posix()
        for path in find_skill_files(repo)
        if any((repo / place).is_dir() for place in eval_places(path.parent.as_posix()))
    ]
    if not owned:
        return ""
    shown = ", ".join(f"--skill-path {folder}" for folder in owned[:3])
    more = f" (and {len(owned) - 3} more)" if len(owned) > 3 else ""
    return f"; skills with a suite of their own: {shown}{more}"


def _plugin_evals(repo: Path, skill_folder: Path) -> str:
    """What the skill's plugin's `evals/` holds, when it is Claude Code's plugin-eval cases,
    which no run reads: said, so a missing suite is not taken for a missing PROMPT.md."""
    from activation.inputs.plugin_eval import plugin_evals, why_none

    folder = plugin_evals(skill_folder.parent.as_posix())
    return why_none(repo / folder, f"{folder}/") if folder else ""


def say_suite(session: Session, args: BehaviorInputs, suite: Path, cwd: Path) -> None:
    """Name the suite a run chose itself, once it has read it, when it is a skill's own
    rather than the repo's `evals/`."""
    from activation.inputs.load import git_root

    if args.suite is None and suite != (args.repo or git_root(cwd)) / SUITE:
        session.say(f"behavior suite: {suite} (pass --suite PATH for another)")


def refuse_unsound(cases: Sequence[BehaviorCase], suite: Path) -> None:
    """A case `lint` finds an error in would measure nothing (a grader that passes on the
    scaffold, a case that can never pass): one line, before any agent run."""
    from activation.inputs.lint import lint_behavior
    from activation.trials.behavior.scaffold_lint import scaffold_findings

    errors = [f for f in (*lint_behavior(cases), *scaffold_findings(cases)) if f.level == "error"]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InputError(
            f"{suite}: case {first.case_id}: {first.message}{more}; "
            f"see activation lint --behavior {suite}"
        )


def arms_of(
    arm: tuple[str, ...] | None, no_control: bool, cases: Sequence[BehaviorCase]
) -> tuple[Arm, ...]:
    """The controls `--arm` and `--no-control` ask for; by default `none`, and `llm` when a
    case has a system prompt for it (the seeds' baseline mode)."""
    if no_control:
        if arm is not None:
            raise InputError("--no-control runs no control arm: leave out --arm")
        return ()
    asked = arm or ("none", *(("llm",) if any(case.system for case in cases) else ()))
    unknown = [arm for arm in asked if arm not in CONTROLS]
    if unknown:
        raise InputError(f"--arm {','.join(unknown)}: choose from {', '.join(CONTROLS)}")
    return tuple(arm for arm in CONTROLS if arm in asked)


def behavior_cells(
    args: BehaviorTrials,
    stage: Stage,
    cases: Sequence[BehaviorCase],
    arm: tuple[str, ...] | None,
    no_control: bool,
    fail_on: str | None,
    min_coverage: float = MIN_COVERAGE,
    *,
    pass_k: int | None = None,
    cost_margin: float = COST_MARGIN,
    suite: Path,
) -> tuple[RunSpec, ...]:
    """One spec per cell (each agent with each model), with Stage C's own defaults, the
    controls `--arm` and `--no-control` ask for, the status `--fail-on` adds and the k and
    cost margin its figures use; in docker, on the image of the `suite`'s own Dockerfile
    when it has one."""
    from activation.commands.runner import cells_of, check_escalation
    from activation.inputs.load import load_pricing
    from activation.trials.agent.sandbox_docker import suite_image
    from activation.trials.behavior.stage import check_shell, check_turns

    check_escalation(args.trials, args.max_trials)
    keep = str(args.keep_workspaces.resolve()) if args.keep_workspaces else None
    asked = RunSpec(
        stage="C",
        trials=args.trials,
        max_trials=args.max_trials,
        alpha=args.alpha,
        seed=args.seed,
        concurrency=args.concurrency,
        agent=AgentSettings(
            args.max_turns,
            args.timeout,
            sandbox=args.sandbox,
            canary=not args.no_canary,
            image=suite_image(suite, args.sandbox, args.image),
            executor=args.executor,
            executables=dict(args.executables),
        ),
        pricing=load_pricing(args.price_in, args.price_out),
        max_cost_usd=args.max_cost_usd,
        fail_on=(fail_on,) if fail_on else (),
        min_coverage=min_coverage,
        behavior=BehaviorOptions(
            arms=arms_of(arm, no_control, cases),
            invoke=args.invoke,
            judge_model=args.judge_model,
            judge_samples=args.judge_samples,
            pass_k=pass_k,
            cost_margin=cost_margin,
            keep_workspaces=keep,
        ),
    )
    cells = cells_of(asked, stage, args)
    for cell in cells:
        check_shell(cell, cases)
        check_turns(cell, cases)
    return cells
