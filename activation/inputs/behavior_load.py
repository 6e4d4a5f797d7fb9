"""Reading a behavior suite from disk: the one place Stage C's inputs touch files.

A path is a folder of the seeds' case files (`*.json` directly in it), a folder of eval
folders (each folder holding a PROMPT.md, at any depth, is one eval), both at once, a single
case file, or a single eval folder. Everything read is validated by the pure parsers beside
this module, and every problem is one InputError line naming the file and the case.
"""

from __future__ import annotations

import os
from pathlib import Path

from activation._behavior import BehaviorCase, BehaviorSuite, ScaffoldFile
from activation._errors import InputError
from activation.inputs.behavior_cases import parse_case_file
from activation.inputs.behavior_evals import GRADERS_FILES, GRADERS_TS, PROMPT_FILE, SCAFFOLD_DIR
from activation.inputs.behavior_evals import parse_eval as parse_eval_folder
from activation.inputs.load import read_bytes, read_json, read_text

_NOT_SEARCHED = frozenset({"node_modules", SCAFFOLD_DIR})
"""Folders never searched for eval folders (besides hidden ones)."""


def load_behavior_suite(path: Path) -> BehaviorSuite:
    """Every behavior case under `path`; an InputError when there is none or one is bad."""
    cases: tuple[BehaviorCase, ...]
    if not path.exists():
        raise InputError(f"behavior cases not found: {path}")
    if path.is_file():
        if path.name == PROMPT_FILE:
            cases = (_eval_folder(path.parent, None),)
        else:
            cases = parse_case_file(read_json(path, "case file"), str(path))
    elif (path / PROMPT_FILE).is_file():
        cases = (_eval_folder(path, None),)
    else:
        found = [
            case
            for case_file in sorted(p for p in path.glob("*.json") if p.is_file())
            for case in parse_case_file(read_json(case_file, "case file"), str(case_file))
        ]
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
    return BehaviorSuite(str(path), cases)


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
