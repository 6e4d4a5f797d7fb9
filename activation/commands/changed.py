"""`activation changed`: the pull request as the unit. What the change touched, per skill,
decides what runs: the activation gate for a changed listing (on the skill's cases and its
set's siblings'), the behavior suite for a changed body, "not tested" for a changed skill
with no cases, nothing at all when no skill changed.

The shell around the pure parts: git and the disk give the two versions (inputs/git_tree.py),
inputs/changes.py says what changed, inputs/change_plan.py what to run; each gate is the
main command's run or `activation behavior`'s, and report/changed.py puts them in one report.
Every input of every gate is read and checked before the first model call.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from activation import __version__
from activation._errors import InputError
from activation.commands.flags import CHANGED
from activation.commands.requests import (
    BehaviorRequest,
    ChangedRequest,
    RunRequest,
    carried,
    parse_request,
    request_for,
)
from activation.commands.session import Session, stop_record_of
from activation.inputs.cases import refuse_problems

if TYPE_CHECKING:
    from activation._models import AnyInputs, RunSpec
    from activation.commands.outputs import Outputs
    from activation.commands.runner import Stages
    from activation.inputs.change_plan import GateRun, Plan, Suites
    from activation.inputs.changes import SkillPlace, Tree
    from activation.inputs.repo_cases import RepoCases
    from activation.report.changed import ChangedReport
    from activation.report.dry_run import CellPlan, ChangedPlan
    from activation.report.matrix import Matrix
    from activation.trials.stage import Stage

WORKING_TREE = "the working tree"
AGENT_KEY = "; --judge-model mock spares the judge only: the agent runs for real, with its key"
"""What a behavior gate's agent needs whatever the mock stands in for."""
GATE_PRICE = (
    "the behavior gate runs it (--model sets the activation gates only): pass --price-in and "
    "--price-out"
)
GIT_REF = "a git ref (git:<branch>, git:<tag> or git:<commit>)"


@dataclass(frozen=True)
class Gate:
    """A planned gate, ready to run: its stage and its cells, every input read."""

    run: GateRun
    stage: Stage
    request: RunRequest | BehaviorRequest
    """The run the gate is: the main command's, or `activation behavior`'s."""
    cells: list[tuple[RunSpec, AnyInputs]]


def main_changed(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, _settings = parse_request("changed", ChangedRequest, argv)
    from activation.commands.run import rerun_words

    report = run_changed(session, args, stages, rerun_words(CHANGED, argv))
    return 0 if report is None else report.exit_code


def run_changed(
    session: Session, args: ChangedRequest, stages: Stages | None, rerun: tuple[str, ...] = ()
) -> ChangedReport | None:
    """`activation changed` on a request, from the command line or from Python: its
    report, or None for a dry run; `rerun` is the command that checks it again."""
    from activation.commands.changed_visibility import less_visible_sets
    from activation.commands.outputs import against_base, chosen_outputs
    from activation.commands.plan import draw_changed_plan
    from activation.commands.runner import only_of
    from activation.inputs.change_plan import plan_runs
    from activation.inputs.change_references import reference_breaks
    from activation.inputs.changes import skill_changes, skills_in, unloaded_lines
    from activation.inputs.load import explicit_repo, git_root
    from activation.inputs.variants import git_ref
    from activation.report.changed import CHANGED_SCHEMA

    session.adopt(args.debug, args.json, stop_record_of(CHANGED_SCHEMA))
    args = replace(args, only=only_of(args.only, args.only_from))
    outputs = chosen_outputs(args.files, args.no_summary, os.environ)
    against = against_base(session, args.against)
    cwd = Path.cwd()
    repo = git_root(cwd) if args.repo is None else explicit_repo(args.repo, cwd)
    base_ref = git_ref(args.base)
    if base_ref is None:
        from activation.inputs.git_tree import names_commit

        meant = names_commit(repo, args.base)
        raise InputError(f"--base {args.base}: pass " + (f"git:{args.base}" if meant else GIT_REF))
    head_ref = git_ref(args.head) if args.head else None
    if args.head and head_ref is None:
        raise InputError(f"--head {args.head}: pass {GIT_REF} (or leave it out)")
    head_name = args.head or WORKING_TREE
    base, head = read_versions(repo, args.base, base_ref, args.head, head_ref)
    changes = skill_changes(base, head, repo.name)
    session.warn(unloaded_lines(base, head))
    skills = skills_in(head, repo.name)
    suites, found = find_suites(repo, skills, args.cases)
    references = reference_breaks(changes, base, head, repo.name)
    plan = plan_runs(changes, skills, suites, found.cases, references)
    if plan.relevant:
        said = {f"  {item.note}" for item in plan.skills}  # a skill's own line says it once
        session.say("\n".join(line for line in found.lines(skills) if line not in said))
    else:
        session.say(f"no skill changed between {args.base} and {head_name}: nothing to run")
    session.warn(
        offline_model_lines(args.model, [r.place.id for r in plan.runs if r.kind == "behavior"])
    )
    hidden = less_visible_sets(repo, changes, args)
    prepared = [prepare(session, args, stages, repo, cwd, run) for run in plan.runs]
    gates = [gate for gate in prepared if gate is not None]
    if args.dry_run:
        planned = dry_run(plan, gates, args.base, head_name, args.allow_untested)
        draw_changed_plan(session, replace(planned, less_visible=hidden))
        return None
    runs = [(gate.run, against(run_gate(session, gate, rerun))) for gate in gates]
    from activation.report.changed import build_changed

    report = build_changed(
        plan, runs, __version__, args.base, head_name, args.allow_untested, hidden
    )
    finish(session, report, outputs)
    return report


def offline_model_lines(models: Sequence[str] | None, behavior: Sequence[str]) -> list[str]:
    """What `--model mock` does not stand in for: the agent of a behavior gate runs for real,
    at its own model and cost, so the mock's notice is not the whole truth of the run."""
    from activation.trials.providers import parse_model, provider_named

    offline = [m for m in models or () if provider_named(parse_model(m).provider).notice()]
    if not offline or not behavior:
        return []
    gates = "the behavior gates of " if len(behavior) > 1 else "the behavior gate of "
    verb = "run" if len(behavior) > 1 else "runs"
    return [
        f"--model {offline[0]} answers the activation gates only: {gates}"
        f"{', '.join(behavior)} {verb} the real agent CLI at its own model, at real cost "
        "(--dry-run plans them with no call)"
    ]


def read_versions(
    repo: Path, base_spec: str, base_ref: str, head_spec: str | None, head_ref: str | None
) -> tuple[Tree, Tree]:
    """The skill files at the base ref, and at the head ref or in the working tree."""
    from activation.inputs.git_tree import skill_files_at
    from activation.inputs.repo_cases import working_tree

    base = skill_files_at(repo, base_spec, base_ref)
    if head_spec is not None and head_ref is not None:
        return base, skill_files_at(repo, head_spec, head_ref)
    return base, working_tree(repo)


def find_suites(
    repo: Path, skills: Mapping[str, SkillPlace], given: Sequence[Path] | None
) -> tuple[dict[str, Suites], RepoCases]:
    """Each skill's suites (change_plan.find_suites), from the working tree's case files
    in every format (repo_cases.find_case_files) and the `--cases` given, each read for the
    skill it is about; and what the search found, to say where it looked."""
    from activation.inputs.change_plan import CasesFile
    from activation.inputs.change_plan import find_suites as match_suites
    from activation.inputs.repo_cases import expand, find_case_files, read_source

    found = find_case_files(repo, [place.folder for place in skills.values()])
    cases = list(found.cases)
    for path in expand(given or (), Path.cwd()):
        file = path.resolve()
        shown = file.relative_to(repo).as_posix() if file.is_relative_to(repo) else str(file)
        cases.append(CasesFile(shown, refuse_problems(read_source(file), str(path)).written_for))
    foreign = {suite.folder: suite.line for suite in found.foreign}
    foreign.update(_ignored_suites(repo, skills))
    unreadable = _unreadable_suites(repo, [*found.suites, *(file.path for file in found.behavior)])
    for suite, line in unreadable.items():
        foreign[suite if suite in found.suites else posixpath.dirname(suite)] = line
    suites = found.suites - set(unreadable)
    behavior = [file for file in found.behavior if file.path not in unreadable]
    return match_suites(skills, cases, suites, behavior, foreign, found.plugin_suites), found


def _unreadable_suites(repo: Path, suites: Sequence[str]) -> dict[str, str]:
    """The behavior suites that cannot be read (an input file its evals name is missing, a
    check in no shape read here), each with why: that skill's suite is "not tested" with
    the reason, and every other gate still runs."""
    from activation.inputs.load import load_behavior_suite

    unreadable = {}
    for suite in suites:
        try:
            load_behavior_suite(repo / suite)
        except InputError as error:
            unreadable[suite] = f"{suite}: not read: {str(error).replace(f'{repo}/', '')}"
    return unreadable


def _ignored_suites(repo: Path, skills: Mapping[str, SkillPlace]) -> dict[str, str]:
    """The folders where a skill's behavior suite would be that git ignores (obra/superpowers
    ignores `evals/`), each with why no gate reads it: never skipped without a word."""
    from activation.inputs.changes import EVALS_FOLDER
    from activation.inputs.git_tree import ignored_paths

    places = {
        folder
        for place in skills.values()
        for folder in (place.below(EVALS_FOLDER), f"{EVALS_FOLDER}/{place.name}", EVALS_FOLDER)
        if (repo / folder).is_dir()
    }
    return {
        folder: f"{folder}/ is git-ignored: its behavior suite is not part of the change"
        for folder in ignored_paths(repo, sorted(places))
    }


def prepare(
    session: Session,
    args: ChangedRequest,
    stages: Stages | None,
    repo: Path,
    cwd: Path,
    run: GateRun,
) -> Gate | None:
    """Read and check one gate's inputs and cells: an InputError here stops the command
    before any model call. None: `--only` names none of the gate's cases."""
    read = _activation if run.kind == "activation" else _behavior
    return read(_Command(session, args, stages, repo, cwd), run)


class _Command(NamedTuple):
    """What each gate of one `changed` command is read with."""

    session: Session
    args: ChangedRequest
    stages: Stages | None
    repo: Path
    cwd: Path


def _activation(command: _Command, run: GateRun) -> Gate | None:
    from activation.commands.run import run_warnings
    from activation.commands.runner import cells_from, inputs_from, stage_of
    from activation.inputs.repo_cases import load_given

    session, args, stages, repo, cwd = command
    cases = [repo / path for path in run.files or (run.suite,)]
    only = chosen(args.only, [case.id for case in load_given(cases, cwd).cases])
    if only == ():
        return None
    gate = activation_request(args, repo, run, only)
    stage = stage_of(gate, stages)
    specs = cells_from(gate, stage)
    inputs = inputs_from(gate, cwd, gate.candidate, gate.baseline)
    warnings = run_warnings(specs, inputs, bundled_cases=False)
    session.warn([f"{run.place.id}: {warning}" for warning in warnings])
    if only is None:
        try:
            inputs = stage.select(inputs, session.say)
        except InputError as error:  # Stage B: no spot check and nothing flagged here
            session.say(f"{run.place.id}: its activation gate is left out: {error}")
            return None
    if args.dry_run:
        return Gate(run, stage, gate, [(spec, inputs) for spec in specs])
    with keyed_for(run):
        return Gate(run, stage, gate, [(stage.preflight(spec), inputs) for spec in specs])


def activation_request(
    args: ChangedRequest, repo: Path, run: GateRun, only: tuple[str, ...] | None
) -> RunRequest:
    """The main command's request for an activation gate: `changed`'s flags (they are the
    main command's), on the gate's skill and cases, its versions the base and the head."""
    gate = {
        "repo": repo,
        "skill_path": run.place.path,
        "cases": [repo / path for path in run.files or (run.suite,)],
        "baseline": args.base,
        "candidate": args.head,
        "only": only,
    }
    return request_for("run", RunRequest, **{**carried(args, RunRequest), **gate})


def chosen(only: tuple[str, ...] | None, ids: Sequence[str]) -> tuple[str, ...] | None:
    """The ids of `only` a gate has (None: every case; empty: none of them)."""
    return None if only is None else tuple(id for id in ids if id in only)


def behavior_request(args: ChangedRequest, repo: Path, run: GateRun) -> BehaviorRequest:
    """`activation behavior`'s request for a gate, with its own defaults: the skill, its
    suite, the versions, and what the two commands share (the agents and their executables,
    the trials and, when given, their ceiling, the cache, the prices and the cost ceiling,
    the seed, `--fail-on weakened`, the judge's model and samples). Not `--model`: the
    activation gates' model; the agent runs its own default."""
    ceiling = {} if args.max_trials is None else {"max_trials": args.max_trials}
    return request_for(
        "behavior",
        BehaviorRequest,
        **ceiling,
        repo=repo,
        skill_path=run.place.path,
        suite=repo / run.suite,
        baseline=args.base,
        candidate=args.head,
        agent=args.agent,
        executables=args.executables,
        sandbox=args.sandbox,
        no_canary=args.no_canary,
        image=args.image,
        executor=args.executor,
        trials=args.trials,
        seed=args.seed,
        cache_dir=args.cache_dir,
        no_cache=args.no_cache,
        cache_ttl=args.cache_ttl,
        price_in=args.price_in,
        price_out=args.price_out,
        max_cost_usd=args.max_cost_usd,
        fail_on=args.fail_on,
        min_coverage=args.min_coverage,
        judge_model=args.judge_model,
        judge_samples=args.judge_samples,
    )


def _behavior(command: _Command, run: GateRun) -> Gate | None:
    from activation.commands.behavior import behavior_cells, refuse_unsound, stage_c
    from activation.inputs.load import (
        load_behavior_inputs,
        load_behavior_suite,
        skipped_warning,
    )
    from activation.trials.behavior.stage import BehaviorStage, check_judge

    session, args, stages, repo, cwd = command
    suite = repo / run.suite
    loaded = load_behavior_suite(suite)
    only = chosen(args.only, [case.id for case in loaded.graded])
    if only == ():
        return None
    gate = behavior_request(args, repo, run)
    stage = stage_c(stages)
    inputs = load_behavior_inputs(cwd, loaded, repo=repo, skill_path=run.place.path,
                                  baseline=args.base, candidate=args.head, only=only)  # fmt: skip
    refuse_unsound(inputs.cases, suite)
    session.warn(skipped_warning(Path(run.suite), loaded.skipped))
    specs = behavior_cells(gate, stage, inputs.cases, gate.arm, gate.no_control, gate.fail_on,
                           gate.min_coverage, suite=suite)  # fmt: skip
    if args.dry_run:
        return Gate(run, stage, gate, [(spec, inputs) for spec in specs])
    with keyed_for(run, AGENT_KEY):
        cells = [(stage.preflight(spec), inputs) for spec in specs]
    with keyed_for(run):
        if isinstance(stage, BehaviorStage):  # its judge, before any gate's first call
            for spec, _inputs in cells:
                check_judge(spec, inputs)
    return Gate(run, stage, gate, cells)


@contextmanager
def keyed_for(run: GateRun, hint: str = "") -> Iterator[None]:
    """A missing key stops the command naming the gate that needs it (and `hint`)."""
    from activation.report.changed import GATE_TITLES
    from activation.trials.api_check import MissingKey

    try:
        yield
    except MissingKey as missing:
        title = f"{run.place.id}'s {GATE_TITLES[run.kind]} ({run.suite})"
        raise InputError(f"{title}: {missing}{hint}") from None


def run_gate(session: Session, gate: Gate, rerun: tuple[str, ...]) -> Matrix:
    """One gate's run, shown as its own command shows it, under a rule naming it."""
    from rich.text import Text

    from activation.commands.run import run_and_report
    from activation.report.changed import GATE_TITLES
    from activation.report.formats import terminal_view

    session.out.rule(Text(f"{gate.run.place.id}: {GATE_TITLES[gate.run.kind]}"))
    report = run_and_report(session, gate.request, rerun, gate.stage, gate.cells, ())
    session.show(terminal_view(report, gate.request.show))
    return report


def dry_run(
    plan: Plan, gates: Sequence[Gate], base: str, head: str, allow_untested: bool
) -> ChangedPlan:
    """The plan a dry run shows: each gate's cells planned as the main run's dry run plans
    them (their tokens estimated from the requests' characters: no call is made)."""
    from activation.commands.plan import plan_cells
    from activation.report.dry_run import ChangedPlan, GatePlan

    planned = tuple(
        GatePlan(
            gate.run,
            tuple(gate_cost(gate.run, cell) for cell in plan_cells(gate.stage, gate.cells)),
        )
        for gate in gates
    )
    return ChangedPlan(base, head, plan.skills, planned, allow_untested)


def gate_cost(run: GateRun, cell: CellPlan) -> CellPlan:
    """A cell's plan, its missing price said as `changed` can mend it: a behavior gate runs
    its agent's default model whatever `--model` says, so only the prices can price it."""
    from activation.trials.agent.stage import DEFAULT_MODEL_REMEDY

    gap = cell.cost.gap
    if run.kind != "behavior" or gap is None:
        return cell
    gap = gap.replace(DEFAULT_MODEL_REMEDY, GATE_PRICE)
    return replace(cell, cost=replace(cell.cost, gap=gap))


def finish(session: Session, report: ChangedReport, outputs: Outputs) -> None:
    """The combined report on the terminal, in every file asked for and the job summary."""
    from activation.report.changed import changed_file, changed_json, summary_lines

    session.out.rule("activation changed")
    session.out.print("\n".join(summary_lines(report)), markup=False, soft_wrap=True)
    session.write_json(changed_json(report))
    for name, path in outputs.files.items():
        session.write_file(path, changed_file(name, report, path), f"{name} report")
    if outputs.summary is not None:
        session.append_summary(outputs.summary, changed_file("markdown", report, outputs.summary))
