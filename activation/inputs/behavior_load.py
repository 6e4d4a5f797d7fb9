"""Reading a behavior suite, and everything a Stage C run needs, from disk: the one place
Stage C's inputs touch files.

A path is a folder of the seeds' case files (`*.json` directly in it), a folder of eval
folders (each folder holding a PROMPT.md, at any depth, is one eval), both at once, a single
case file, or a single eval folder. A `*.json` with behavioral `evals` and no `slug` is a
per-skill JSON file (skill-creator's `evals.json`; behavior_skill_creator.py). Everything read
is validated by the pure parsers beside this module, and every problem is one InputError
line naming the file and the case.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath

from activation._behavior import BehaviorCase, BehaviorSuite, ScaffoldFile
from activation._config import BASELINE
from activation._errors import InputError
from activation._models import Case, Inputs, Target, Variant
from activation.inputs.behavior_cases import parse_case_file, scaffold_path
from activation.inputs.behavior_evals import GRADERS_FILES, GRADERS_TS, PROMPT_FILE, SCAFFOLD_DIR
from activation.inputs.behavior_evals import parse_eval as parse_eval_folder
from activation.inputs.behavior_skill_creator import behavior_cases, eval_files
from activation.inputs.changes import EVALS_FOLDER, is_cases_file
from activation.inputs.formats.detect import detect
from activation.inputs.formats.skill_json import has_evals
from activation.inputs.load import (
    load_catalog,
    read_bytes,
    read_document,
    read_text,
    resolve_target,
    resolve_variant,
)
from activation.inputs.target import SKILL_FILE_NAME
from activation.inputs.variants import git_ref, working_tree_spec

NEITHER = (
    "not behavior cases (a seeds' case file has a 'slug', skill-creator's evals.json "
    "'evals' of prompts)"
)
"""Why a file is no behavior case file; what it lacks as trigger cases follows."""
Tree = tuple[tuple[str, bytes], ...]
"""A set's files as an installed copy holds them: (POSIX path below its root, bytes)."""
_NOT_SEARCHED = frozenset({"node_modules", SCAFFOLD_DIR})
"""Folders never searched for eval folders (besides hidden ones)."""


def load_behavior_suite(path: Path) -> BehaviorSuite:
    """Every behavior case under `path`; an InputError when there is none or one is bad."""
    cases: tuple[BehaviorCase, ...]
    skipped: list[str] = []
    if not path.exists():
        raise InputError(f"behavior cases not found: {path}")
    if path.is_file():
        cases = (
            (_eval_folder(path.parent, None),)
            if path.name == PROMPT_FILE
            else _case_file(path) or ()
        )
    elif (path / PROMPT_FILE).is_file():
        cases = (_eval_folder(path, None),)
    else:
        found: list[BehaviorCase] = []
        for case_file in sorted(p for p in path.glob("*.json") if p.is_file()):
            read = _case_file(case_file, beside=True)
            if read is None:
                skipped.append(case_file.name)
            else:
                found += read
        found += [
            _eval_folder(folder, folder.parent.name if folder.parent != path else None)
            for folder in _eval_folders(path)
        ]
        cases = tuple(found)
    if not cases:
        raise InputError(
            f"{path}: no behavior cases (expected *.json case files or folders with a "
            f"{PROMPT_FILE})"
        )
    _check_unique(cases)
    return BehaviorSuite(str(path), cases, tuple(skipped))


def skipped_warning(suite: Path, skipped: tuple[str, ...]) -> list[str]:
    """The suite folder's files that hold no cases, in one line: named, never a refusal."""
    if not skipped:
        return []
    return [f"{suite}: not read (no behavior or trigger cases in them): {', '.join(skipped)}"]


def _case_file(path: Path, beside: bool = False) -> tuple[BehaviorCase, ...] | None:
    """A seeds' case file, or the `evals` of a per-skill JSON file (skill-creator's
    `evals.json`), whose input files are read from the skill's folder (else the file's).
    `beside`: the file was found in a suite's folder, where a trigger cases file (one
    `--cases` reads, or one named as skill-creator names its trigger eval set, whatever it
    holds) is left for `--cases`, which says what is wrong with it; a file there of no
    format (a JSON schema, a results file) is None, for the run to name and skip."""
    document = read_document(path, "case file")
    if "slug" in _keys(document.data):
        return parse_case_file(document.data, str(path))
    if not has_evals(document):
        if beside and is_cases_file(path.name):
            return ()
        try:
            detect(document)
        except InputError as error:
            if beside:
                return None
            nearest = str(error).removeprefix(f"{path}: ")
            raise InputError(f"{path}: {NEITHER}, {nearest}") from None
        if beside:
            return ()
        raise InputError(f"{path}: trigger cases, not behavior cases: pass it to --cases")
    root = next(
        (
            folder
            for folder in (path.parent, path.parent.parent)
            if folder.resolve().name == document.folder_skill
        ),
        path.parent,
    )
    where = f"{path}: its evals' files"
    files: dict[str, bytes] = {}
    for name in eval_files(document):
        relative = scaffold_path(name, where)
        files.update(_input_files(root / relative, relative))
    return behavior_cases(document, files)


def _input_files(path: Path, relative: str) -> dict[str, bytes]:
    """An eval's input file by its relative path, or every file under a folder it names."""
    if not path.is_dir():
        return {relative: read_bytes(path, "eval input file")}
    return {
        f"{relative}/{inner.relative_to(path).as_posix()}": read_bytes(inner, "eval input file")
        for inner in sorted(path.rglob("*"))
        if inner.is_file()
    }


def _keys(data: object) -> tuple[object, ...]:
    return tuple(data) if isinstance(data, dict) else ()


def _eval_folders(root: Path) -> list[Path]:
    folders: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        if PROMPT_FILE in names:
            folders.append(Path(folder))
            subfolders.clear()
            continue
        subfolders[:] = sorted(
            name for name in subfolders if name not in _NOT_SEARCHED and not name.startswith(".")
        )
    return sorted(folders)


def _eval_folder(folder: Path, category: str | None) -> BehaviorCase:
    prompt = read_text(folder / PROMPT_FILE, "PROMPT.md")
    graders = {
        name: read_bytes(folder / name, "graders file")
        for name in (*GRADERS_FILES, GRADERS_TS)
        if (folder / name).is_file()
    }
    return parse_eval_folder(
        prompt, graders, _scaffold(folder / SCAFFOLD_DIR), str(folder), category
    )


def _scaffold(folder: Path) -> tuple[ScaffoldFile, ...]:
    """The scaffold's files as bytes (a scaffold may hold images), by relative POSIX path."""
    if not folder.is_dir():
        return ()
    return tuple(
        (path.relative_to(folder).as_posix(), read_bytes(path, "scaffold file"))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )


def _check_unique(cases: tuple[BehaviorCase, ...]) -> None:
    first: dict[str, BehaviorCase] = {}
    for case in cases:
        seen = first.setdefault(case.id, case)
        if seen is not case:
            raise InputError(
                f"duplicate behavior case id {case.id!r} in {seen.source} and {case.source}"
            )


def load_behavior_inputs(
    cwd: Path,
    suite: Path,
    *,
    repo: Path | None = None,
    skill_path: str | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    only: tuple[str, ...] | None = None,
    catalog: Path | None = None,
    alone: bool = False,
) -> Inputs:
    """Everything a Stage C run needs: the suite's graded cases (`only`: those ids), the
    skill they are about (its `skills`/`origin_skill` picks it from a repo of several), and
    the whole set at each spec, body and references, as its `Variant.tree`. `alone`: the
    candidate on both sides (an A/A run; no baseline is read)."""
    loaded = load_behavior_suite(suite)
    graded = loaded.graded
    if not graded:
        raise InputError(f"{suite}: every case is manual (no graders): nothing to run")
    if only is not None:
        known = {case.id for case in graded}
        unknown = [id for id in only if id not in known]
        if unknown:
            raise InputError(
                f"--only: no graded case {', '.join(unknown)} in {suite} "
                f"(it has {', '.join(sorted(known))})"
            )
        graded = tuple(case for case in graded if case.id in only)
    about = next(
        (skill for case in graded for skill in (*case.skills, case.origin_skill) if skill), None
    )
    target = resolve_target(repo, skill_path, cwd, about)
    second = with_tree(
        resolve_variant(candidate or working_tree_spec(target), target, cwd), target, suite
    )
    first = (
        second
        if alone
        else with_tree(resolve_variant(baseline or BASELINE, target, cwd), target, suite)
    )
    return Inputs(
        target,
        tuple(_case(case) for case in graded),
        (),
        first,
        second,
        catalog=load_catalog(catalog) if catalog is not None else (),
        working_text=read_text(target.skill_file, "SKILL.md")
        if target.skill_file.is_file()
        else None,
        behavior=graded,
        behavior_skipped=loaded.skipped,
    )


def _case(case: BehaviorCase) -> Case:
    """The case as the engine schedules and judges it: right means its graders passed."""
    why = "; ".join(case.expectations) or case.name
    return Case(case.id, case.prompt, True, why, tags=(case.category,) if case.category else ())


def with_tree(variant: Variant, target: Target, suite: Path | None = None) -> Variant:
    """The variant with every file of its set the agent may read: as committed at a `git:`
    ref, else the working tree's (as git lists it) with the measured SKILL.md read from the
    spec's file; the graders (each skill's `evals/`, and the `suite` being run) left out."""
    ref = git_ref(variant.spec)
    if ref is not None:
        from activation.inputs.git_tree import tree_at

        files = dict(tree_at(variant.spec, ref, target))
    else:
        measured = target.skill_file.relative_to(target.plugin_root).as_posix()
        files = dict(working_tree(target.plugin_root))
        files[measured] = variant.text.encode()
    hidden = None
    if suite is not None and suite.resolve().is_relative_to(target.plugin_root.resolve()):
        hidden = suite.resolve().relative_to(target.plugin_root.resolve()).as_posix()
    return replace(variant, tree=without_graders(files, hidden))


def without_graders(files: Mapping[str, bytes], suite: str | None) -> Tree:
    """The files an installed copy holds: every one but those of a skill's `evals/` folder
    (beside its SKILL.md) and of the `suite` (a path below the set's root), so an agent at
    work can never read the graders' answers, in either arm."""
    kept = set(grader_free(files, suite))
    return tuple(sorted((path, data) for path, data in files.items() if path in kept))


def grader_free(paths: Iterable[str], suite: str | None = None) -> list[str]:
    """`paths` (POSIX, below a set's root) but those of a skill's `evals/` folder (beside a
    SKILL.md among them) and of the `suite`."""
    listed = list(paths)
    skills = {
        PurePosixPath(path).parent for path in listed if PurePosixPath(path).name == SKILL_FILE_NAME
    }
    hidden = {folder / EVALS_FOLDER for folder in skills}
    if suite not in (None, "."):
        hidden.add(PurePosixPath(suite))
    return [
        path
        for path in listed
        if not any(PurePosixPath(path).is_relative_to(folder) for folder in hidden)
    ]


def working_files(root: Path) -> list[str]:
    """The working tree's files under `root` by POSIX path below it, as git lists them
    (tracked, and untracked but not ignored: the same kind of files a `git:` ref holds, never
    a user's node_modules, `.env` or build output); outside a git repository every file,
    `.git` and `node_modules` left out."""
    from activation.inputs.git_tree import working_paths

    try:
        return working_paths(root)
    except InputError:  # not a git repository
        return _walked(root)


def working_tree(root: Path) -> Tree:
    """The working tree's files under `root` (`working_files`) with their bytes. Symbolic
    links are never followed."""
    found = []
    for relative in working_files(root):
        path = root / relative
        if path.is_file() and not path.is_symlink():
            found.append((relative, read_bytes(path, "file")))
    return tuple(found)


def _walked(root: Path) -> list[str]:
    """Every file's path below `root`, `.git` and `node_modules` left out."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name not in (".git", "node_modules"))
        found += [(Path(folder) / name).relative_to(root).as_posix() for name in sorted(names)]
    return found
