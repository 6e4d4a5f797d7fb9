"""`activation visibility`: what each agent shows of a skill set, before any model call.

Exit 0 when shown (and, with `--baseline`, no skill is less visible in the candidate), 1
when the candidate is less visible than the baseline in any agent, 2 for bad input.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from activation._errors import InputError
from activation._models import VARIANTS, Inputs, Skill, VariantName
from activation.commands.config import parse_settings
from activation.commands.flags import VISIBILITY
from activation.commands.session import Session


def set_inputs(args: argparse.Namespace) -> Inputs:
    """The set at `--candidate` (and `--baseline`, else the candidate on both sides) and
    the catalog, as a run's inputs without cases."""
    from activation.inputs.load import load_catalog, read_text, resolve_target, resolve_variant
    from activation.inputs.variants import working_tree_spec

    cwd = Path.cwd()
    target = resolve_target(args.repo, args.skill_path, cwd)
    candidate = resolve_variant(args.candidate or working_tree_spec(target), target, cwd)
    baseline = candidate if args.baseline is None else resolve_variant(args.baseline, target, cwd)
    catalog = load_catalog(args.catalog) if args.catalog is not None else ()
    working = read_text(target.skill_file, "SKILL.md") if target.skill_file.is_file() else None
    return Inputs(target, (), (), baseline, candidate, catalog=catalog, working_text=working)


def with_user_skills(inputs: Inputs, folders: tuple[str, ...], session: Session) -> Inputs:
    """The inputs with the skills of an agent's user skill folders (below the home
    folder) added to the catalog; a skill already listed by that id is kept once."""
    from activation.inputs.load import load_user_skills

    home = Path.home()
    found, problems = load_user_skills([home / folder for folder in folders])
    session.warn(problems)
    sets = (*inputs.baseline.siblings, *inputs.candidate.siblings, *inputs.catalog)
    taken = {inputs.target.skill_id, *(skill.name for skill in sets)}
    added: tuple[Skill, ...] = tuple(skill for skill in found if skill.name not in taken)
    return replace(inputs, catalog=inputs.catalog + added)


def main_visibility(session: Session, argv: list[str]) -> int:
    args, _settings = parse_settings(VISIBILITY, argv)
    session.debug = session.debug or args.debug
    from activation.inputs.variants import skipped_warnings
    from activation.report.visibility import (
        agent_view,
        render_visibility,
        visibility_json,
        visibility_report,
    )
    from activation.trials.agents import agent_named, known

    inputs = set_inputs(args)
    session.warn(skipped_warnings((inputs.baseline, inputs.candidate)))
    variants: tuple[VariantName, ...] = VARIANTS if args.baseline is not None else ("candidate",)
    views = []
    for name in args.agent or known():
        record = agent_named(name)
        shown = (
            with_user_skills(inputs, record.user_skills, session) if args.user_skills else inputs
        )
        views.append(agent_view(name, shown, args.model, variants))
    report = visibility_report(views)
    session.out.print(
        render_visibility(report, listing=not args.no_listing), markup=False, soft_wrap=True
    )
    if args.json is not None:
        try:
            args.json.write_bytes(visibility_json(report))
        except OSError as error:
            raise InputError(f"--json {args.json}: cannot write ({error.strerror})") from None
    return report.exit_code
