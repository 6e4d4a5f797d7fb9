"""Settings from the project and the environment, under the command line.

A project keeps its settings in `activation.toml` or in `[tool.activation]` of its
`pyproject.toml`, at the target repo's root; `ACTIVATION_<KEY>` variables override the file,
and the command line overrides both. Every option of a command's flag table (flags.py) has a
key, its long flag without `--`, so a flag added there is configurable with no change here.

A file's value must be one of the TOML types the flag declares (`trials = "3"` is refused:
TOML has integers), a path is relative to the file, and then the flag's own converter checks
it, exactly as on the command line. Variables are read as the command line reads text.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from activation._config import CONFIG_FILE, ENV_PREFIX, PYPROJECT
from activation._errors import InputError
from activation._models import Setting
from activation.commands.flags import APPEND, CONFIGURED, Command, Flag

DEFAULT = "default"
COMMAND_LINE = "command line"
TYPE_NAMES: dict[type, str] = {
    bool: "a boolean (true or false)",
    int: "an integer",
    float: "a number",
    str: "a string",
    Path: "a path (a string)",
}
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True)
class SettingsFile:
    """The settings a project file holds; `label` names it in messages and `--dry-run`."""

    path: Path
    label: str
    values: Mapping[str, object]


def env_name(key: str) -> str:
    return ENV_PREFIX + key.replace("-", "_").upper()


def _type_name(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    return names.get(type(value), f"a {type(value).__name__}")


def _wanted(flag: Flag) -> str:
    names = list(dict.fromkeys(TYPE_NAMES[kind] for kind in flag.toml))
    return " or ".join(names) + (" or true" if flag.optional_value else "")


def _is(raw: object, kind: type) -> bool:
    """TOML's value types: a boolean is no number, an integer is a number, a path a string."""
    if isinstance(raw, bool):
        return kind is bool
    if kind is float:
        return isinstance(raw, int | float)
    return isinstance(raw, str if kind is Path else kind)


def convert(flag: Flag, text: str, where: str) -> object:
    """The flag's own converter on `text`, its message kept, as the command line would."""
    try:
        value = flag.value_of(text)
    except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
        detail = str(error) or f"invalid value {text!r}"
        raise InputError(f"{where}: {detail}") from None
    if flag.choices is not None and value not in flag.choices:
        raise InputError(f"{where}: {value!r} is not one of {', '.join(flag.choices)}")
    return value


def from_file(flag: Flag, raw: object, settings: SettingsFile) -> object:
    """A file's value as the flag's type; a path is relative to the file (a word a path
    flag takes instead of a path, `--distractors none` or `generic`, is no path)."""
    where = f"{settings.label}: {flag.key}"
    if isinstance(raw, bool) and (flag.toml == (bool,) or flag.optional_value):
        on = flag.const if flag.optional_value else True
        off = flag.default if flag.optional_value else False
        return on if raw else off
    if not any(_is(raw, kind) for kind in flag.toml):
        shown = "" if flag.toml == (bool,) else f" {raw!r}"
        raise InputError(f"{where} must be {_wanted(flag)}, got {_type_name(raw)}{shown}")
    text = str(raw)
    if Path in flag.toml and convert(flag, text, where) == Path(text):
        text = str(settings.path.parent / text)  # a word (`none`, `generic`) stays one
    return convert(flag, text, where)


def from_env(flag: Flag, text: str, name: str) -> object:
    """A variable's value, read as the command line reads the flag's text."""
    where = f"{name}={text!r}"
    words = text.strip().lower()
    if not flag.takes_value or (flag.optional_value and words in TRUE_WORDS | FALSE_WORDS):
        on = flag.const if flag.optional_value else True
        off = flag.default if flag.optional_value else False
        if words in TRUE_WORDS:
            return on
        if words in FALSE_WORDS:
            return off
        raise InputError(f"{where}: must be one of 1, true, yes, on, 0, false, no, off")
    return convert(flag, text, where)


def nearest_git_folder(start: Path) -> Path | None:
    """The nearest folder holding `.git` (a folder, or a worktree's file), found without git."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _read_toml(path: Path, label: str) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as error:
        raise InputError(f"cannot read {label}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{label}: not UTF-8 (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{label}: not valid TOML ({error})") from None


def read_settings_file(root: Path) -> SettingsFile | None:
    """The one settings file at `root`: `activation.toml`, or pyproject's table.

    Settings in both are refused rather than merged, so no one has to guess which wins.
    """
    found: list[SettingsFile] = []
    own = root / CONFIG_FILE
    if own.is_file():
        found.append(SettingsFile(own, str(own), _read_toml(own, str(own))))
    pyproject = root / PYPROJECT
    if pyproject.is_file():
        label = f"{pyproject} [tool.activation]"
        tool = _read_toml(pyproject, str(pyproject)).get("tool", {})
        table = tool.get("activation") if isinstance(tool, dict) else None
        if table is not None and not isinstance(table, dict):
            raise InputError(f"{label}: must be a table")
        if table:
            found.append(SettingsFile(pyproject, label, table))
    with_keys = [settings for settings in found if settings.values]
    if len(with_keys) > 1:
        raise InputError(
            f"settings in both {with_keys[0].label} and {with_keys[1].label}: keep one"
        )
    return with_keys[0] if with_keys else None


def file_layer(
    settings: SettingsFile, flags: Mapping[str, Flag], known: frozenset[str]
) -> dict[str, object]:
    """Key -> value of the keys this command has; another command's keys are left to it."""
    unknown = sorted(set(settings.values) - known)
    if unknown:
        raise InputError(
            f"{settings.label}: unknown key {unknown[0]!r} "
            f"(keys are the long flags without --, e.g. trials, max-trials, cases)"
        )
    return {
        key: from_file(flags[key], raw, settings)
        for key, raw in settings.values.items()
        if key in flags
    }


def env_layer(
    flags: Mapping[str, Flag], environ: Mapping[str, str]
) -> dict[str, tuple[object, str]]:
    """Key -> (value, variable) for each set `ACTIVATION_<KEY>` of this command's keys."""
    found: dict[str, tuple[object, str]] = {}
    for key, flag in flags.items():
        name = env_name(key)
        if name in environ:
            found[key] = (from_env(flag, environ[name], name), name)
    return found


def default_value(flag: Flag) -> object:
    """A text default goes through the flag's converter, as argparse does."""
    if isinstance(flag.default, str) and flag.convert is not None:
        return flag.convert(flag.default)
    return flag.default


def resolve(
    command: Command,
    argv: Sequence[str],
    cwd: Path,
    environ: Mapping[str, str],
    known: frozenset[str],
) -> tuple[argparse.Namespace, tuple[Setting, ...]]:
    """Parse `argv` over the environment, the file and the defaults: the arguments and,
    for every key, its value and where it came from. A command that does not read the
    settings file (`behavior`, `visibility`: their `trials`, `model` and outputs are not
    the activation run's) still takes the `ACTIVATION_*` variables."""
    flags = command.options
    args = command.parser(marked=True).parse_args(list(argv))
    given = vars(args)
    env = env_layer(flags, environ)
    settings = None
    if command.settings:
        repo = given.get("repo", env.get("repo", (None, ""))[0])
        root = nearest_git_folder(cwd) if repo is None else cwd / Path(str(repo))
        settings = read_settings_file(root) if root is not None else None
    file = file_layer(settings, flags, known) if settings is not None else {}
    chosen: list[Setting] = []
    for key, flag in flags.items():
        if flag.dest in given:
            value, source = given[flag.dest], COMMAND_LINE
        elif key in env:
            value, source = env[key]
        elif key in file:
            value, source = file[key], settings.label if settings else ""
        else:
            value, source = default_value(flag), DEFAULT
        if flag.action == APPEND and value is not None and not isinstance(value, list):
            value = [value]  # a file's or a variable's one value, as the command line's list
        setattr(args, flag.dest, value)
        chosen.append(Setting(key, value, source))
    return args, tuple(chosen)


@cache
def configurable_keys() -> frozenset[str]:
    """Every key a settings file may hold: the options of all configured commands."""
    return frozenset(key for command in CONFIGURED.values() for key in command.options)


def parse_settings(
    command: Command, argv: Sequence[str]
) -> tuple[argparse.Namespace, tuple[Setting, ...]]:
    """`resolve` in this process: its working directory and its environment."""
    return resolve(command, argv, Path.cwd(), os.environ, configurable_keys())
