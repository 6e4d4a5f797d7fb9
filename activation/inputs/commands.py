"""Claude Code's described commands: a plugin's `commands/<name>.md` and a project's
`.claude/commands/<name>.md` with a `description` are listed beside the skills (as
`<plugin>:<name>` and `<name>`), so they take the same prompts; measured on CLI 2.1.332
(trials/agents/claude_code/listing.py). Only Claude Code lists them."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from activation._errors import InputError
from activation._models import Target
from activation.inputs.frontmatter import read_sibling
from activation.inputs.skill_set import Found

COMMANDS_FOLDER = "commands"
PROJECT_SKILLS = Path(".claude", "skills")


def commands_folder(target: Target) -> Path | None:
    """Where the set's commands sit (repo-relative): the plugin's `commands/`, or
    `.claude/commands` beside a project's `.claude/skills`; None for any other set."""
    if target.in_plugin:
        return target.plugin_root.relative_to(target.repo) / COMMANDS_FOLDER
    if target.skills_dir == PROJECT_SKILLS:
        return PROJECT_SKILLS.parent / COMMANDS_FOLDER
    return None


def is_command(path: str) -> bool:
    """Whether a set member's path is a command file (not a SKILL.md)."""
    file = PurePosixPath(path)
    return file.suffix == ".md" and file.parent.name == COMMANDS_FOLDER


def command_found(relative: PurePosixPath, data: bytes) -> Found | None:
    """A command file as a member of the set (named by its file's stem, no metadata
    files), when it is UTF-8 with a non-blank string `description`: the commands this tool
    lists (one without is listed by its body's first line for a project, not at all for a
    plugin; neither is read yet). Nested `commands/<dir>/<name>.md` are not read."""
    try:
        text = data.decode("utf-8")
        description = read_sibling(text, relative.as_posix()).frontmatter.get("description")
    except (UnicodeDecodeError, InputError):
        return None
    if not isinstance(description, str) or not description.strip():
        return None
    return relative.stem, relative.as_posix(), data, ()


def working_commands(target: Target) -> list[Found]:
    """The set's described commands in the working tree."""
    folder = commands_folder(target)
    if folder is None:
        return []
    found = []
    for path in sorted((target.repo / folder).glob("*.md")):
        if not path.is_file() or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        command = command_found(PurePosixPath(folder.as_posix(), path.name), data)
        if command is not None:
            found.append(command)
    return found
