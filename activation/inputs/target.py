"""Which skill is measured: the repo, its SKILL.md, the plugin around it and the invocable id.

The agent addresses a plugin skill as `<plugin name>:<skill folder>`, so the id must be derived
exactly as the agent derives it; nothing here knows about any particular plugin beyond the
default skill path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from activation._config import PLUGINS_DIR, SKILL_PATH
from activation._errors import InputError

SKILL_FILE_NAME = "SKILL.md"
MANIFEST = PurePath(".claude-plugin/plugin.json")
"""The plugin manifest, relative to a plugin root."""


def choose_only_skill(found: Sequence[PurePath]) -> PurePath:
    """The fallback skill path: usable only when it is unambiguous, otherwise say what was seen."""
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(
            f"no {SKILL_PATH} and no {SKILL_FILE_NAME} under {PLUGINS_DIR}/: pass --skill-path"
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
