"""`activation visibility`: what each agent shows of a skill set, before any model call.

Exit 0 when shown (and, with `--baseline`, no skill is less visible in the candidate), 1
when the candidate is less visible than the baseline in any agent, 2 for bad input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from activation._documents import document_json
from activation._errors import InputError
from activation._models import VARIANTS, Inputs, Target, VariantName
from activation.commands.requests import VisibilityRequest, parse_request
from activation.commands.session import Session


def set_anchors(
    repo: Path | None, skill_path: str | None, cwd: Path
) -> tuple[tuple[Target, ...], list[str]]:
    """One skill of each set to read it by: `--skill-path`'s, else the first readable
    skill of each set found in the repo (every skill of a set is reported alike, whichever
    anchors it), and why each SKILL.md that does not parse as this tool reads a skill to
    measure fails (its set shows what each agent does with it)."""
    from activation.inputs.load import explicit_repo, git_root, readable_skill_files, resolve_target
    from activation.inputs.target import SKILL_FILE_NAME, WHERE

    if skill_path is not None:
        return (resolve_target(repo, skill_path, cwd),), []
    root = git_root(cwd) if repo is None else explicit_repo(repo, cwd)
    found, problems = readable_skill_files(root)
    if not found:
        why = f" the agents can read ({'; '.join(problems)})" if problems else ""
        raise InputError(f"no {SKILL_FILE_NAME}{why} under {WHERE}: pass --skill-path")
    return first_of_each_set(resolve_target(root, str(path), cwd) for path in found), problems


def set_key(target: Target) -> tuple[Path, str | None]:
    """What makes two skills one set: the plugin (its root and name: a marketplace may
    name several plugins over one folder), or the skills folder."""
    return target.plugin_root, target.plugin_name


def first_of_each_set(targets: Iterable[Target]) -> tuple[Target, ...]:
    """The first skill of each set, in the order the sets are met."""
    first: dict[tuple[Path, str | None], Target] = {}
    for target in targets:
        first.setdefault(set_key(target), target)
    return tuple(first.values())


def set_inputs(
    target: Target, candidate: str | None, baseline: str | None, catalog: Path | None
) -> Inputs:
    """The set at `candidate` (and `baseline`, else the candidate on both sides) and the
    catalog, as a run's inputs without cases."""
    from activation.inputs.load import beyond_set, load_catalog, read_text, resolve_variant
    from activation.inputs.variants import working_tree_spec

    cwd = Path.cwd()
    second = resolve_variant(candidate or working_tree_spec(target), target, cwd)
    first = second if baseline is None else resolve_variant(baseline, target, cwd)
    listed = beyond_set(load_catalog(catalog), target, cwd) if catalog is not None else ()
    working = read_text(target.skill_file, "SKILL.md") if target.skill_file.is_file() else None
    return Inputs(target, (), (), first, second, catalog=listed, working_text=working)


def with_user_skills(inputs: Inputs, folders: tuple[str, ...], session: Session) -> Inputs:
    """The inputs with the skills of an agent's user skill folders (below the home
    folder) added to the catalog, a user's copy of a project skill too: the agent's own
    rule then says which of the two it lists (Claude Code the user's, Gemini CLI, OpenCode
    and Copilot CLI the project's, Codex both)."""
    from activation.inputs.load import load_user_skills

    found, problems = load_user_skills([Path.home() / folder for folder in folders])
    session.warn(problems)
    return replace(inputs, catalog=inputs.catalog + found)


def main_visibility(session: Session, argv: list[str]) -> int:
    args, _settings = parse_request("visibility", VisibilityRequest, argv)
    session.debug = session.debug or args.debug
    from activation.inputs.load import nested_warnings
    from activation.inputs.variants import skipped_warnings
    from activation.report.visibility import (
        agent_view,
        render_visibility,
        visibility_report,
    )
    from activation.trials.agents import agent_named, known
    from activation.trials.listing.menu import unparsed_words

    anchors, problems = set_anchors(args.repo, args.skill_path, Path.cwd())
    sets = [set_inputs(target, args.candidate, args.baseline, args.catalog) for target in anchors]
    skipped = skipped_warnings(tuple(v for i in sets for v in (i.baseline, i.candidate)))
    words = {k: v for i in sets for k, v in unparsed_words(i, args.agent or known()).items()}
    skipped += words.values()
    alone = [
        f"{problem}: not shown ({ALONE})"
        for problem in problems
        if not any(line.startswith(f"{problem}: ") for line in skipped)
    ]
    nested = [line for i in sets for line in nested_warnings(i.target)]
    session.warn([*skipped, *alone, *nested])
    variants: tuple[VariantName, ...] = VARIANTS if args.baseline is not None else ("candidate",)
    views = []
    for inputs in sets:
        where = set_name(inputs.target) if len(sets) > 1 else None
        for name in args.agent or known():
            record = agent_named(name)
            shown = (
                with_user_skills(inputs, record.user_skills, session)
                if args.user_skills
                else inputs
            )
            views.append(agent_view(name, shown, args.model, variants, where))
    report = visibility_report(views)
    session.out.print(
        render_visibility(report, listing=not args.no_listing), markup=False, soft_wrap=True
    )
    if args.json is not None:
        try:
            args.json.write_bytes(document_json(report))
        except OSError as error:
            raise InputError(f"--json {args.json}: cannot write ({error.strerror})") from None
    return report.exit_code


ALONE = "no skill of its set parses, and a set is read by one that does; `activation lint` shows it"


def set_name(target: Target) -> str:
    """The set in a report of several: its plugin, else its folder of skills."""
    folder = f"{target.skills_dir.as_posix()}/"
    return f"plugin {target.plugin_name} ({folder})" if target.plugin_name else folder
