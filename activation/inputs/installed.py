"""The files an installed copy of a skill set holds, for Stage C's agent at work: the whole
set at a spec, body and references, with every grader's answers left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath

from activation._errors import InputError
from activation._models import Target, Variant
from activation.inputs.changes import EVALS_FOLDER
from activation.inputs.load import read_bytes
from activation.inputs.target import SKILL_FILE_NAME
from activation.inputs.variants import git_ref

Tree = tuple[tuple[str, bytes], ...]
"""A set's files as an installed copy holds them: (POSIX path below its root, bytes)."""


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
