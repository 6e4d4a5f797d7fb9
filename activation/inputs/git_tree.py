"""Reading the skill set as committed at a ref, with gitpython: the one module that imports it,
only when a `git:` spec is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath

import git
from gitdb.exc import ODBError

from activation._config import AGENT_METADATA, AGENT_METADATA_LIMIT
from activation._errors import InputError
from activation._models import Target, Variant
from activation.inputs.commands import command_found, commands_folder
from activation.inputs.skill_set import AgentFiles, Found, variant_of
from activation.inputs.target import SKILL_FILE_NAME
from activation.inputs.variants import GIT_PREFIX, decode_skill, unknown_ref_message

GIT_LOOKUP_ERRORS = (ODBError, ValueError, IndexError, NotImplementedError)
"""What gitpython raises for a ref it cannot resolve or an object a shallow clone lacks."""
SYMLINK_MODE = 0o120000
"""A git tree entry's mode for a symbolic link."""


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
    """Read the target SKILL.md, and the rest of its set, as committed at `ref`."""
    repo = _open_repo(spec, target)
    try:
        path = path_in_tree(repo, target)
        data = _blob_at(repo, spec, ref, path, target.repo)
        siblings = [
            *_set_at(repo, ref, PurePosixPath(path), target),
            *_commands_at(repo, ref, PurePosixPath(path), target),
        ]
        files = _agent_files_at(repo, ref, PurePosixPath(path).parent)
    finally:
        repo.close()  # gitpython keeps `git cat-file` processes alive until closed
    source = f"{GIT_PREFIX}{ref}:{path}"
    text = decode_skill(data, source)
    return variant_of(spec, text, source, siblings, target, files, f"{GIT_PREFIX}{ref}:")


def _agent_files_at(repo: git.Repo, ref: str, folder: PurePosixPath) -> AgentFiles:
    """The skill folder's per-agent metadata files at `ref` (as `load.agent_files` reads
    them from disk)."""
    try:
        tree = _subtree(_commit_at(repo, ref).tree, folder)
    except (KeyError, InputError, *GIT_LOOKUP_ERRORS):
        return ()
    return _agent_files_in(tree)


def _agent_files_in(tree: git.Tree) -> AgentFiles:
    where, suffixes = AGENT_METADATA
    try:
        below = tree / where
    except KeyError:
        return ()
    found = []
    for blob in sorted(below.blobs, key=lambda b: b.name):
        if PurePosixPath(blob.name).suffix not in suffixes or blob.mode == SYMLINK_MODE:
            continue
        if blob.size > AGENT_METADATA_LIMIT:
            continue
        try:
            text = bytes(blob.data_stream.read()).decode("utf-8")
        except UnicodeDecodeError:
            continue
        found.append((f"{where}/{blob.name}", text))
    return tuple(found)


def tree_at(spec: str, ref: str, target: Target) -> tuple[tuple[str, bytes], ...]:
    """Every file of the set's root (a plugin, or a skills folder) as committed at `ref`,
    by its path below that root; symbolic links are left out (a copy never follows one)."""
    repo = _open_repo(spec, target)
    try:
        below_root = target.skill_file.relative_to(target.plugin_root)
        root = PurePosixPath(path_in_tree(repo, target)).parents[len(below_root.parts) - 1]
        try:
            tree = _subtree(_commit_at(repo, ref).tree, root)
        except GIT_LOOKUP_ERRORS:
            raise InputError(_unknown_ref(repo, spec, ref, target.repo)) from None
        except KeyError:
            raise InputError(f"{spec}: {root} does not exist at {ref}") from None
        return tuple(
            (PurePosixPath(blob.path).relative_to(root).as_posix(), bytes(blob.data_stream.read()))
            for blob in tree.traverse()
            if isinstance(blob, git.Blob) and blob.mode != SYMLINK_MODE
        )
    finally:
        repo.close()


def _subtree(tree: git.Tree, folder: PurePosixPath) -> git.Tree:
    """The tree at `folder` below `tree`: the tree itself for `.` (a plugin at the repo's
    root), which git has no entry for. KeyError when there is no such folder."""
    return tree if folder == PurePosixPath() else tree / folder.as_posix()


def _set_at(repo: git.Repo, ref: str, path: PurePosixPath, target: Target) -> Iterator[Found]:
    """(folder, repo-relative path, bytes, metadata files) of every other SKILL.md of the
    set at `ref`."""
    if not target.in_set:
        return
    if target.members:
        yield from _members_at(repo, ref, path, target)
        return
    folder = path.parent.parent
    try:
        tree = _subtree(_commit_at(repo, ref).tree, folder)
    except (KeyError, InputError, *GIT_LOOKUP_ERRORS):
        return
    for item in sorted(tree.trees, key=lambda t: t.name):
        relative = target.skills_dir / item.name / SKILL_FILE_NAME
        found = None if item.name == target.skill_name else _skill_at(item, relative)
        if found is not None:
            yield found
        yield from _nested_at(item, relative)


def _commands_at(repo: git.Repo, ref: str, path: PurePosixPath, target: Target) -> Iterator[Found]:
    """The set's described commands at `ref` (inputs/commands.py), as `_set_at` yields
    skills."""
    folder = commands_folder(target)
    if folder is None or not target.in_set:
        return
    prefix = _prefix(path, target)
    try:
        tree = _subtree(_commit_at(repo, ref).tree, prefix / folder.as_posix())
    except (KeyError, InputError, *GIT_LOOKUP_ERRORS):
        return
    for blob in sorted(tree.blobs, key=lambda b: b.name):
        if blob.mode == SYMLINK_MODE or not blob.name.endswith(".md"):
            continue
        relative = PurePosixPath(folder.as_posix(), blob.name)
        command = command_found(relative, bytes(blob.data_stream.read()))
        if command is not None:
            yield command


def _prefix(path: PurePosixPath, target: Target) -> PurePosixPath:
    """Where `--repo` sits in git's tree, from the measured skill's path there."""
    return path.parents[len(target.skill_path.parts) - 1]


def _members_at(repo: git.Repo, ref: str, path: PurePosixPath, target: Target) -> Iterator[Found]:
    """The other skills a marketplace entry names, as `_set_at` yields them: those of the
    working tree's members that exist at `ref`."""
    prefix = _prefix(path, target)
    try:
        tree = _commit_at(repo, ref).tree
    except (InputError, *GIT_LOOKUP_ERRORS):
        return
    for member in target.members:
        folder = prefix / PurePosixPath(member.as_posix()).parent
        try:
            item = _subtree(tree, folder)
        except KeyError:
            continue
        found = None if member == target.skill_path else _skill_at(item, member)
        if found is not None:
            yield found
        yield from _nested_at(item, member)


def _skill_at(item: git.Tree, relative: Path) -> Found | None:
    """(folder name, repo-relative path, bytes, metadata files) of the skill folder `item`
    (of a commit's tree), None when it holds no SKILL.md file."""
    try:
        blob = item / SKILL_FILE_NAME
    except KeyError:
        return None
    if blob.type != "blob" or blob.mode == SYMLINK_MODE:
        return None
    return item.name, relative.as_posix(), bytes(blob.data_stream.read()), _agent_files_in(item)


def _nested_at(item: git.Tree, relative: Path) -> Iterator[Found]:
    """Each SKILL.md inside the skill folder `item` (whose SKILL.md is `relative`), as
    `_skill_at` reads a skill, in path order: the agents that walk the whole tree list
    them."""
    inside = [
        PurePosixPath(blob.path).relative_to(PurePosixPath(item.path)).parent
        for blob in item.traverse()
        if isinstance(blob, git.Blob) and blob.name == SKILL_FILE_NAME
    ]
    for folder in sorted(folder for folder in inside if folder != PurePosixPath()):
        found = _skill_at(
            item / folder.as_posix(), Path(relative).parent / folder / SKILL_FILE_NAME
        )
        if found is not None:
            yield found


def names_commit(repo_dir: Path, name: str) -> bool:
    """Whether `name` is a ref (a branch, tag or hash) of the git repository at `repo_dir`."""
    try:
        with git.Repo(repo_dir, search_parent_directories=True) as repo:
            _commit_at(repo, name)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, InputError, *GIT_LOOKUP_ERRORS):
        return False
    return True


def _unknown_ref(repo: git.Repo, spec: str, ref: str, shown: Path) -> str:
    """The line for a ref `repo` cannot resolve, with what the repo has to fetch it by."""
    return unknown_ref_message(
        spec,
        ref,
        shown,
        shallow=(Path(repo.git_dir) / "shallow").is_file(),
        remotes=[remote.name for remote in repo.remotes],
        branches=[head.name for head in repo.heads],
    )


def _commit_at(repo: git.Repo, ref: str) -> git.Commit:
    """The commit `ref` names (an annotated tag peeled); InputError for anything else."""
    obj = repo.rev_parse(ref)
    while isinstance(obj, git.TagObject):
        obj = obj.object
    if not isinstance(obj, git.Commit):
        raise InputError(f"{ref!r} names a {obj.type}, not a commit")
    return obj


def _blob_at(repo: git.Repo, spec: str, ref: str, path: str, shown_repo: Path) -> bytes:
    try:
        obj = _commit_at(repo, ref)
        tree = obj.tree  # a shallow clone that lacks the commit fails here
    except InputError as error:
        raise InputError(f"{spec}: {error}") from None
    except GIT_LOOKUP_ERRORS:
        raise InputError(_unknown_ref(repo, spec, ref, shown_repo)) from None
    try:
        blob = tree / path
    except KeyError:
        raise InputError(f"{spec}: {path} does not exist at {ref} ({obj.hexsha[:12]})") from None
    except GIT_LOOKUP_ERRORS:
        raise InputError(_unknown_ref(repo, spec, ref, shown_repo)) from None
    if blob.type != "blob":
        raise InputError(f"{spec}: {path} is a {blob.type} at {ref}, not a file")
    if blob.mode == SYMLINK_MODE:
        raise InputError(f"{spec}: {path} is a symbolic link at {ref}; pass the file it names")
    try:
        return bytes(blob.data_stream.read())
    except GIT_LOOKUP_ERRORS:
        raise InputError(_unknown_ref(repo, spec, ref, shown_repo)) from None


def _repo_below(repo_dir: Path, shown: str) -> tuple[git.Repo, PurePosixPath]:
    """The open repository holding `repo_dir` (the caller closes it) and where `repo_dir` sits
    in its working tree; one line opened by `shown` when there is none."""
    try:
        repo = git.Repo(repo_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"{shown}{repo_dir} is not a git repository") from None
    try:
        root = Path(repo.working_tree_dir or repo_dir).resolve()
        return repo, PurePosixPath(*repo_dir.resolve().relative_to(root).parts)
    except BaseException:
        repo.close()
        raise


def files_at(repo_dir: Path, spec: str, ref: str, keep: Callable[[str], bool]) -> dict[str, bytes]:
    """Every file of the commit `ref` whose path (relative to `repo_dir`) `keep` accepts,
    symbolic links left out: one version of a repo's skill sets, for `activation changed`."""
    repo, below = _repo_below(repo_dir, f"{spec}: ")
    try:
        try:
            tree = _commit_at(repo, ref).tree
        except InputError as error:
            raise InputError(f"{spec}: {error}") from None
        except GIT_LOOKUP_ERRORS:
            raise InputError(_unknown_ref(repo, spec, ref, repo_dir)) from None
        found = {}
        for item in tree.traverse():
            if not isinstance(item, git.Blob) or item.mode == SYMLINK_MODE:
                continue
            path = PurePosixPath(str(item.path))
            if below.parts and not path.is_relative_to(below):
                continue
            relative = path.relative_to(below).as_posix() if below.parts else path.as_posix()
            if keep(relative):
                found[relative] = bytes(item.data_stream.read())
        return found
    finally:
        repo.close()


def ignored_paths(repo_dir: Path, paths: Sequence[str]) -> set[str]:
    """Which of `paths` (relative to `repo_dir`) git ignores: a folder there is no part of
    any change `activation changed` reads."""
    if not paths:
        return set()
    repo, below = _repo_below(repo_dir, "")
    try:
        full = {(below / path).as_posix(): path for path in paths}
        return {full[path] for path in repo.ignored(*full) if path in full}
    finally:
        repo.close()


def working_paths(repo_dir: Path) -> list[str]:
    """The working tree's files below `repo_dir` as git sees them (tracked, and untracked
    but not ignored), relative to it; for `activation changed`'s head when it is the
    working tree."""
    repo, below = _repo_below(repo_dir, "")
    try:
        listed = repo.git.ls_files("--cached", "--others", "--exclude-standard", "-z")
    finally:
        repo.close()
    found = {PurePosixPath(path) for path in listed.split("\0") if path}
    if not below.parts:
        return sorted(path.as_posix() for path in found)
    return sorted(
        path.relative_to(below).as_posix() for path in found if path.is_relative_to(below)
    )


def deleted_paths(repo_dir: Path) -> list[str]:
    """The files of the last commit that the working tree no longer has (deleted, staged
    or not), relative to `repo_dir`: a SKILL.md that still names one names a file the
    agent will not find. Empty outside a repository or before the first commit."""
    try:
        repo, below = _repo_below(repo_dir, "")
    except InputError:
        return []
    try:
        listed = repo.git.diff("--name-only", "--diff-filter=D", "-z", "HEAD", "--", ".")
    except git.GitCommandError:
        return []
    finally:
        repo.close()
    found = [PurePosixPath(path) for path in listed.split("\0") if path]
    return sorted(
        path.relative_to(below).as_posix() for path in found if path.is_relative_to(below)
    )


def skill_files_at(repo_dir: Path, spec: str, ref: str) -> dict[str, bytes]:
    """The files of the repo's skill sets at the commit `ref` (`changes.tree_filter`:
    where skills are looked for, and the folders the marketplace file there names)."""
    from activation.inputs.changes import marketplace_of, tree_filter
    from activation.inputs.target import MARKETPLACE

    served = MARKETPLACE.as_posix()
    found = files_at(repo_dir, spec, ref, lambda path: path == served)
    return files_at(repo_dir, spec, ref, tree_filter(marketplace_of(found.get(served))))
