"""`activation lint`: static checks on a case matrix, a description and the menu around it
(its siblings, the distractors, the catalog), no model call.

Exit 0 when clean or with warnings only, 1 when any check failed, 2 for bad input.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from activation._errors import ExitCode, InputError
from activation._models import Skill, Target
from activation.commands.config import parse_settings
from activation.commands.flags import LINT
from activation.commands.session import Session
from activation.inputs.frontmatter import split_document
from activation.inputs.lint import Finding, Menu, lint
from activation.inputs.suite import BUNDLED_CASES, suite_mismatch
from activation.inputs.target import PASS_A_SKILL, SkillNotChosen
from activation.inputs.variants import git_ref, working_tree_spec


def render_findings(findings: Sequence[Finding]) -> str:
    """Plain aligned lines, then a count: readable in a terminal and in a CI log alike."""
    if not findings:
        return "lint: no problems found"
    width = max(len(finding.case_id or "-") for finding in findings)
    lines = [
        f"{finding.level:<7}  {(finding.case_id or '-'):<{width}}  {finding.message}"
        for finding in findings
    ]
    errors = sum(finding.level == "error" for finding in findings)
    warnings = len(findings) - errors
    lines.append(f"lint: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}")
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def lint_exit_code(findings: Sequence[Finding]) -> ExitCode:
    """Any error fails; warnings never do."""
    failed = any(finding.level == "error" for finding in findings)
    return ExitCode.CHECK_FAILED if failed else ExitCode.OK


NO_SKILL_HERE = (
    "no skill found here, so only the cases were checked "
    "(pass --repo, --skill-path or --candidate to check a description too)"
)


def target_and_menu(
    args: argparse.Namespace, written_for: str | None
) -> tuple[Target | None, str | None, Menu | None, str | None]:
    """The description to check, resolved the way the main command resolves the candidate,
    the menu it would be listed in (its set, the distractors, the catalog), and why only
    the cases are checked, when they are.

    A path needs no target (it is then checked alone); with neither `--skill-path` nor
    `--candidate`, where no skill is found or several are and nothing chose one, the cases
    are linted alone rather than refused, and the note says what was found and what to pass.
    """
    from activation.inputs.load import (
        hidden_skills,
        load_catalog,
        load_distractors,
        read_text,
        resolve_target,
        resolve_variant,
    )
    from activation.inputs.skill_set import distractors_folder

    cwd = Path.cwd()
    try:
        target = resolve_target(args.repo, args.skill_path, cwd, written_for)
    except InputError as error:
        if args.candidate is not None and git_ref(args.candidate) is None:
            path = cwd / args.candidate
            return (
                None,
                split_document(read_text(path, "SKILL.md"), args.candidate).description,
                None,
                None,
            )
        if args.skill_path is None and args.candidate is None:
            if isinstance(error, SkillNotChosen):
                alone = f"{error.found}; only the cases were checked: {PASS_A_SKILL}"
                return None, None, None, f"{alone}, to check its description too"
            if args.repo is None:
                return None, None, None, NO_SKILL_HERE
        raise
    spec = args.candidate if args.candidate is not None else working_tree_spec(target)
    variant = resolve_variant(spec, target, cwd)
    ours = (
        Skill(target.skill_id, variant.description, variant.when_to_use),
        *(skill for skill in variant.siblings if skill.listed),
    )
    folder = distractors_folder(args.distractors, bool(variant.siblings), args.catalog is not None)
    others = load_distractors(folder) if folder is not None else ()
    if args.catalog is not None:
        others += load_catalog(args.catalog)
    hidden = tuple(sorted(hidden_skills((variant,), others)))
    others = tuple(skill for skill in others if skill.listed)
    menu = Menu(target.skill_id, ours, others, hidden)
    return target, variant.description, menu, None


def main_lint(session: Session, argv: list[str]) -> int:
    args, _settings = parse_settings(LINT, argv)
    session.debug = session.debug or args.debug
    from activation.inputs.load import cases_file, read_cases

    bundled = args.cases is None
    checked = read_cases(
        BUNDLED_CASES if bundled else cases_file(args.cases, Path.cwd()), args.cases_format
    )
    target, description, menu, alone = target_and_menu(args, checked.written_for)
    session.warn([alone] if alone else [])
    if target is not None:
        mismatch = suite_mismatch(checked.written_for, target.skill_id, bundled)
        session.warn([mismatch] if mismatch else [])
    findings = [
        *lint(checked, description, strict=bundled or args.strict, menu=menu),
        *(reference_findings(target) if target is not None else ()),
        *(set_findings(target) if target is not None else ()),
        *(behavior_findings(args.behavior) if args.behavior is not None else ()),
    ]
    session.out.print(render_findings(findings), markup=False, soft_wrap=True)
    return lint_exit_code(findings)


def reference_findings(target: Target) -> list[Finding]:
    """Every file the working tree's SKILL.md body refers to that its skill folder lacks
    (the routing layer: a table of references to files that are not there)."""
    from activation.inputs.behavior_lint import missing_references

    if not target.skill_file.is_file():
        return []
    folder = target.skill_file.parent
    body = split_document(target.skill_file.read_text(encoding="utf-8"), str(folder)).body
    present = [path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()]
    return [
        Finding("error", None, f"{target.skill_path} refers to {missing}, which its skill lacks")
        for missing in missing_references(body, present)
    ]


def set_findings(target: Target) -> list[Finding]:
    """Every SKILL.md of the repo the agents cannot parse or list (a run about another
    skill leaves it out with a warning)."""
    from activation.inputs.load import skill_problems

    return [Finding("error", None, problem) for problem in skill_problems(target.repo)]


def behavior_findings(path: Path) -> list[Finding]:
    """The behavior cases' own checks, and graders that pass on a scaffold alone."""
    from activation.inputs.behavior_lint import lint_behavior
    from activation.inputs.behavior_load import load_behavior_suite
    from activation.trials.behavior.scaffold_lint import scaffold_findings

    cases = load_behavior_suite(path).cases
    return [*lint_behavior(cases), *scaffold_findings(cases)]
