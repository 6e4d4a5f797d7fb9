"""Which skill is measured: the repo, its SKILL.md, the plugin around it and the invocable id.

The agent addresses a plugin skill as `<plugin name>:<skill folder>`, so the id must be derived
exactly as the agent derives it; nothing here knows about any particular plugin beyond the
default skill path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

import git
import orjson

from activation.errors import InputError

DEFAULT_SKILL_PATH = PurePath("plugins/auth0/skills/auth0/SKILL.md")
"""The default `--skill-path`, relative to the repo."""

PLUGINS_DIR = "plugins"
"""Where the fallback looks for the only SKILL.md of the repo."""

SKILL_FILE_NAME = "SKILL.md"
MANIFEST = PurePath(".claude-plugin/plugin.json")
"""The plugin manifest, relative to a plugin root."""


@dataclass(frozen=True)
class Target:
    """The measured skill; `repo` and `plugin_root` are absolute, `skill_path` is repo-relative."""

    repo: Path
    skill_path: Path
    plugin_root: Path
    plugin_name: str
    skill_name: str

    @property
    def skill_id(self) -> str:
        """The name the agent lists and invokes the skill by."""
        return f"{self.plugin_name}:{self.skill_name}"

    @property
    def skill_file(self) -> Path:
        """The working-tree SKILL.md (it may not exist: a `git:` variant can still be read)."""
        return self.repo / self.skill_path


# --- pure core ---------------------------------------------------------------------------


def choose_only_skill(found: Sequence[PurePath]) -> PurePath:
    """The fallback skill path: usable only when it is unambiguous, otherwise say what was seen."""
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(
            f"no {DEFAULT_SKILL_PATH} and no {SKILL_FILE_NAME} under {PLUGINS_DIR}/: "
            "pass --skill-path"
        )
    listing = ", ".join(path.as_posix() for path in sorted(found))
    raise InputError(
        f"{len(found)} {SKILL_FILE_NAME} files under {PLUGINS_DIR}/ ({listing}): "
        "pass --skill-path to choose one"
    )


def plugin_root_candidates(skill_path: PurePath) -> list[PurePath]:
    """Folders that may hold the plugin manifest, nearest first, up to the repo root ('.')."""
    return list(skill_path.parents)


def fallback_plugin_root(skill_path: PurePath) -> PurePath:
    """Without a manifest: the folder above `skills/`, else the skill folder's parent.

    Never above the repo root, so a SKILL.md at the root of the repo stays inside it.
    """
    skill_dir = skill_path.parent
    if skill_dir.parent.name == "skills":
        return skill_dir.parent.parent
    return skill_dir.parent  # PurePath(".").parent is ".": the repo root is the ceiling


def plugin_name_from_manifest(data: object, fallback: str, source: str = str(MANIFEST)) -> str:
    """The manifest's `name`, else `fallback` (the plugin folder's name), as the agent does."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the plugin manifest is not a JSON object")
    name = data.get("name")
    if name is None or name == "":
        return fallback
    if not isinstance(name, str):
        raise InputError(f"{source}: the plugin manifest's 'name' is not a string")
    return name


def relative_skill_path(repo: Path, skill_path: str) -> Path:
    """`--skill-path` relative to the repo; absolute paths are accepted if they lie inside it."""
    given = Path(skill_path)
    absolute = Path(os.path.normpath(given if given.is_absolute() else repo / given))
    if not absolute.is_relative_to(repo):
        # An absolute path may reach the (resolved) repo through a symlink, e.g. /tmp on macOS.
        absolute = absolute.parent.resolve() / absolute.name
    if not absolute.is_relative_to(repo):
        raise InputError(f"--skill-path {skill_path}: not inside the repo {repo}")
    relative = absolute.relative_to(repo)
    if relative == Path():
        raise InputError(f"--skill-path {skill_path}: names the repo itself, not a SKILL.md")
    return relative


# --- filesystem shell --------------------------------------------------------------------


def git_root(cwd: Path) -> Path:
    """The working tree containing `cwd`: the default `--repo`."""
    try:
        repo = git.Repo(cwd, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"{cwd} is not inside a git repository: pass --repo DIR") from None
    with repo:
        if repo.working_tree_dir is None:
            raise InputError(f"{repo.git_dir} is a bare git repository: pass --repo DIR")
        return Path(repo.working_tree_dir).resolve()


def explicit_repo(repo: Path, cwd: Path) -> Path:
    """`--repo` need not be a git repository unless a `git:` variant is read from it."""
    path = (cwd / repo).resolve()
    if not path.is_dir():
        raise InputError(f"--repo {repo}: no such directory")
    return path


def find_skill_files(repo: Path) -> list[PurePath]:
    """Every SKILL.md under `plugins/`, repo-relative and sorted, for the fallback."""
    plugins = repo / PLUGINS_DIR
    if not plugins.is_dir():
        return []
    return sorted(
        PurePath(path.relative_to(repo))
        for path in plugins.rglob(SKILL_FILE_NAME)
        if path.is_file()
    )


def default_skill_path(repo: Path) -> Path:
    """The auth0 default when present, else the only SKILL.md under `plugins/`."""
    if (repo / DEFAULT_SKILL_PATH).is_file():
        return Path(DEFAULT_SKILL_PATH)
    return Path(choose_only_skill(find_skill_files(repo)))


def find_plugin_root(repo: Path, skill_path: Path) -> Path:
    """The nearest ancestor holding the manifest, else the layout-based fallback (absolute)."""
    with_manifest = (
        folder
        for folder in plugin_root_candidates(skill_path)
        if (repo / folder / MANIFEST).is_file()
    )
    return repo / next(with_manifest, fallback_plugin_root(skill_path))


def read_plugin_name(plugin_root: Path) -> str:
    """The plugin's name from its manifest when it has one, else its folder's name."""
    manifest = plugin_root / MANIFEST
    if not manifest.is_file():
        return plugin_root.name
    try:
        data = orjson.loads(manifest.read_bytes())
    except orjson.JSONDecodeError as error:
        raise InputError(f"{manifest}: the plugin manifest is not valid JSON ({error})") from None
    except OSError as error:
        raise InputError(
            f"{manifest}: cannot read the plugin manifest ({error.strerror})"
        ) from None
    return plugin_name_from_manifest(data, plugin_root.name, str(manifest))


def resolve_target(repo: Path | None, skill_path: str | None, cwd: Path) -> Target:
    """Resolve `--repo` and `--skill-path` (either may be None for its default)."""
    root = git_root(cwd) if repo is None else explicit_repo(repo, cwd)
    relative = (
        default_skill_path(root) if skill_path is None else relative_skill_path(root, skill_path)
    )
    if (root / relative).is_dir():
        raise InputError(
            f"--skill-path {relative.as_posix()}: is a directory; "
            f"pass the {SKILL_FILE_NAME} inside it"
        )
    plugin_root = find_plugin_root(root, relative)
    return Target(
        repo=root,
        skill_path=relative,
        plugin_root=plugin_root,
        plugin_name=read_plugin_name(plugin_root),
        skill_name=(root / relative).parent.name,
    )
