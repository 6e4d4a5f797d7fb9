"""`activation lint`: static checks, no model call.

With no flags (how the pre-commit hook runs it), the repository's own skills: every SKILL.md
(its frontmatter, the files its body refers to, what each agent lists of it) and every case
file found (trigger cases, each with its skill's description and menu; behavior suites). With
`--cases FILE` or `--bundled`, that one case matrix and the description it is measured with.
The last line says what was checked, so "no problems found" is a claim with a scope.

Exit 0 when clean or with warnings only, 1 when any check failed, 2 for bad input.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from activation._errors import ExitCode, InputError
from activation._models import Skill, Target
from activation.commands.requests import LintRequest, parse_request
from activation.commands.session import Session
from activation.inputs.frontmatter import SkillDocument, split_document
from activation.inputs.lint import Finding, Menu, lint
from activation.inputs.references import Around, Reference
from activation.inputs.suite import BUNDLED_CASES, suite_mismatch
from activation.inputs.target import PASS_A_SKILL, SkillNotChosen
from activation.inputs.variants import git_ref, working_tree_spec

SetKey = tuple[Path, str | None]
"""A skill set: its plugin's root and name, or its skills folder and None (visibility.set_key)."""
SHOWN_FILES = 5
"""How many case files the last line names (the count is always whole)."""


def render_findings(findings: Sequence[Finding], scope: str | None = None) -> str:
    """Plain aligned lines, then a count and what was checked (`scope`): readable in a
    terminal and in a CI log alike."""
    checked = f"checked {scope}: " if scope else ""
    if not findings:
        return f"lint: {checked}no problems found"
    width = max(len(finding.case_id or "-") for finding in findings)
    lines = [
        f"{finding.level:<7}  {(finding.case_id or '-'):<{width}}  {finding.message}"
        for finding in findings
    ]
    errors = sum(finding.level == "error" for finding in findings)
    warnings = len(findings) - errors
    lines.append(f"lint: {checked}{_plural(errors, 'error')}, {_plural(warnings, 'warning')}")
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def lint_exit_code(findings: Sequence[Finding]) -> ExitCode:
    """Any error fails; warnings never do."""
    failed = any(finding.level == "error" for finding in findings)
    return ExitCode.CHECK_FAILED if failed else ExitCode.OK


@dataclass(frozen=True)
class Scope:
    """What a lint looked at: the skills (SKILL.md paths, in their sets' folders), the
    agents whose listing was checked, and the case files (repo-relative, or as given)."""

    skills: tuple[str, ...] = ()
    sets: tuple[str, ...] = ()
    agents: int = 0
    case_files: tuple[str, ...] = ()
    checks: str = "frontmatter, the files each refers to"
    """What was checked of each skill."""

    def words(self) -> str:
        """ "14 skills in skills/ (...) and 3 case files (a.json, ...)"."""
        parts = []
        if self.skills:
            what = self.checks + (f", what {self.agents} agents list" if self.agents else "")
            where = f" in {', '.join(self.sets)}" if self.sets else ""
            counted = _plural(len(self.skills), "skill") + where
            parts.append(f"{self.skills[0] if len(self.skills) == 1 else counted} ({what})")
        files = list(self.case_files[:SHOWN_FILES])
        if len(self.case_files) > SHOWN_FILES:
            files.append(f"{len(self.case_files) - SHOWN_FILES} more")
        named = f" ({', '.join(files)})" if files else ""
        parts.append(f"{_plural(len(self.case_files), 'case file')}{named}")
        return " and ".join(parts)


NO_SKILL_HERE = (
    "no skill found here, so only the cases were checked "
    "(pass --repo, --skill-path or --candidate to check a description too)"
)


def target_and_menu(
    args: LintRequest, written_for: str | None
) -> tuple[Target | None, str | None, Menu | None, str | None]:
    """The description to check, resolved the way the main command resolves the candidate,
    the menu it would be listed in (its set, the distractors, the catalog), and why only
    the cases are checked, when they are.

    A path needs no target (it is then checked alone); with neither `--skill-path` nor
    `--candidate`, where no skill is found or several are and nothing chose one, the cases
    are linted alone rather than refused, and the note says what was found and what to pass.
    """
    from activation.inputs.load import read_text, resolve_target

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
    description, menu = menu_of(target, args)
    return target, description, menu, None


def menu_of(target: Target, args: LintRequest) -> tuple[str, Menu]:
    """The target's description at `--candidate` (else the working tree) and the menu it
    would be listed in: its set, the distractors the run would add, the catalog."""
    from activation.inputs.distractors import distractors_folder
    from activation.inputs.load import (
        aliases_of,
        hidden_skills,
        load_catalog,
        load_distractors,
        resolve_variant,
    )

    spec = args.candidate if args.candidate is not None else working_tree_spec(target)
    variant = resolve_variant(spec, target, Path.cwd())
    ours = (
        Skill(target.skill_id, variant.description, variant.when_to_use),
        *(skill for skill in variant.siblings if skill.listed),
    )
    folder = distractors_folder(
        args.distractors, bool(variant.siblings), args.catalog is not None, target.skill_id
    )
    others = load_distractors(folder) if folder is not None else ()
    if args.catalog is not None:
        others += load_catalog(args.catalog)
    hidden = tuple(sorted(hidden_skills((variant,), others)))
    others = tuple(skill for skill in others if skill.listed)
    aliases = aliases_of(target, variant.text, (*variant.siblings, *others))
    return variant.description, Menu(target.skill_id, ours, others, hidden, aliases)


def main_lint(session: Session, argv: list[str]) -> int:
    args, _settings = parse_request("lint", LintRequest, argv)
    session.debug = session.debug or args.debug
    if args.bundled and args.cases is not None:
        raise InputError("--bundled lints the bundled suite, --cases your own: pass one")
    if args.cases is None and not args.bundled:
        findings, scope = lint_repo(session, args)
    else:
        findings, scope = lint_matrix(session, args)
        if args.behavior is not None:
            findings += behavior_findings(args.behavior, args.strict)
            suite = _suite_shown(args.behavior, Path.cwd())
            scope = replace(scope, case_files=(*scope.case_files, suite))
    session.out.print(render_findings(findings, scope.words()), markup=False, soft_wrap=True)
    return lint_exit_code(findings)


def lint_matrix(session: Session, args: LintRequest) -> tuple[list[Finding], Scope]:
    """One case matrix (`--cases`, or the bundled suite with `--bundled`) with the
    description it is measured with, and that skill's own files."""
    from activation.inputs.load import read_cases
    from activation.inputs.repo_cases import read_given

    given = args.cases
    bundled = given is None
    checked = (
        read_cases(BUNDLED_CASES, args.cases_format)
        if given is None
        else read_given(given, Path.cwd(), args.cases_format)
    )
    target, description, menu, alone = target_and_menu(args, checked.written_for)
    session.warn([alone] if alone else [])
    if target is not None:
        mismatch = suite_mismatch(checked.written_for, target.skill_id, bundled)
        session.warn([mismatch] if mismatch else [])
    findings = [
        *lint(checked, description, strict=bundled or args.strict, menu=menu),
        *(reference_findings(target.repo, target.skill_path) if target else ()),
        *(unparsed_skill_findings(target) if target is not None else ()),
    ]
    shown = (
        "the bundled suite"
        if given is None
        else ", ".join(_shown(path, Path.cwd()) for path in given)
    )
    skills = (target.skill_path.as_posix(),) if target is not None else ()
    checks = "its description and menu, the files it refers to"
    return findings, Scope(skills, case_files=(shown,), checks=checks)


def lint_repo(session: Session, args: LintRequest) -> tuple[list[Finding], Scope]:
    """The repository's own skill set (or `--skill-path`'s skill): each SKILL.md, what each
    agent lists of it, and each case file found, linted for the skill it is about."""
    from activation.commands.visibility import first_of_each_set, set_key
    from activation.inputs.git_tree import deleted_paths
    from activation.inputs.load import (
        explicit_repo,
        find_skill_files,
        git_root,
        read_marketplace,
        resolve_target,
    )
    from activation.inputs.target import refused_plugins

    cwd = Path.cwd()
    if args.skill_path is not None:
        chosen = resolve_target(args.repo, args.skill_path, cwd)
        if not chosen.skill_file.is_file():
            raise InputError(
                f"--skill-path {chosen.skill_path.as_posix()}: no such file "
                f"(relative to --repo {chosen.repo})"
            )
        root, paths = chosen.repo, [chosen.skill_path]
    else:
        try:
            root = git_root(cwd) if args.repo is None else explicit_repo(args.repo, cwd)
        except InputError:
            if args.candidate is None or git_ref(args.candidate) is not None:
                raise
            return lint_candidate_alone(args.candidate)
        paths = [Path(path) for path in find_skill_files(root)]
    refused = [Finding("error", None, line) for line in refused_plugins(read_marketplace(root))]
    refused += nested_findings(root) if args.skill_path is None else []
    if args.candidate is not None and git_ref(args.candidate) is None and len(paths) != 1:
        raise InputError(
            f"--candidate {args.candidate} is one skill's SKILL.md: pass --skill-path to say "
            "which, or --candidate git:REF to read every skill there"
        )
    trigger, behavior, findings = repo_case_files(root, paths)
    findings += refused
    if not paths and not trigger and not behavior:
        from activation.inputs.target import SKILL_FILE_NAME, WHERE

        raise InputError(
            f"no {SKILL_FILE_NAME} under {WHERE} and no case file in {root}: nothing to lint "
            "(--bundled lints the bundled suite, --cases FILE a case matrix)"
        )
    targets = {path: resolve_target(root, str(path), cwd) for path in paths}
    shown: dict[str, str] = {}
    broken: set[SetKey] = set()
    parsed: list[Target] = []
    deleted = deleted_paths(root)
    for path, target in targets.items():
        checked, document = skill_file_findings(root, path, deleted)
        findings += checked
        if document is None:
            broken.add(set_key(target))
            continue
        parsed.append(target)
        if document.listed:
            shown[target.skill_id] = path.as_posix()
    findings += candidate_findings(targets, args, broken)
    found, agents, words = set_findings(first_of_each_set(parsed), args, shown)
    findings = [replace(f, message=words.get(f.message, f.message)) for f in findings] + found
    for file in trigger:
        findings += case_file_findings(root, file, targets, args, broken, session)
    given = [] if args.behavior is None else [args.behavior.resolve()]
    folders = [*given, *(f for f in (root / b for b in behavior) if not _read(f, given))]
    read: list[Path] = []
    for folder in folders:
        try:
            findings += behavior_findings(folder, args.strict)
        except InputError as error:
            if folder in given:  # named by --behavior: an input error, not a finding
                raise
            findings.append(Finding("warning", None, f"not read as behavior cases: {error}"))
        else:
            read.append(folder)
    sets = tuple(dict.fromkeys(f"{target.skills_dir.as_posix()}/" for target in targets.values()))
    suites = [_suite_shown(folder, root) for folder in read]
    scope = Scope(tuple(path.as_posix() for path in paths), sets, agents, (*trigger, *suites))
    return sorted(findings, key=lambda finding: finding.level != "error"), scope


def nested_findings(root: Path) -> list[Finding]:
    """A warning for each SKILL.md inside another skill's folder: linted as a file of that
    skill, not as a skill, and the agents differ on it."""
    from activation.inputs.load import nested_skill_files
    from activation.inputs.target import LISTED_BY, NOT_LISTED_BY

    return [
        Finding(
            "warning",
            None,
            f"{path.as_posix()}: inside the folder of skill {owner.parent.name} "
            f"({owner.as_posix()}), so checked as its file, not as a skill: {NOT_LISTED_BY} "
            f"do not list it; {LISTED_BY} list it as a skill of its own",
        )
        for path, owner in nested_skill_files(root).items()
    ]


def repo_case_files(
    root: Path, skills: Sequence[PurePath]
) -> tuple[list[str], list[str], list[Finding]]:
    """The repo's trigger case files and behavior suites (repo-relative), found where the
    field keeps them (inputs/repo_cases.py, as `changed` and the run find them), and an
    error for each file shaped as cases that cannot be read (a file named as a cases file
    is read, and its problems said, with its lint)."""
    from activation.inputs.repo_cases import find_case_files

    folders = [PurePath(path).parent.as_posix() for path in skills]
    found = find_case_files(root, folders, lenient=True)
    findings = [Finding("error", None, message) for message in found.unread]
    findings += [Finding("warning", None, line) for line in found.foreign_lines]
    findings += [Finding("warning", None, f"not read: {why}") for why in found.skipped]
    return [file.path for file in found.cases], sorted(found.suites), findings


LENIENT = (
    "Claude Code reads it after quoting the value, other agents parse YAML strictly and may "
    "refuse the skill: quote the value"
)


def skill_file_findings(
    root: Path, path: PurePath, deleted: Collection[str] = ()
) -> tuple[list[Finding], SkillDocument | None]:
    """A SKILL.md's own checks (its frontmatter as the agents read it, then the files its
    body refers to, `deleted` the repo's files deleted since the last commit), and the
    document (None when it does not parse: no agent lists it)."""
    from activation.inputs.frontmatter import SPEC_NAME, name_problems
    from activation.inputs.lint import description_findings
    from activation.inputs.load import read_text
    from activation.inputs.target import ROOT_SKILL

    file = root / path
    try:
        document = split_document(read_text(file, "SKILL.md"), path.as_posix())
    except InputError as error:
        return [Finding("error", None, str(error))], None
    checked = description_findings(document.description, path.as_posix())
    lenient = (
        [Finding("warning", None, f"{document.lenient}; {LENIENT}")] if document.lenient else []
    )
    folder = None if PurePath(path) == ROOT_SKILL else PurePath(path).parent.name
    named = [
        Finding("warning", None, f"{path.as_posix()}: {problem} ({SPEC_NAME})")
        for problem in name_problems(document.name, folder)
    ]
    return [*lenient, *checked, *named, *reference_findings(root, path, deleted)], document


def lint_candidate_alone(candidate: str) -> tuple[list[Finding], Scope]:
    """`--candidate PATH` outside any repository: that SKILL.md alone."""
    path = Path(candidate)
    findings, _document = skill_file_findings(Path.cwd(), path)
    return findings, Scope((path.as_posix(),))


def candidate_findings(
    targets: dict[Path, Target], args: LintRequest, broken: set[SetKey]
) -> list[Finding]:
    """With `--candidate`, each skill's description there (the working tree's is checked
    with its SKILL.md)."""
    from activation.commands.visibility import set_key
    from activation.inputs.lint import description_findings
    from activation.inputs.load import resolve_variant

    if args.candidate is None:
        return []
    return [
        finding
        for target in targets.values()
        if set_key(target) not in broken
        for finding in description_findings(
            resolve_variant(args.candidate, target, Path.cwd()).description,
            f"{target.skill_path.as_posix()} at {args.candidate}",
        )
    ]


def _read(folder: Path, given: Sequence[Path]) -> bool:
    """Whether `--behavior` already names this suite: the folder, or a file in it."""
    here = folder.resolve()
    return any(path == here or (path.is_file() and path.parent == here) for path in given)


def _suite_shown(suite: Path, root: Path) -> str:
    """A behavior suite as the last line names it: a folder with its slash, a file as is."""
    return _shown(suite, root) + ("/" if suite.is_dir() else "")


def _shown(path: Path, root: Path) -> str:
    """A path as the last line names it: relative to `root` (the repo, or the current
    folder) when it lies there."""
    resolved = path.resolve()
    return (
        resolved.relative_to(root.resolve()).as_posix()
        if resolved.is_relative_to(root.resolve())
        else str(path)
    )


def set_findings(
    anchors: Sequence[Target],
    args: LintRequest,
    shown: dict[str, str],
) -> tuple[list[Finding], int, dict[str, str]]:
    """Each set's own checks: its skills that read alike (on the menu a run would list),
    and what each agent lists of it (at `--candidate`, else the working tree), as findings
    on the skills of `shown` (id -> SKILL.md: those in scope that let the model invoke
    them); how many agents were checked; and for each SKILL.md of a set that some agent
    cannot parse (already an error), the error's line saying what each agent does with it.
    `anchors` are skills that parse."""
    from activation.commands.visibility import set_inputs
    from activation.inputs.lint import overlap_findings
    from activation.report.visibility import agent_view, lint_findings
    from activation.trials.agents import known
    from activation.trials.listing.menu import unparsed_words

    agents = known()
    findings: list[Finding] = []
    words: dict[str, str] = {}
    for target in anchors:
        inputs = set_inputs(target, args.candidate, None, args.catalog)
        findings += overlap_findings(menu_of(target, args)[1])
        words |= unparsed_words(inputs, agents)
        for agent in agents:
            findings += lint_findings(agent_view(agent, inputs, None, ("candidate",)), shown)
    return findings, len(agents) if anchors else 0, words


def case_file_findings(
    root: Path,
    file: str,
    targets: dict[Path, Target],
    args: LintRequest,
    broken: set[SetKey],
    session: Session,
) -> list[Finding]:
    """A case file found in the repo, checked with the description and menu of the skill
    it is about (its own `skill`, else the skill folder it lies in); alone when it names no
    skill of the repo, or when that skill's set cannot be read."""
    from activation.commands.visibility import set_key
    from activation.inputs.repo_cases import read_source

    try:
        checked = read_source(root / file, args.cases_format)
    except InputError as error:
        return [Finding("error", None, str(error))]
    owner = _owner(checked.written_for, file, targets)
    description, menu = None, None
    alone = []
    if owner is None:
        about = f"names {checked.written_for}" if checked.written_for else "names no skill"
        said = f"{file}: {about}, and no skill of this repo holds it: its cases were checked"
        alone.append(Finding("warning", None, f"{said} without a description or menu"))
    elif set_key(owner) in broken:
        session.warn(
            [f"{file}: its cases were checked alone (a SKILL.md of its set does not parse)"]
        )
    else:
        description, menu = menu_of(owner, args)
    return alone + [
        Finding(finding.level, finding.case_id, f"{file}: {finding.message}")
        for finding in lint(checked, description, strict=args.strict, menu=menu, alone=True)
    ]


def _owner(written_for: str | None, file: str, targets: dict[Path, Target]) -> Target | None:
    """The skill a case file is about: the one its `skill` names (by id, or by folder name
    for an id with no plugin, or by its frontmatter name from its own folder), else the
    skill whose folder holds it."""
    from activation.inputs.load import aliases_of, read_text

    inside = [t for t in targets.values() if PurePath(file).is_relative_to(t.skill_path.parent)]
    if written_for is None:
        found = inside
    else:
        found = [t for t in targets.values() if written_for in (t.skill_id, t.skill_name)]
        found = found or [
            t
            for t in inside
            if written_for in aliases_of(t, read_text(t.skill_file, "SKILL.md"), ())
        ]
    return found[0] if len(found) == 1 else None


def reference_findings(root: Path, shown: PurePath, deleted: Collection[str] = ()) -> list[Finding]:
    """Every file the SKILL.md at `shown` (relative to `root`) refers to that is not where
    the agent looks (the routing layer: a table of references to files that are not
    there), at its line in the file: an error for a link or a placeholder path, a warning
    for a path only named in a code span or a table, or a link to a file the body has the
    agent write (maybe a file of the user's project);
    and each file of its folder deleted since the last commit that the body still names,
    even in prose ("read FORMS.md"), or that it names in code where the file was, at its
    plugin's or project's root too (`deleted`: repo-relative paths)."""
    from activation.inputs.references import missing_reference_lines
    from activation.inputs.words import named_lines

    skill_file = root / shown
    if not skill_file.is_file():
        return []
    folder = skill_file.parent
    text = skill_file.read_text(encoding="utf-8")
    body = split_document(text, str(folder)).body
    before = len(text.splitlines()) - len(body.splitlines())
    present = [path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()]
    prefix = "" if shown.parent == PurePath() else f"{shown.parent.as_posix()}/"
    gone = [path.removeprefix(prefix) for path in deleted if path.startswith(prefix)]
    plugin, project = _roots(root, shown)
    around = Around(
        plugin=_exists_under(root, plugin),
        project=_exists_under(root, project),
        sibling=_in_another_skill(None if shown.parent == PurePath() else root / shown.parent),
    )
    places = [shown.parent, *(place for place in (plugin, project) if place is not None)]
    references = missing_reference_lines(body, present, around)
    missing = [
        found
        for found in references
        if found.certain or all((place / found.path).as_posix() not in deleted for place in places)
    ]
    said = {found.path.lower() for found in references}
    named = sorted(
        [
            *named_lines(body, [path for path in gone if path.lower() not in said]),
            *((found.path, found.line) for found in references if found not in missing),
        ],
        key=lambda name: name[1],
    )
    deleted_found = [
        Finding(
            "error",
            None,
            f"{shown.as_posix()}:{before + line} names {name}, which was deleted since the "
            "last commit: the agent will not find it",
        )
        for name, line in named
    ]
    return deleted_found + [
        Finding(
            "error" if found.certain else "warning",
            None,
            f"{shown.as_posix()}:{before + found.line} {_missing_line(found)}",
        )
        for found in missing
    ]


def _missing_line(found: Reference) -> str:
    """What is wrong with a reference the agent will not find, from its line on."""
    if found.differs_in_case:
        return (
            f"refers to {found.path}, but the skill's file is {found.differs_in_case} (the "
            "names differ in case: the agent cannot read it on a case-sensitive file system)"
        )
    if found.quoted:
        return (
            f"links to {found.path}, which its {found.place} lacks, inside a quoted example (in "
            "double quotes or a blockquote): fine if it shows how to write a link"
        )
    if found.certain:
        return f"refers to {found.path}, which its {found.place} lacks"
    if found.output:
        return (
            f"links to {found.path}, which is not in its skill, its plugin or its project: "
            "the body names it as a file the agent writes (in a fenced block or after "
            "'generate', 'write' or 'create'), fine if it is a page of the user's project"
        )
    return (
        f"may refer to {found.path}, which is not in its skill, its plugin or its project (a "
        "path in code or a table, not a link: fine if it is a file of the user's project or "
        "another skill's)"
    )


def _roots(root: Path, shown: PurePath) -> tuple[PurePath | None, PurePath | None]:
    """Where Claude Code finds what the skill at `shown` names outside its folder
    (relative to `root`): its plugin's root (the nearest folder above it with a plugin
    manifest, else the folder above its `skills/`), and the project's root for a skill of a
    project's `.claude/skills/` or `.agents/skills/` (the agent works in the project)."""
    from activation.inputs.target import (
        MANIFEST,
        fallback_plugin_root,
        nested_skills_folder,
        plugin_root_candidates,
        skills_folder,
    )

    nested = nested_skills_folder(shown)
    manifests = (
        folder for folder in plugin_root_candidates(shown) if (root / folder / MANIFEST).is_file()
    )
    plugin = next(manifests, None if nested else fallback_plugin_root(shown))
    project = skills_folder(shown) if nested else None
    return plugin, None if project is None else project.parent.parent


def _exists_under(root: Path, folder: PurePath | None) -> Callable[[str], bool]:
    """Whether a relative path exists in `folder` of `root` (never, when there is none)."""
    return lambda path: folder is not None and (root / folder / path).exists()


def _in_another_skill(skill: Path | None) -> Callable[[str], bool]:
    """Whether another skill beside the one in `skill` has a relative path (never for a
    skill at the repo's root: nothing beside it is a skill of its set)."""
    from activation.inputs.target import SKILL_FILE_NAME

    def found(path: str) -> bool:
        return skill is not None and any(
            (other / path).exists()
            for other in skill.parent.iterdir()
            if other != skill and (other / SKILL_FILE_NAME).is_file()
        )

    return found


def unparsed_skill_findings(target: Target) -> list[Finding]:
    """Every SKILL.md of the repo the agents cannot parse or list (a run about another
    skill leaves it out with a warning)."""
    from activation.inputs.load import skill_problems

    return [Finding("error", None, problem) for problem in skill_problems(target.repo)]


def behavior_findings(path: Path, strict: bool = False) -> list[Finding]:
    """The behavior cases' own checks, and graders that pass on a scaffold alone; `strict`:
    the authoring advice (levels, the final judge, unread keys) is an error too."""
    from activation.inputs.lint import lint_behavior
    from activation.inputs.load import load_behavior_suite
    from activation.trials.behavior.scaffold_lint import scaffold_findings

    cases = load_behavior_suite(path).cases
    here = [replace(case, source=_shown(Path(case.source), Path.cwd())) for case in cases]
    return [*lint_behavior(here, strict=strict), *scaffold_findings(cases)]
