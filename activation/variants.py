"""The two descriptions being compared: each read from a git ref of the target repo or a file.

A variant keeps the whole SKILL.md text as well as its description, because Stage B builds a
plugin copy from it; only the description may differ between the two copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import git
from gitdb.exc import ODBError

from activation.errors import InputError
from activation.frontmatter import DESCRIPTION_LIMIT, read_description
from activation.target import Target

GIT_PREFIX = "git:"
DEFAULT_BASELINE = "git:HEAD"

_GIT_LOOKUP_ERRORS = (ODBError, ValueError, IndexError, NotImplementedError)
"""What gitpython raises for a ref it cannot resolve or an object a shallow clone lacks."""

_SYMLINK_MODE = 0o120000


@dataclass(frozen=True)
class Variant:
    """One side of the comparison; `source` says where it came from, for people."""

    spec: str
    description: str
    text: str
    source: str


# --- pure core ---------------------------------------------------------------------------


def working_tree_spec(target: Target) -> str:
    """The default candidate: the SKILL.md as it is on disk now."""
    return str(target.skill_file)


def git_ref(spec: str) -> str | None:
    """The ref of a `git:<ref>` spec, None for a path spec; an empty ref is an error."""
    if not spec.startswith(GIT_PREFIX):
        return None
    ref = spec.removeprefix(GIT_PREFIX).strip()
    if not ref:
        raise InputError(f"{spec!r}: 'git:' needs a ref, e.g. git:main or git:HEAD")
    return ref


def unknown_ref_message(spec: str, ref: str, repo: Path) -> str:
    """The commonest cause in CI is a shallow checkout that never fetched the base branch."""
    if ref.startswith("HEAD") or any(mark in ref for mark in "~^@"):
        fetch = "`git fetch --unshallow`"  # a revision expression: more history, not a branch
    else:
        fetch = f"`git fetch origin {ref.removeprefix('origin/')}`"
    return (
        f"{spec}: no commit {ref!r} in {repo} "
        f"(a shallow CI clone may need {fetch}, or a checkout with fetch-depth: 0)"
    )


def description_warnings(variant: Variant) -> list[str]:
    """The agent cuts descriptions at DESCRIPTION_LIMIT, so a longer one is not what it sees."""
    length = len(variant.description)
    if length <= DESCRIPTION_LIMIT:
        return []
    return [
        f"{variant.spec}: the description is {length:,} characters, "
        f"over the agent's limit of {DESCRIPTION_LIMIT:,}"
    ]


def decode_skill(data: bytes, source: str) -> str:
    """SKILL.md files are UTF-8; a BOM is tolerated because editors on Windows add one."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{source}: not UTF-8 text (byte {error.start})") from None


# --- git and filesystem shell ------------------------------------------------------------


def _open_repo(spec: str, target: Target) -> git.Repo:
    try:
        return git.Repo(target.repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(
            f"{spec}: {target.repo} is not a git repository (pass a file path instead)"
        ) from None


def path_in_tree(repo: git.Repo, target: Target) -> str:
    """The SKILL.md's path inside git's tree, which is rooted at the working tree, not --repo."""
    if repo.working_tree_dir is None:
        return target.skill_path.as_posix()
    root = Path(repo.working_tree_dir).resolve()
    return PurePosixPath(*target.repo.relative_to(root).parts, *target.skill_path.parts).as_posix()


def read_at_ref(spec: str, ref: str, target: Target) -> Variant:
    """Read the target SKILL.md as committed at `ref`."""
    repo = _open_repo(spec, target)
    try:
        path = path_in_tree(repo, target)
        data = _blob_at(repo, spec, ref, path, target.repo)
    finally:
        repo.close()  # gitpython keeps `git cat-file` processes alive until closed
    source = f"{GIT_PREFIX}{ref}:{path}"
    text = decode_skill(data, source)
    return Variant(spec, read_description(text, source), text, source)


def _blob_at(repo: git.Repo, spec: str, ref: str, path: str, shown_repo: Path) -> bytes:
    try:
        obj = repo.rev_parse(ref)
        while isinstance(obj, git.TagObject):  # an annotated tag: peel to what it tags
            obj = obj.object
        if not isinstance(obj, git.Commit):
            raise InputError(f"{spec}: {ref!r} names a {obj.type}, not a commit")
        tree = obj.tree  # a shallow clone that lacks the commit fails here
    except _GIT_LOOKUP_ERRORS:
        raise InputError(unknown_ref_message(spec, ref, shown_repo)) from None
    try:
        blob = tree / path
    except KeyError:
        raise InputError(f"{spec}: {path} does not exist at {ref} ({obj.hexsha[:12]})") from None
    except _GIT_LOOKUP_ERRORS:
        raise InputError(unknown_ref_message(spec, ref, shown_repo)) from None
    if blob.type != "blob":
        raise InputError(f"{spec}: {path} is a {blob.type} at {ref}, not a file")
    if blob.mode == _SYMLINK_MODE:
        raise InputError(f"{spec}: {path} is a symbolic link at {ref}; pass the file it names")
    try:
        return bytes(blob.data_stream.read())
    except _GIT_LOOKUP_ERRORS:
        raise InputError(unknown_ref_message(spec, ref, shown_repo)) from None


def read_path(spec: str, cwd: Path) -> Variant:
    """Read a SKILL.md given as a path relative to `cwd` (or absolute)."""
    path = cwd / spec
    if path.is_dir():
        raise InputError(f"{spec}: is a directory; pass the SKILL.md inside it")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{spec}: no such file ({path})") from None
    except OSError as error:
        raise InputError(f"{spec}: cannot read {path} ({error.strerror})") from None
    text = decode_skill(data, spec)
    return Variant(spec, read_description(text, spec), text, spec)


def resolve_variant(spec: str, target: Target, cwd: Path) -> Variant:
    """Turn a `--baseline`/`--candidate` SPEC into its description and full text."""
    ref = git_ref(spec)
    if ref is None:
        return read_path(spec, cwd)
    return read_at_ref(spec, ref, target)
