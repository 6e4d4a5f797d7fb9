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

import argparse
import os
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from activation import __version__
from activation._errors import InputError
from activation.commands.config import parse_settings
from activation.commands.flags import BEHAVIOR, CHANGED
from activation.commands.session import Session, stop_record_of

if TYPE_CHECKING:
    from activation._models import Inputs, RunSpec
    from activation.commands.outputs import Outputs
    from activation.commands.runner import Stages
    from activation.inputs.change_plan import CasesFile, GateRun, Plan, Suites
    from activation.inputs.changes import SkillPlace, Tree
    from activation.report.changed import ChangedReport
    from activation.report.matrix import Matrix
    from activation.trials.stage import Stage

WORKING_TREE = "the working tree"


@dataclass(frozen=True)
class Gate:
    """A planned gate, ready to run: its stage and its cells, every input read."""

    run: GateRun
    stage: Stage
    args: argparse.Namespace
    cells: list[tuple[RunSpec, Inputs]]


def main_changed(session: Session, argv: list[str], stages: Stages | None) -> int:
    args, _settings = parse_settings(CHANGED, argv)
    from activation.commands.outputs import chosen_outputs
    from activation.commands.runner import only_of
    from activation.inputs.change_plan import plan_runs
    from activation.inputs.changes import skill_changes, skills_in
    from activation.inputs.load import explicit_repo, git_root
    from activation.inputs.variants import git_ref
    from activation.report.changed import CHANGED_SCHEMA

    session.adopt(args.debug, args.json, stop_record_of(CHANGED_SCHEMA))
    args.only = only_of(args)
    outputs = chosen_outputs(args, os.environ)
    cwd = Path.cwd()
    repo = git_root(cwd) if args.repo is None else explicit_repo(args.repo, cwd)
    base_ref = git_ref(args.base)
    if base_ref is None:
        raise InputError(f"--base {args.base}: pass a git ref, e.g. git:main")
    head_ref = git_ref(args.head) if args.head else None
    if args.head and head_ref is None:
        raise InputError(f"--head {args.head}: pass a git ref, e.g. git:HEAD (or leave it out)")
    head_name = args.head or WORKING_TREE
    base, head = read_versions(repo, args.base, base_ref, args.head, head_ref)
    changes = skill_changes(base, head, repo.name)
    skills = skills_in(head, repo.name)
    plan = plan_runs(changes, skills, find_suites(repo, skills, args.cases))
    if not plan.relevant:
        session.say(f"no skill changed between {args.base} and {head_name}: nothing to run")
    prepared = [prepare(session, args, stages, repo, cwd, run) for run in plan.runs]
    gates = [gate for gate in prepared if gate is not None]
    if args.dry_run:
        lines = plan_lines(plan, [gate.run for gate in gates], args.base, head_name)
        costs = cost_lines(gates, session.warn)
        session.out.print("\n".join(lines + costs), markup=False, soft_wrap=True)
        return 0
    runs = [(gate.run, run_gate(session, gate, argv)) for gate in gates]
    from activation.report.changed import build_changed

    report = build_changed(plan, runs, __version__, args.base, head_name, args.allow_untested)
    return finish(session, report, outputs)


def read_versions(
    repo: Path, base_spec: str, base_ref: str, head_spec: str | None, head_ref: str | None
) -> tuple[Tree, Tree]:
    """The skill files at the base ref, and at the head ref or in the working tree."""
    from activation.inputs.changes import in_skill_roots
    from activation.inputs.git_tree import files_at, working_paths

    base = files_at(repo, base_spec, base_ref, in_skill_roots)
    if head_spec is not None and head_ref is not None:
        return base, files_at(repo, head_spec, head_ref, in_skill_roots)
    head = {}
    for path in working_paths(repo):
        file = repo / path
        if in_skill_roots(path) and file.is_file() and not file.is_symlink():
            head[path] = file.read_bytes()
    return base, head


@dataclass(frozen=True)
class Found:
    """What a file of the repo holds for `changed`: the skill its cases are about (None:
    no cases), and the skill its behavioral evals are about (None: none)."""

    cases: CasesFile | None
    behavior: CasesFile | None


def read_case_file(repo: Path, path: str, named: bool) -> Found:
    """What a file holds, in any format `read_cases` reads. A file `named` as cases files
    are (changes.is_cases_file) is one, and a file that does not parse or fits no format is
    an input error; any other file is a cases file when its shape is one format's (else it
    is not one: no error), and then cases it cannot read are an input error too. A
    per-skill JSON file's evals are a behavior suite, whatever its trigger part."""
    from activation.inputs.change_plan import CasesFile
    from activation.inputs.formats.detect import is_trigger_cases
    from activation.inputs.formats.skill_json import has_evals, skill_of
    from activation.inputs.load import load_cases, read_document

    file = Path(os.path.relpath(repo / path))  # as its errors name it: from the cwd
    try:
        document = read_document(file)
    except InputError:
        if named:
            raise
        return Found(None, None)
    behavior = CasesFile(path, skill_of(document)) if has_evals(document) else None
    if not named and not is_trigger_cases(document):
        return Found(None, behavior)
    return Found(CasesFile(path, load_cases(file).written_for), behavior)


def find_suites(
    repo: Path, skills: Mapping[str, SkillPlace], given: Path | None
) -> dict[str, Suites]:
    """Each skill's suites (change_plan.find_suites), from the working tree's case files
    in every format, each read for the skill it is about, and the eval folders that hold
    behavior cases."""
    from activation.inputs.change_plan import CasesFile
    from activation.inputs.change_plan import find_suites as match_suites
    from activation.inputs.changes import EVALS_FOLDER, is_cases_file, may_hold_cases
    from activation.inputs.git_tree import working_paths
    from activation.inputs.load import load_cases

    folders = [place.folder for place in skills.values()]
    cases, behavior = [], []
    for path in working_paths(repo):
        named = is_cases_file(path)
        if (named or may_hold_cases(path, folders)) and (repo / path).is_file():
            found = read_case_file(repo, path, named)
            cases += [found.cases] if found.cases else []
            behavior += [found.behavior] if found.behavior else []
    if given is not None:
        file = given.resolve()
        shown = file.relative_to(repo).as_posix() if file.is_relative_to(repo) else str(file)
        cases.append(CasesFile(shown, load_cases(file).written_for, given=True))
    trigger = {file.path for file in cases}
    places = [f"{folder}/{EVALS_FOLDER}" for folder in folders] + [EVALS_FOLDER]
    held = frozenset(place for place in places if holds_evals(repo, place, trigger))
    return match_suites(skills, cases, held, behavior)


def holds_evals(repo: Path, folder: str, trigger: Set[str]) -> bool:
    """Whether an eval folder exists and holds a file that is not a trigger cases file (an
    `evals/` of skill-creator's trigger eval set alone is no behavior suite)."""
    path = repo / folder
    if not path.is_dir():
        return False
    return any(
        file.is_file() and file.relative_to(repo).as_posix() not in trigger
        for file in path.rglob("*")
    )


def prepare(
    session: Session,
    args: argparse.Namespace,
    stages: Stages | None,
    repo: Path,
    cwd: Path,
    run: GateRun,
) -> Gate | None:
    """Read and check one gate's inputs and cells: an InputError here stops the command
    before any model call. None: `--only` names none of the gate's cases."""
    if run.kind == "activation":
        return _activation(session, args, stages, repo, cwd, run)
    return _behavior(session, args, stages, repo, cwd, run)


def _activation(
    session: Session,
    args: argparse.Namespace,
    stages: Stages | None,
    repo: Path,
    cwd: Path,
    run: GateRun,
) -> Gate | None:
    from activation.commands.run import run_warnings
    from activation.commands.runner import cells_from, inputs_from, stage_of
    from activation.inputs.load import load_cases

    cases = repo / run.suite
    only = chosen(args.only, [case.id for case in load_cases(cases).cases])
    if only == ():
        return None
    gate_args = argparse.Namespace(
        **{
            **vars(args),
            "repo": repo,
            "skill_path": run.place.path,
            "cases": cases,
            "cases_format": None,
            "baseline": args.base,
            "candidate": args.head,
            "only": only,
            "shard": None,
        }
    )
    stage = stage_of(gate_args, stages)
    specs = cells_from(gate_args, stage)
    inputs = inputs_from(gate_args, cwd, args.head)
    warnings = run_warnings(specs, inputs, bundled_cases=False)
    session.warn([f"{run.place.id}: {warning}" for warning in warnings])
    if only is None:
        try:
            inputs = stage.select(inputs, session.say)
        except InputError as error:  # Stage B: no spot check and nothing flagged here
            session.say(f"{run.place.id}: its activation gate is left out: {error}")
            return None
    if args.dry_run:
        return Gate(run, stage, gate_args, [(spec, inputs) for spec in specs])
    return Gate(run, stage, gate_args, [(stage.preflight(spec), inputs) for spec in specs])


def chosen(only: tuple[str, ...] | None, ids: Sequence[str]) -> tuple[str, ...] | None:
    """The ids of `only` a gate has (None: every case; empty: none of them)."""
    return None if only is None else tuple(id for id in ids if id in only)


def behavior_argv(args: argparse.Namespace, repo: Path, run: GateRun) -> list[str]:
    """`activation behavior`'s command line for a gate: the skill, its suite, the versions,
    and what the two commands share (the agents, the cache, the cost ceiling, the seed,
    `--fail-on weakened`)."""
    argv = [
        "--repo",
        str(repo),
        "--skill-path",
        run.place.path,
        "--suite",
        str(repo / run.suite),
        "--baseline",
        args.base,
        "--agent",
        ",".join(args.agent),
        "--seed",
        str(args.seed),
    ]
    if args.head:
        argv += ["--candidate", args.head]
    if args.cache_dir is not None:
        argv += ["--cache-dir", str(args.cache_dir)]
    if args.no_cache:
        argv.append("--no-cache")
    argv += ["--cache-ttl", f"{args.cache_ttl}s"]
    if args.max_cost_usd is not None:
        argv += ["--max-cost-usd", str(args.max_cost_usd)]
    if args.fail_on:
        argv += ["--fail-on", args.fail_on]
    return argv


def _behavior(
    session: Session,
    args: argparse.Namespace,
    stages: Stages | None,
    repo: Path,
    cwd: Path,
    run: GateRun,
) -> Gate | None:
    from activation.commands.behavior import behavior_cells, refuse_unsound
    from activation.inputs.behavior_load import load_behavior_inputs, load_behavior_suite
    from activation.trials.stage import stage_named

    suite = repo / run.suite
    only = chosen(args.only, [case.id for case in load_behavior_suite(suite).graded])
    if only == ():
        return None
    gate_args = BEHAVIOR.parse(behavior_argv(args, repo, run))
    stage = stages["C"] if stages and "C" in stages else stage_named("C")
    inputs = load_behavior_inputs(cwd, suite, repo=repo, skill_path=run.place.path,
                                  baseline=args.base, candidate=args.head, only=only)  # fmt: skip
    refuse_unsound(inputs.behavior, suite)
    specs = behavior_cells(gate_args, stage, inputs.behavior)
    if args.dry_run:
        return Gate(run, stage, gate_args, [(spec, inputs) for spec in specs])
    return Gate(run, stage, gate_args, [(stage.preflight(spec), inputs) for spec in specs])


def run_gate(session: Session, gate: Gate, argv: Sequence[str]) -> Matrix:
    """One gate's run, shown as its own command shows it, under a rule naming it."""
    from activation.commands.run import rerun_words, run_and_report
    from activation.report.changed import GATE_TITLES
    from activation.report.formats import terminal_view

    session.out.rule(f"{gate.run.place.id}: {GATE_TITLES[gate.run.kind]}")
    rerun = rerun_words(CHANGED, argv)
    report = run_and_report(session, gate.args, rerun, gate.stage, gate.cells, ())
    session.show(terminal_view(report, gate.args.show))
    return report


def plan_lines(plan: Plan, runs: Sequence[GateRun], base: str, head: str) -> list[str]:
    """What a dry run shows: each changed skill and each gate that would run."""
    lines = [f"activation changed: {base} -> {head}"]
    for item in plan.skills:
        kinds = ", ".join(item.change.kinds) or item.change.status
        lines.append(f"{item.change.id} ({item.change.place.path}): {item.change.status}, {kinds}")
        if item.untested:
            lines.append(f"  not tested: {', '.join(item.untested)}")
        if item.note:
            lines.append(f"  {item.note}")
    for run in runs:
        lines.append(
            f"would run: {run.kind} gate of {run.place.id} on {run.suite} "
            f"(because of {', '.join(run.because)})"
        )
    if not runs:
        lines.append("would run: nothing")
    return lines


def cost_lines(gates: Sequence[Gate], warn: Callable[[Sequence[str]], None]) -> list[str]:
    """What each gate would cost, over its cells, and every gate together (a dry run's,
    estimated from the requests' characters: no call is made)."""
    from activation.commands.runner import planned
    from activation.report.changed import cost_text

    lines, every = [], []
    for gate in gates:
        found = [
            gate.stage.estimate(planned(gate.stage, spec, warn), inputs)
            for spec, inputs in gate.cells
        ]
        every += found
        lines.append(f"cost of the {gate.run.kind} gate of {gate.run.place.id}: {cost_text(found)}")
    if len(gates) > 1:
        lines.append(f"cost of every gate: {cost_text(every)}")
    return lines


def finish(session: Session, report: ChangedReport, outputs: Outputs) -> int:
    """The combined report on the terminal, in every file asked for and the job summary."""
    from activation.report.changed import changed_file, changed_json, summary_lines

    session.out.rule("activation changed")
    session.out.print("\n".join(summary_lines(report)), markup=False, soft_wrap=True)
    session.write_json(changed_json(report))
    for name, path in outputs.files.items():
        session.write_file(path, changed_file(name, report, path), f"{name} report")
    if outputs.summary is not None:
        session.append_summary(outputs.summary, changed_file("markdown", report, outputs.summary))
    return report.exit_code
