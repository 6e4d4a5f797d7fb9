"""Which skill is measured: the repo, its SKILL.md, the skill set around it and the id.

A skill lives in a set the agent loads together: a plugin (`<plugin>/skills/<name>/SKILL.md`,
invoked as `<plugin name>:<skill folder>`; or the skills a marketplace entry names, invoked
as `<entry name>:<skill folder>`) or a skills folder (a project's
`.claude/skills/<name>/`, or the Agent Skills layouts `skills/<name>/` at the repo root and
`.agents/skills/<name>/`, invoked by the bare folder name). The id must come out exactly as
the agent derives it; nothing here knows about any particular plugin beyond the default
skill path. Pure: load.py does the disk work.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from activation._config import AGENT_SKILL_FOLDERS, PLUGINS_DIR, SKILL_FOLDERS, SKILL_PATH
from activation._errors import InputError

SKILL_FILE_NAME = "SKILL.md"
MANIFEST = PurePath(".claude-plugin/plugin.json")
"""The plugin manifest, relative to a plugin root."""
MARKETPLACE = PurePath(".claude-plugin/marketplace.json")
"""A marketplace file, at the repo's root: the plugins it serves, by path."""
ROOT_SKILL = PurePath(SKILL_FILE_NAME)
"""A skill at the repo's root (skill-creator's one-skill layout): the repo is the skill's
folder, loaded when it is placed or installed as one, so it is a set of its own, named by
its frontmatter `name` (the checkout's folder name means nothing to the agent)."""
NESTED_SKILL_FOLDERS = (".claude/skills", ".agents/skills", *AGENT_SKILL_FOLDERS)
"""The skills folders an agent loads from a project wherever they lie, whatever plugin
manifest sits above them."""
WHERE = (
    f"{PLUGINS_DIR}/, "
    + ", ".join(f"{folder}/" for folder in SKILL_FOLDERS)
    + ", or at the repo's root"
)
"""The places a repo's skills are looked for, in words."""


def root_skill_name(name: str | None, folder: str) -> str:
    """A root skill's id: its frontmatter `name`, else the folder it was read from."""
    return name.strip() if name and name.strip() else folder


def nested_skills_folder(skill_path: PurePath) -> bool:
    """Whether the SKILL.md lies in a project's `.claude/skills/`, `.agents/skills/` or one
    agent's own folder (`.github/skills/`): a set of its own, never part of a plugin whose
    manifest sits above it."""
    folder = skills_folder(skill_path)
    return folder is not None and any(
        f"/{folder.as_posix()}".endswith(f"/{nested}") for nested in NESTED_SKILL_FOLDERS
    )


def skills_folder(skill_path: PurePath) -> PurePath | None:
    """The skills folder a SKILL.md belongs to, when it is one of the skills-folder layouts:
    `.claude/skills/<name>/` or `.agents/skills/<name>/` anywhere, `skills/<name>/` at the
    repo root. None for anything else (a plugin's skill)."""
    if skill_path.name != SKILL_FILE_NAME or len(skill_path.parts) < 3:
        return None
    folder = skill_path.parent.parent
    if folder.as_posix() in SKILL_FOLDERS or any(
        folder.as_posix().endswith(f"/{n}") for n in NESTED_SKILL_FOLDERS
    ):
        return folder
    return None


NOT_LISTED_BY = "Claude Code, Gemini CLI and GitHub Copilot CLI"
"""The agents that stop at a skill's folder: Claude Code lists `skills/<name>/SKILL.md` and
no deeper, Gemini CLI globs `*/SKILL.md`, Copilot CLI takes the first folder holding a
SKILL.md as the skill."""
LISTED_BY = "Codex and OpenCode"
"""The agents that walk the whole tree (`nested_skills` in their records): Codex's loader
walks every folder below a root, OpenCode globs `**/SKILL.md`."""


def nested_in_skill(found: Sequence[PurePath]) -> dict[PurePath, PurePath]:
    """Each SKILL.md that lies inside another found skill's folder (a sub-document such as
    `carta-issuance/issuance-config/SKILL.md`), mapped to the outermost skill's SKILL.md
    whose folder holds it. A root SKILL.md's folder is the repo: it holds no other skill."""
    folders = {path.parent: path for path in found if path != ROOT_SKILL}
    nested = {}
    for path in found:
        owners = [folders[folder] for folder in list(path.parents)[1:] if folder in folders]
        if path != ROOT_SKILL and owners:
            nested[path] = owners[-1]
    return nested


def nested_line(nested: Iterable[PurePath]) -> str:
    """One line naming the SKILL.md files inside another skill's folder, which agents read
    them as that skill's files and which list each as a skill of its own, as this tool's
    listings for them do."""
    files = sorted(nested)
    return (
        f"{len(files)} SKILL.md inside another skill's folder: "
        f"{', '.join(path.as_posix() for path in files)} ({NOT_LISTED_BY} read them as that "
        f"skill's files; {LISTED_BY} list each as a skill of its own, and so do this tool's "
        "listings for them)"
    )


def skill_sets(
    found: Sequence[PurePath], served: Sequence[MarketplacePlugin] = ()
) -> dict[str, list[PurePath]]:
    """SKILL.md paths grouped by their set, in path order: the marketplace plugin that
    serves them (`plugin billing`), else the folder that holds their skill folders
    (`plugins/p/skills/`)."""
    sets: dict[str, list[PurePath]] = {}
    for path in sorted(found):
        plugin = marketplace_plugin(path, served)
        label = (
            f"plugin {plugin.name}"
            if plugin
            else "the root"
            if path == ROOT_SKILL
            else f"{path.parent.parent.as_posix()}/"
        )
        sets.setdefault(label, []).append(path)
    return sets


PASS_A_SKILL = (
    "pass --skill-path (relative to --repo) to choose one, or --cases with a file that "
    'names it ("skill": "<id>")'
)
"""What to pass when a repo holds several skills and nothing chose one."""


class SkillNotChosen(InputError):
    """Several skills found and nothing chose one. `found` says what was found, for the
    run's one-line error and `lint`'s warning alike."""

    def __init__(self, found: str) -> None:
        self.found = found
        super().__init__(f"{found}; {PASS_A_SKILL}")


def found_text(sets: dict[str, list[PurePath]]) -> str:
    """What was found, set by set: `found 3 skills in 2 sets: a/skills/ (one, two), ...`."""
    count = sum(len(paths) for paths in sets.values())
    listed = ", ".join(
        f"{label} ({', '.join(path.parent.name or path.name for path in paths)})"
        for label, paths in sets.items()
    )
    return f"found {count} skills in {len(sets)} set{'s' if len(sets) > 1 else ''}: {listed}"


def choose_default_skill(
    found: Sequence[PurePath],
    written_for: str | None,
    routes: Sequence[str] = (),
    served: Sequence[MarketplacePlugin] = (),
) -> PurePath:
    """The skill measured when `--skill-path` is not given: the only skill found; else the
    one skill, of every set found, that the cases file was written for (its folder name is
    the last part of the id); else, for a routing suite in one set (`routes`: the skills its
    cases expect, most expected first; every skill of the set is measured alike), the set's
    skill most cases expect, which anchors it (calibrate and suggest act on it, so never a
    skill no case is about); otherwise say what was seen and what to pass (`served`: the
    plugins of the repo's marketplace, each a set)."""
    if not found:
        raise InputError(
            f"no {SKILL_PATH} and no {SKILL_FILE_NAME} under {WHERE}: pass --skill-path"
        )
    if len(found) == 1:
        return found[0]
    wanted = written_for.rsplit(":", 1)[-1] if written_for else None
    named = [path for path in found if path.parent.name == wanted]
    if len(named) == 1:
        return named[0]
    sets = skill_sets(found, served)
    if routes and len(sets) == 1:
        (members,) = sets.values()
        folders = {path.parent.name: path for path in members}
        expected = [folders[name.rsplit(":", 1)[-1]] for name in routes
                    if name.rsplit(":", 1)[-1] in folders]  # fmt: skip
        return expected[0] if expected else members[0]
    raise SkillNotChosen(found_text(sets))


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


@dataclass(frozen=True)
class MarketplacePlugin:
    """A plugin that the repo's marketplace file serves from the repo itself, as Claude Code
    loads it: its skills are `<name>:<skill folder>`."""

    name: str
    root: PurePath
    """Its folder (the entry's `source`), repo-relative: `.` for `"./"`."""
    declared: tuple[PurePath, ...]
    """The folders the entry's `skills` names, repo-relative: each a skill folder or a
    folder of them."""
    default: bool
    """Whether the plugin's own `skills/` folder is loaded too: always, unless the entry
    serves the repo's root and names its skills (anthropics/skills' `"source": "./"`,
    `"strict": false`), when only the named ones are."""
    refused: str | None = None
    """Why Claude Code cannot parse the entry, if so: it keeps the plugin as unsupported
    (it cannot be installed), so none of its skills load."""
    unloaded: tuple[PurePath, ...] = ()
    """The folders a refused entry names for its skills (repo-relative): skills that
    look served and are not, said where they change."""

    @property
    def folders(self) -> tuple[PurePath, ...]:
        """The folders holding its skills' folders, or a skill folder itself."""
        if self.refused is not None:
            return ()
        return (*self.declared, *((self.root / "skills",) if self.default else ()))

    def holds(self, skill_path: PurePath) -> bool:
        """Whether the SKILL.md at `skill_path` is one of its skills."""
        folder = skill_path.parent
        return any(place in (folder, folder.parent) for place in self.folders)


def _inside(base: PurePath, relative: str) -> PurePath | None:
    """`relative` (a marketplace path: `./skills/pdf`) below `base`, normalised; None when it
    leaves the repo (the agent refuses a path that climbs out of the plugin)."""
    joined = posixpath.normpath(posixpath.join(base.as_posix(), relative))
    return None if joined == ".." or joined.startswith(("../", "/")) else PurePath(joined)


def marketplace_plugins(data: object, source: str = str(MARKETPLACE)) -> list[MarketplacePlugin]:
    """The plugins a marketplace file serves from this repo (a `source` that is a path);
    one served from elsewhere (a git or GitHub source) has no skills here."""
    entries = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError(f"{source}: a marketplace file needs a 'plugins' list")
    found = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name, where, named = entry.get("name"), entry.get("source"), entry.get("skills")
        if not isinstance(name, str) or not name or not isinstance(where, str):
            continue
        root = _inside(PurePath(), where)
        if root is None:
            continue
        listed = [named] if isinstance(named, str) else named if isinstance(named, list) else []
        refused = _refused_skills(listed)
        if refused is not None:
            where = [_inside(root, path) for path in map(_item_path, listed) if path]
            unloaded = tuple(path for path in where if path not in (None, root))
            found.append(MarketplacePlugin(name, root, (), False, refused, unloaded))
            continue
        declared = [_inside(root, path) for path in listed if isinstance(path, str)]
        own = (root, root / "skills")
        kept = tuple(path for path in declared if path is not None and path not in own)
        default = not listed or root != PurePath() or any(path in own for path in declared)
        found.append(MarketplacePlugin(name, root, kept, default))
    return found


def _refused_skills(listed: Sequence[object]) -> str | None:
    """Why Claude Code refuses an entry's `skills` (a path or a list of paths, in its
    marketplace schema), if it does: an item that is not a path, such as an object
    `{name, path}`. It then keeps the entry as an unsupported plugin ("Stubbing
    unparseable marketplace plugin entry"), which cannot be installed."""
    for number, item in enumerate(listed, 1):
        if not isinstance(item, str):
            shape = f"an object ({', '.join(item)})" if isinstance(item, dict) else "not a path"
            return (
                f"its 'skills' item {number} is {shape}, and Claude Code reads only paths "
                '("./my-skill") there: it keeps the plugin as unsupported, which cannot be '
                "installed, so none of its skills load"
            )
    return None


def _item_path(item: object) -> str:
    """The folder a `skills` item names: a path, or an object's `path` ('' for none)."""
    if isinstance(item, str):
        return item
    path = item.get("path") if isinstance(item, dict) else None
    return path if isinstance(path, str) else ""


def refused_plugins(plugins: Sequence[MarketplacePlugin]) -> list[str]:
    """Each plugin of a marketplace that Claude Code cannot parse, in one line."""
    return [
        f"{MARKETPLACE.as_posix()}: the plugin {plugin.name}: {plugin.refused}"
        for plugin in plugins
        if plugin.refused is not None
    ]


def marketplace_plugin(
    skill_path: PurePath, plugins: Sequence[MarketplacePlugin]
) -> MarketplacePlugin | None:
    """The first plugin of the marketplace that loads the skill at `skill_path`."""
    return next((plugin for plugin in plugins if plugin.holds(skill_path)), None)


@dataclass(frozen=True)
class SetRoot:
    """Where a skill's set is: a plugin's root (`plugin`), served by the repo's marketplace
    (`served`, its entry) or not, or a skills folder (ids are bare names)."""

    root: PurePath
    plugin: bool
    served: MarketplacePlugin | None = None


def set_root(
    skill_path: PurePath,
    served: Callable[[], Sequence[MarketplacePlugin]],
    has_manifest: Callable[[PurePath], bool],
) -> SetRoot:
    """The set of the skill at `skill_path` (not the root SKILL.md), on disk or in a git tree
    alike: a project's `.claude/skills`/`.agents/skills` folder; else the plugin of the
    marketplace (`served`, read only then) that loads it; else the nearest ancestor holding a
    plugin manifest (`has_manifest`); else a skills folder; else the layout's fallback
    plugin root."""
    if nested_skills_folder(skill_path):
        return SetRoot(skill_path.parent.parent, plugin=False)
    plugin = marketplace_plugin(PurePath(skill_path), served())
    if plugin is not None:
        return SetRoot(PurePath(plugin.root), plugin=True, served=plugin)
    manifests = (folder for folder in plugin_root_candidates(skill_path) if has_manifest(folder))
    root = next(manifests, None)
    if root is None:
        under_plugins = skill_path.parts[:1] == (PLUGINS_DIR,)
        folder = None if under_plugins else skills_folder(skill_path)
        if folder is not None:
            return SetRoot(folder, plugin=False)
        root = fallback_plugin_root(skill_path)
    return SetRoot(root, plugin=True)
