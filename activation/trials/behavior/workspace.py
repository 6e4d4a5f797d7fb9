"""The files an agent left in its workspace, as the graders see them.

Never graded: lockfiles (they pin a whole dependency graph, so a substring there says nothing
of the code the agent wrote), installed dependencies and build output (`UNSCANNED_DIRS`),
`.git`, binary files, files over `BEHAVIOR_MAX_FILE_BYTES`, symbolic links (one could point
at the skill), and the installed skill's own folders, whose references hold the right code:
grading them would pass every case.

`workspace_of` applies these rules to files already read (a scaffold, a test's files);
`read_workspace` is the edge that reads a folder, and `write_scaffold` the one that lays a
case's scaffold into a fresh one.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from activation._behavior import ScaffoldFile
from activation._config import BEHAVIOR_MAX_FILE_BYTES

LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "Podfile.lock",
        "poetry.lock",
        "Pipfile.lock",
        "uv.lock",
        "Cargo.lock",
        "composer.lock",
        "Gemfile.lock",
        "go.sum",
        "packages.lock.json",
        "Package.resolved",
    }
)
"""Generated lockfiles by name; any `*.lock` file is one too."""
UNSCANNED_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".next",
        ".nuxt",
        ".output",
        "dist",
        "Pods",
        "vendor",
    }
)
"""Folders, at any depth, of version control, installed dependencies and build output."""


@dataclass(frozen=True)
class Workspace:
    """The gradable text files, as (relative POSIX path, text) sorted by path, and the files
    left out with why (a lockfile, binary, too large, a symbolic link)."""

    files: tuple[tuple[str, str], ...]
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(path for path, _ in self.files)


def is_lockfile(path: str) -> bool:
    name = posixpath.basename(path)
    return name in LOCKFILES or name.endswith(".lock")


def is_unscanned(path: str, excluded: Iterable[str] = ()) -> bool:
    """Whether a relative path lies in a folder never graded: `UNSCANNED_DIRS` at any depth,
    or one of `excluded` (relative POSIX paths of folders or files, the skill's copy)."""
    if any(part in UNSCANNED_DIRS for part in path.split("/")[:-1]):
        return True
    return any(path == gone or path.startswith(f"{gone.rstrip('/')}/") for gone in excluded)


def workspace_of(
    files: Iterable[tuple[str, bytes | str]], excluded: Iterable[str] = ()
) -> Workspace:
    """The workspace made of these files (relative POSIX paths), by the rules above."""
    excluded = tuple(posixpath.normpath(path) for path in excluded)
    kept: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    for path, content in files:
        if is_unscanned(path, excluded):
            continue
        if is_lockfile(path):
            skipped.append((path, "lockfile"))
            continue
        raw = content.encode() if isinstance(content, str) else content
        if len(raw) > BEHAVIOR_MAX_FILE_BYTES:
            skipped.append((path, f"over {BEHAVIOR_MAX_FILE_BYTES:,} bytes"))
            continue
        text = _text(raw)
        if text is None:
            skipped.append((path, "binary"))
        else:
            kept.append((path, text))
    return Workspace(tuple(sorted(kept)), tuple(sorted(skipped)))


def _text(raw: bytes) -> str | None:
    """UTF-8 text, or None for a binary file (a NUL byte, or not UTF-8)."""
    if b"\0" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_workspace(root: Path, excluded: Iterable[Path] = ()) -> Workspace:
    """The workspace at `root`. `excluded` are the installed skill's folders (absolute, or
    relative to `root`); those outside `root` cannot hold workspace files and are ignored.
    Symbolic links are never followed."""
    skip = [
        path.as_posix()
        for gone in excluded
        if (path := _relative(gone if gone.is_absolute() else root / gone, root)) is not None
    ]
    files: list[tuple[str, bytes | str]] = []
    links: list[tuple[str, str]] = []
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        inside = here.relative_to(root).as_posix()
        entries = [(name, posixpath.normpath(f"{inside}/{name}")) for name in (*subfolders, *names)]
        subfolders.clear()
        for name, relative in entries:
            path = here / name
            if (name in UNSCANNED_DIRS and path.is_dir()) or is_unscanned(relative, skip):
                continue
            if path.is_symlink():
                links.append((relative, "symbolic link"))
            elif path.is_dir():
                subfolders.append(name)
            elif path.is_file():
                files.append((relative, path.read_bytes()))
    workspace = workspace_of(files, skip)
    return Workspace(workspace.files, tuple(sorted((*workspace.skipped, *links))))


def write_scaffold(scaffold: Iterable[ScaffoldFile], root: Path) -> None:
    """Lay a case's scaffold into the workspace folder `root` (its paths are relative and
    stay inside it: the parsers check them)."""
    for path, content in scaffold:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def _relative(path: Path, root: Path) -> Path | None:
    try:
        return path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
