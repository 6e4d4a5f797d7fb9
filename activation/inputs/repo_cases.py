"""A repo's case files, where the field keeps them, and the case files a user names: the
one search every command shares (`changed`, the main command and `lint` with no `--cases`),
and the one reader of several `--cases`.

An edge module, like load.py: it reads the working tree. Where it looks (`LOOKED`): every
file named as a format names its files, anywhere; and, by their shape, the files of each
skill's folder, of any `evals/` or `tests/` folder (obra/superpowers keeps its prompts in
`tests/`, and git-ignores `evals/`), beside the skill folders and at the repo's top.
Plain-text prompts (`.txt`) are read in a `prompts/` folder of those places. A skill's
`evals/` that holds another tool's suite, in no format this tool reads (waza's `eval.yaml`
and `tasks/`; Claude Code's plugin-eval cases, plugin_eval.py), and a scenario suite in
`tests/scenarios/<skill>/` (scenarios.py), is named with its files and why, so a change to
the skill's body is "not tested" rather than a suite that cannot be read; so is
skill-creator's workspace copy of a suite (`<skill>-workspace/iteration-N/`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from activation._errors import InputError
from activation.inputs import plugin_eval, scenarios
from activation.inputs.cases import CaseFile, refuse_problems
from activation.inputs.change_plan import CasesFile
from activation.inputs.changes import (
    CASE_SUFFIXES,
    EVALS_FOLDER,
    SkillPlace,
    Tree,
    is_cases_file,
    marketplace_of,
    may_hold_cases,
    skills_in,
    tree_filter,
)
from activation.inputs.formats import PROMPT_TEXT, prompt_text
from activation.inputs.suite import LOOKED
from activation.inputs.target import MARKETPLACE, SKILL_FILE_NAME

TESTS_FOLDER = "tests"
WAZA = (
    "waza's suite (eval.yaml and tasks/): its tasks grade the agent's reply text, and this "
    "tool grades the files the agent leaves"
)
FOREIGN = "no format this tool reads (behavior cases are *.json case files or PROMPT.md folders)"


@dataclass(frozen=True)
class Foreign:
    """An eval folder in another tool's format: its files, and why it is not read."""

    folder: str
    files: tuple[str, ...]
    reason: str
    partial: bool = False
    """Whether other files of the folder are read (a trigger file, a skill's suite in it):
    then only the unread files are named, never the whole folder."""

    @property
    def line(self) -> str:
        more = len(self.files) - 4
        shown = ", ".join(self.files[:4]) + (f" and {more} more" if more > 0 else "")
        if self.partial:
            return f"in {self.folder}/, {shown}: {self.reason}: not read"
        return f"{self.folder}/ holds {self.reason} ({shown}): not read"


@dataclass(frozen=True)
class Workspace:
    """skill-creator's workspace (`<skill>-workspace/`, beside the skill's folder): the
    `evals.json` it copies into each iteration is a copy of the skill's suite, not it."""

    folder: str
    files: tuple[str, ...]

    @property
    def line(self) -> str:
        home = self.folder.removesuffix(WORKSPACE)
        copies = "copies" if len(self.files) > 1 else "copy"
        return (
            f"{', '.join(self.files)} {'are' if len(self.files) > 1 else 'is'} skill-creator's "
            f"workspace {copies}: not read; its suite belongs in {home}/{EVALS_FOLDER}/"
        )


WORKSPACE = "-workspace"
_WORKSPACE_COPY = re.compile(rf"^(.+{WORKSPACE})/iteration-\d+/evals\.json$")


@dataclass(frozen=True)
class RepoCases:
    """What the search found: the activation case files (each with the skill it is about),
    the per-skill JSON files with behavior evals, the eval folders that hold a behavior
    suite this tool reads, and those in another tool's format."""

    cases: tuple[CasesFile, ...] = ()
    behavior: tuple[CasesFile, ...] = ()
    suites: frozenset[str] = frozenset()
    foreign: tuple[Foreign | Workspace, ...] = ()
    unread: tuple[str, ...] = ()
    """Why each file shaped as cases could not be read (a lenient search's: lint's)."""
    skipped: tuple[str, ...] = ()
    """Why each file of a `tests/` folder shaped as cases could not be read: tests hold
    fixtures of every kind, so such a file is left out, and said, never an error."""

    @property
    def foreign_lines(self) -> list[str]:
        """A line for each foreign suite, the scenario suites in one line."""
        grouped = [
            suite.folder
            for suite in self.foreign
            if isinstance(suite, Foreign) and suite.reason == scenarios.REASON
        ]
        lines = [suite.line for suite in self.foreign if suite.folder not in grouped]
        return lines + ([scenarios.shown(grouped)] if grouped else [])

    @property
    def plugin_suites(self) -> frozenset[str]:
        """The folders of `foreign` that hold Claude Code's plugin-eval cases: each is about
        every skill of the plugin it lies in."""
        return frozenset(
            suite.folder
            for suite in self.foreign
            if isinstance(suite, Foreign) and suite.reason == plugin_eval.REASON
        )

    def of(self, skill: str, skills: Mapping[str, SkillPlace]) -> tuple[str, ...]:
        """The case files about the skill of SKILL.md path `skill` (see
        `change_plan.owners`), those in its own folder first."""
        from activation.inputs.change_plan import owners

        mine = [file.path for file in self.cases if skill in owners(file, skills)]
        inside = [path for path in mine if path.startswith(f"{skills[skill].folder}/")]
        return tuple(dict.fromkeys([*inside, *mine]))

    def lines(self, skills: Mapping[str, SkillPlace]) -> list[str]:
        """Where it looked and what it found, a line each: the case files per skill (a
        folder of prompt files as one line), those about no skill, and foreign suites."""
        from activation.inputs.change_plan import owners

        found: dict[str, list[str]] = {}
        for file in self.cases:
            about = [skills[path].id for path in owners(file, skills)] or ["no skill"]
            found.setdefault(_shown_place(file.path), []).extend(about)
        lines = [f"cases: looked in {'; '.join(LOOKED)}"]
        for place, about in found.items():
            counts = Counter(about)
            text = ", ".join(
                f"{skill} ({n} files)" if n > 1 else skill for skill, n in counts.items()
            )
            lines.append(f"  found {place}: {text}")
        if not found:
            lines.append("  found no activation case file (behavior suites: each skill's line)")
        lines += [f"  {line}" for line in self.foreign_lines]
        lines += [f"  not read: {message}" for message in self.skipped]
        return lines


def _shown_place(path: str) -> str:
    """A case file as the found line shows it: a prompt file by its folder."""
    if PurePosixPath(path).suffix.lower() != prompt_text.SUFFIX:
        return path
    return f"{prompt_text.folder_of(path)}/*.txt"


def working_tree(repo: Path) -> Tree:
    """The working tree's files where skills are looked for (as git lists them: tracked,
    and untracked but not ignored)."""
    from activation.inputs.git_tree import working_paths

    served = repo / MARKETPLACE
    keep = tree_filter(marketplace_of(served.read_bytes() if served.is_file() else None))
    tree = {}
    for path in working_paths(repo):
        file = repo / path
        if keep(path) and file.is_file() and not file.is_symlink():
            tree[path] = file.read_bytes()
    return tree


def is_prompt_file(path: str, skill_folders: Sequence[str]) -> bool:
    """A `.txt` file in a `prompts/` folder of a skill's folder, or of an `evals/` or
    `tests/` folder: one prompt a file."""
    pure = PurePosixPath(path)
    if pure.suffix.lower() != prompt_text.SUFFIX or prompt_text.PROMPTS not in pure.parent.parts:
        return False
    if {EVALS_FOLDER, TESTS_FOLDER} & set(pure.parent.parts):
        return True
    return any(path.startswith(f"{folder}/") for folder in skill_folders)


def find_case_files(
    repo: Path, skill_folders: Sequence[str], *, lenient: bool = False
) -> RepoCases:
    """Every case file of the repo's working tree (as git lists it; every file of a folder
    git does not track), each read for the skill it is about (`skill_folders`: the repo's
    skill folders, repo-relative, whose names name prompt files), the eval folders that
    hold a behavior suite, and those in another tool's format. A file named as cases that
    cannot be read is an input error, and so is a file shaped as cases whose cases are not
    right, except in a `tests/` folder (`skipped`); another file that fits no format is
    simply not a cases file. `lenient` (lint, which reads each file itself and says its
    problems): a named file is listed unread, and a shaped file that cannot be read is
    listed in `unread`."""
    from activation.inputs.git_tree import working_paths

    names = {PurePosixPath(folder).name for folder in skill_folders}
    try:
        paths = working_paths(repo)
    except InputError:  # --repo names a folder git does not track: every file in it
        paths = sorted(f.relative_to(repo).as_posix() for f in repo.rglob("*") if f.is_file())
    cases: list[CasesFile] = []
    behavior: list[CasesFile] = []
    unread: list[str] = []
    skipped: list[str] = []
    tables: dict[str, list[tuple[str, str]]] = {}
    for path in paths:
        if is_prompt_file(path, skill_folders):
            cases.append(CasesFile(path, prompt_text.skill_of(path, names)))
            continue
        named = is_cases_file(path) and not _tool_settings(path, skill_folders)
        if not (named or _may_hold(path, skill_folders)) or not (repo / path).is_file():
            continue
        header = None if named else other_csv(repo / path)
        if header is not None:
            tables.setdefault(PurePosixPath(path).parent.as_posix(), []).append((path, header))
            continue
        if named and lenient:
            cases.append(CasesFile(path, None))
            continue
        try:
            found_cases, found_evals = read_case_file(repo, path, named)
        except InputError as error:
            if not named and not may_hold_cases(path, skill_folders):
                skipped.append(str(error))  # only a tests/ folder's: a fixture, maybe
            elif lenient:
                unread.append(str(error))
            else:
                raise
            continue
        cases += [found_cases] if found_cases else []
        behavior += [found_evals] if found_evals else []
    skipped += [_tables_line(folder, found) for folder, found in tables.items()]
    trigger = {file.path for file in cases}
    own = [place for folder in skill_folders for place in eval_places(folder)]
    suites: set[str] = set()
    present = [path for path in paths if (repo / path).is_file()]  # a deleted file is none
    plugin_evals = plugin_eval.suites(present)
    foreign: list[Foreign | Workspace] = []
    read = trigger | {file.path for file in behavior}
    said = trigger | {path for found in tables.values() for path, _header in found}
    said |= {p for p in paths if any(p.startswith(f"{f}/") for f in plugin_evals)}
    for place in [*own, EVALS_FOLDER]:
        files = [p for p in paths if p.startswith(f"{place}/") and p not in said]
        if place == EVALS_FOLDER:  # the root's, less the skills' own folders in it
            files = [p for p in files if not any(p.startswith(f"{o}/") for o in own)]
        if not files:
            continue
        if _reads(place, files):
            suites.add(place)
            continue
        shown = tuple(p.removeprefix(f"{place}/") for p in files)
        if _is_waza(repo, place, files):
            foreign.append(Foreign(place, shown, WAZA))
            continue
        partial = any(p.startswith(f"{place}/") for p in (*read, *suites))
        foreign.append(Foreign(place, shown, FOREIGN, partial))
    foreign += [Foreign(f, cases, plugin_eval.REASON) for f, cases in plugin_evals.items()]
    foreign += [
        Foreign(f, files, scenarios.REASON) for f, files in scenarios.suites(present).items()
    ]
    foreign += workspaces(present)
    return RepoCases(
        tuple(cases),
        tuple(behavior),
        frozenset(suites),
        tuple(foreign),
        tuple(unread),
        tuple(skipped),
    )


def workspaces(paths: Sequence[str]) -> list[Workspace]:
    """skill-creator's workspaces among the paths that hold a copy of a suite, each with its
    copies (`<skill>-workspace/iteration-N/evals.json`)."""
    found: dict[str, list[str]] = {}
    for path in paths:
        match = _WORKSPACE_COPY.match(path)
        if match:
            found.setdefault(match.group(1), []).append(path)
    return [Workspace(folder, tuple(files)) for folder, files in sorted(found.items())]


def other_csv(file: Path) -> str | None:
    """A CSV file's header, when it is not the CSV trigger format's (a table of data or
    results beside the cases): such a file is said, never passed over in silence."""
    import csv

    from activation.inputs.load import CSV_HEADER

    if file.suffix.lower() != ".csv":
        return None
    try:
        with file.open(encoding="utf-8-sig", newline="") as handle:
            header = tuple(name.strip() for name in next(csv.reader(handle), []))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None  # reading it as cases says what is wrong
    return None if set(CSV_HEADER) <= set(header) else ",".join(header) or "none"


def _tables_line(folder: str, found: Sequence[tuple[str, str]]) -> str:
    """The CSV files of one folder that are not cases, in one line (a folder of fixtures
    is one line, not one a file)."""
    from activation.inputs.load import CSV_HEADER

    wanted = f"is not the CSV case format's ({','.join(CSV_HEADER)})"
    if len(found) == 1:
        path, header = found[0]
        return f"{path}: a CSV file whose header ({header}) {wanted}"
    names = ", ".join(PurePosixPath(path).name for path, _header in found[:4])
    more = f" and {len(found) - 4} more" if len(found) > 4 else ""
    return f"{folder}/: {len(found)} CSV files ({names}{more}) whose header {wanted}"


def eval_places(skill_folder: str) -> tuple[str, str]:
    """Where a skill's eval folder may be: its own `evals/`, or `evals/<skill>/` at the
    repo's root (waza's layout of a repo of several skills)."""
    return f"{skill_folder}/{EVALS_FOLDER}", f"{EVALS_FOLDER}/{PurePosixPath(skill_folder).name}"


def _tool_settings(path: str, skill_folders: Sequence[str]) -> bool:
    """Whether a file lies in a hidden folder outside every skill folder (`.github/workflows/`,
    `.vscode/`): a tool's settings, such as the CI workflow that runs a skill's tests
    (`.github/workflows/skill-tests.yaml`), never a case file by its name."""
    if any(path.startswith(f"{folder}/") for folder in skill_folders):
        return False
    return any(part.startswith(".") for part in PurePosixPath(path).parent.parts)


def _may_hold(path: str, folders: Sequence[str]) -> bool:
    """`changes.may_hold_cases`, and a `tests/` folder anywhere."""
    pure = PurePosixPath(path)
    in_tests = TESTS_FOLDER in pure.parent.parts and pure.suffix.lower() in CASE_SUFFIXES
    return in_tests or may_hold_cases(path, folders)


def _reads(place: str, files: Sequence[str]) -> bool:
    """Whether an eval folder's files (repo-relative, trigger cases left out) make a behavior
    suite `activation behavior` reads: a `*.json` case file at its top, or a PROMPT.md."""
    for path in files:
        relative = PurePosixPath(path.removeprefix(f"{place}/"))
        if len(relative.parts) == 1 and relative.suffix == ".json":
            return True
        if relative.name == "PROMPT.md":
            return True
    return False


def _is_waza(repo: Path, place: str, files: Sequence[str]) -> bool:
    """An `eval.yaml` (or `.yml`) with `tasks` at the folder's top: waza's suite."""
    return any(f"{place}/{name}" in files for name in WAZA_FILES) and _holds_waza(repo / place)


WAZA_FILES = ("eval.yaml", "eval.yml")


def _holds_waza(folder: Path) -> bool:
    """Whether the folder's `eval.yaml` (or `.yml`) lists tasks: waza's suite."""
    from activation._yaml import load_yaml

    for name in WAZA_FILES:
        if (folder / name).is_file():
            try:
                data = load_yaml((folder / name).read_text(encoding="utf-8-sig"))
            except (OSError, UnicodeDecodeError, ValueError):
                return False
            return isinstance(data, dict) and "tasks" in data
    return False


def read_case_file(repo: Path, path: str, named: bool) -> tuple[CasesFile | None, CasesFile | None]:
    """What a file holds: the skill its cases are about (None: no cases), and the skill its
    behavioral evals are about (None: none). A file `named` as cases files are
    (changes.is_cases_file) is one, and a file that does not parse or fits no format is an
    input error; any other file is a cases file when its shape is one format's (else it is
    not one: no error), and then cases it cannot read are an input error too. A per-skill
    JSON file's evals are a behavior suite, whatever its trigger part."""
    from activation.inputs.formats.detect import is_trigger_cases
    from activation.inputs.formats.skill_json import has_evals, skill_of
    from activation.inputs.load import load_cases, read_document

    file = Path(os.path.relpath(repo / path))  # as its errors name it: from the cwd
    try:
        document = read_document(file)
    except InputError:
        if named:
            raise
        return None, None
    behavior = CasesFile(path, skill_of(document)) if has_evals(document) else None
    if not named and not is_trigger_cases(document):
        return None, behavior
    return CasesFile(path, load_cases(file).written_for), behavior


# --- the case files a user names ---------------------------------------------------------


def expand(given: Sequence[Path], cwd: Path, said: str = "--cases ") -> tuple[Path, ...]:
    """`--cases` as files, in order, each once: a file as it is; a comma list as its parts;
    a folder as the case files below it (named as cases, of a format's shape, or `.txt`
    prompts), as `changed` finds them. A path that is none of these is an input error,
    named after `said` (how the command took it: a flag, or `import`'s argument)."""
    found: list[Path] = []
    for path in given:
        parts = [path]
        if not (cwd / path).exists() and "," in str(path):
            parts = [Path(part.strip()) for part in str(path).split(",") if part.strip()]
        for part in parts:
            whole = cwd / part
            if whole.is_dir():
                inside = _cases_in(whole)
                if not inside:
                    raise InputError(
                        f"{said}{part}: a folder with no case file in it{_why_none(whole)}"
                    )
                found += [part / name for name in inside]
            elif whole.exists():
                found.append(part)
            else:
                where = "" if part.is_absolute() else f" (relative to the current folder {cwd})"
                raise InputError(f"{said}{part}: no such file{where}")
    return tuple(dict.fromkeys(found))


def _why_none(folder: Path) -> str:
    """Why a folder holds no case file, when it is waza's suite, a scenario suite or Claude
    Code's plugin-eval cases: whose, and why unread."""
    from activation.inputs.formats.detect import WAZA_WHY

    if _holds_waza(folder):
        return f": it holds waza's suite (eval.yaml and tasks/), {WAZA_WHY}"
    if any((folder / name).is_file() for name in scenarios.FILES):
        return f": it holds {scenarios.REASON}: not read"
    return plugin_eval.why_none(folder)


def _cases_in(folder: Path) -> list[str]:
    """The case files below a folder, relative to it, sorted."""
    from activation.inputs.formats.detect import is_trigger_cases
    from activation.inputs.load import read_document

    found = []
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    scenarios = {file.parent for file in files if file.name.lower() == prompt_text.PROMPT_FILE}
    for file in files:
        relative = file.relative_to(folder).as_posix()
        text = file.suffix.lower() == prompt_text.SUFFIX
        if (
            text
            and file.name.lower() != prompt_text.PROMPT_FILE
            and (any(place in file.parents for place in scenarios))
        ):
            continue  # a case folder's other text (its context/), not a prompt
        if file.suffix.lower() == prompt_text.SUFFIX or is_cases_file(relative):
            found.append(relative)
        elif file.suffix.lower() in CASE_SUFFIXES:
            try:
                fits = is_trigger_cases(read_document(file))
            except InputError:
                fits = False
            if fits:
                found.append(relative)
    return found


def read_source(path: Path, format: str | None = None) -> CaseFile:
    """One case file's cases, with every problem: a `.txt` file as one prompt (named for
    the skill its place names), any other as `load.read_cases` reads it."""
    from activation.inputs.load import read_cases, read_text

    if format == PROMPT_TEXT or (format is None and path.suffix.lower() == prompt_text.SUFFIX):
        skill = prompt_text.skill_of(path.resolve().as_posix(), known_skills(path))
        return prompt_text.read(str(path), read_text(path, "prompt file"), skill)
    return read_cases(path, format)


_NAMES_SKILLS = re.compile(r'^[\s-]*"?skills"?\s*:', re.MULTILINE)


def skill_set_files(files: Sequence[Path]) -> list[str]:
    """The files beside the prompt files among `files` that name skills for them (dbt Labs'
    scenarios keep a `skill-sets.yaml` beside each `prompt.txt`), in no format this tool
    reads: a run or an import says so, rather than guess which skill a prompt is about."""
    found: dict[Path, None] = {}
    for path in files:
        if path.suffix.lower() != prompt_text.SUFFIX:
            continue
        for sibling in sorted(path.parent.iterdir()):
            if sibling.suffix.lower() in (".yaml", ".yml", ".json") and sibling.is_file():
                try:
                    text = sibling.read_text(encoding="utf-8-sig")
                except (OSError, UnicodeDecodeError):
                    continue
                if _NAMES_SKILLS.search(text):
                    found[sibling] = None
    return [str(path) for path in found]


def skill_sets_line(files: Sequence[Path]) -> list[str]:
    """`skill_set_files` in one warning line (none when there are none)."""
    found = skill_set_files(files)
    if not found:
        return []
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return [
        f"{', '.join(found[:3])}{more}: name{'s' if len(found) == 1 else ''} skills for the "
        "prompt files beside them, in a format this tool does not read: not read; those "
        "cases are about the skill a run measures (--skill-path), or write 'expect' in the "
        "imported file"
    ]


def read_given(given: Sequence[Path], cwd: Path, format: str | None = None) -> CaseFile:
    """The cases of every file `--cases` names (`expand`), with every problem: one file's
    as it is, several made one as `activation import` makes them (each prompt once; files
    about several skills, a routing suite)."""
    from activation.inputs.formats.merge import merge

    files = expand(given, cwd)
    shown = [path if path.is_absolute() else Path(os.path.relpath(cwd / path)) for path in files]
    read = [(str(path), read_source(path, format)) for path in shown]
    if len(read) == 1:
        return read[0][1]
    return merge(read).file


def load_given(given: Path | Sequence[Path], cwd: Path, format: str | None = None) -> CaseFile:
    """`read_given` (of one file or several), any problem an input error naming them."""
    files = [given] if isinstance(given, Path) else list(given)
    return refuse_problems(read_given(files, cwd, format), ", ".join(map(str, files)))


def known_skills(path: Path) -> frozenset[str]:
    """The skill names of the repo a file lies in (its folders holding a SKILL.md, as git
    lists them), which name its prompt files; none outside a git repo."""
    from activation.inputs.git_tree import working_paths

    start = path.resolve().parent
    root = next((folder for folder in (start, *start.parents) if (folder / ".git").exists()), None)
    if root is None:
        return frozenset()
    return frozenset(
        PurePosixPath(found).parent.name
        for found in working_paths(root)
        if PurePosixPath(found).name == SKILL_FILE_NAME
    )


def repo_skills(repo: Path) -> dict[str, SkillPlace]:
    """The working tree's skills, by SKILL.md path (as `changed` finds them)."""
    return skills_in(working_tree(repo), repo.name)


@dataclass(frozen=True)
class Chosen:
    """The case files a run without `--cases` uses (empty: the bundled suite), and the
    lines that say where it looked, what it found and which it uses."""

    files: tuple[Path, ...]
    lines: tuple[str, ...]


def cases_for_run(repo: Path, skill_path: str | None) -> Chosen:
    """The repo's own case files for a run given no `--cases`: those about `--skill-path`'s
    skill, else about the repo's only skill, else every one that names a skill (a routing
    suite over the set). The bundled auth0 target (`plugins/auth0/...`, the default skill
    path) keeps the bundled suite it was written with."""
    from activation._config import SKILL_PATH

    relative = None if skill_path is None else _relative(repo, skill_path)
    if (repo / SKILL_PATH).is_file() and relative in (None, SKILL_PATH.as_posix()):
        return Chosen((), ())
    try:
        skills = repo_skills(repo)
        found = find_case_files(repo, [place.folder for place in skills.values()])
    except InputError:  # not a git repository: nothing is listed, so nothing is found
        return Chosen((), ())
    chosen = [path for path, place in skills.items() if relative in (path, place.folder)]
    if relative is not None and not chosen:
        return Chosen((), ())  # names no skill found here: reading the target says so
    if not chosen and len(skills) == 1:
        chosen = list(skills)
    if chosen:
        files = found.of(chosen[0], skills)
    else:
        from activation.inputs.change_plan import owners

        files = tuple(file.path for file in found.cases if owners(file, skills))
    if not files:
        return Chosen((), ())  # the bundled suite, and its own warning says to pass --cases
    lines = [*found.lines(skills), f"cases: using {', '.join(_shown_files(files))}"]
    return Chosen(tuple(repo / path for path in files), tuple(lines))


def _relative(repo: Path, skill_path: str) -> str:
    given = Path(skill_path)
    whole = given if given.is_absolute() else repo / given
    try:
        return PurePosixPath(os.path.relpath(whole, repo)).as_posix()
    except ValueError:
        return skill_path


def _shown_files(files: Sequence[str]) -> list[str]:
    """The files, a folder's prompt files (when several) as one `<folder>/*.txt (N)`."""
    places: dict[str, list[str]] = {}
    for path in files:
        places.setdefault(_shown_place(path), []).append(path)
    return [found[0] if len(found) == 1 else f"{place} ({len(found)})"
            for place, found in places.items()]  # fmt: skip
