"""Settings from the project and the environment, under the command line.

A project keeps its settings in `activation.toml` or in `[tool.activation]` of its
`pyproject.toml`, at the target repo's root; `ACTIVATION_<KEY>` variables override the file,
and the command line overrides both. Every option of a command's parser has a key, its long
flag without `--`, so a flag added later is configurable with no change here.

Values are checked against the flag's own type: a file's integer flag takes a TOML integer
(not "3"), a path is relative to the file, and then the flag's own converter checks the
range, exactly as on the command line. Variables are read as the command line reads text.
"""

from __future__ import annotations

import argparse
import os
import tomllib
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from activation._config import CONFIG_FILE, ENV_PREFIX, PYPROJECT
from activation._errors import InputError
from activation._models import Setting
from activation.commands.parsers import CONFIGURED

DEFAULT = "default"
COMMAND_LINE = "command line"
NOT_SETTINGS = (argparse._HelpAction, argparse._VersionAction)
TYPE_NAMES: dict[type, str] = {
    bool: "a boolean (true or false)",
    int: "an integer",
    float: "a number",
    str: "a string",
    Path: "a path (a string)",
}
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
_UNSET = object()


@dataclass(frozen=True)
class SettingsFile:
    """The settings a project file holds; `label` names it in messages and `--dry-run`."""

    path: Path
    label: str
    values: Mapping[str, object]


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Key -> action for every option with a long flag, help and version aside."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if isinstance(action, NOT_SETTINGS):
            continue
        flag = next((item for item in action.option_strings if item.startswith("--")), None)
        if flag is not None:
            found[flag[2:]] = action
    return found


def env_name(key: str) -> str:
    return ENV_PREFIX + key.replace("-", "_").upper()


def expected_type(action: argparse.Action) -> type | None:
    """What a flag takes, from its converter's return type; None for anything else (its
    value is then given as text, as on the command line)."""
    if action.nargs == 0:
        return bool
    convert = action.type
    if convert is None:
        return str
    if isinstance(convert, type):
        return convert
    returned = typing.get_type_hints(convert).get("return")
    return returned if returned in TYPE_NAMES else None


def _type_name(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    return names.get(type(value), f"a {type(value).__name__}")


def convert(action: argparse.Action, text: str, where: str) -> object:
    """The flag's own converter on `text`, its message kept, as the command line would."""
    try:
        value = action.type(text) if callable(action.type) else text
    except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
        detail = str(error) or f"invalid value {text!r}"
        raise InputError(f"{where}: {detail}") from None
    if action.choices is not None and value not in action.choices:
        choices = ", ".join(map(str, action.choices))
        raise InputError(f"{where}: {value!r} is not one of {choices}")
    return value


def from_file(key: str, action: argparse.Action, raw: object, settings: SettingsFile) -> object:
    """A file's value as the flag's type; a path is relative to the file."""
    where = f"{settings.label}: {key}"
    optional_value = action.nargs == "?" and action.const is not None
    if optional_value and isinstance(raw, bool):
        return action.const if raw else action.default
    kind = expected_type(action)
    if kind is bool:
        if not isinstance(raw, bool):
            raise InputError(f"{where} must be {TYPE_NAMES[bool]}, got {_type_name(raw)}")
        return action.const if raw else action.default
    wanted = TYPE_NAMES.get(kind or str, TYPE_NAMES[str]) + (" or true" if optional_value else "")
    wrong = InputError(f"{where} must be {wanted}, got {_type_name(raw)} {raw!r}")
    if kind in (int, float) and isinstance(raw, str):
        return _numeric_text(action, raw, where, wrong)
    if kind is int:
        ok = isinstance(raw, int) and not isinstance(raw, bool)
    elif kind is float:
        ok = isinstance(raw, int | float) and not isinstance(raw, bool)
    else:
        ok = isinstance(raw, str)
    if not ok:
        raise wrong
    text = str(raw)
    if kind is Path:
        text = str(settings.path.parent / text)
    return convert(action, text, where)


def _numeric_text(action: argparse.Action, raw: str, where: str, wrong: InputError) -> object:
    """A number written as a string ("3") is refused: TOML has numbers. Text the flag's
    own converter reads as something else (a duration like "7d") is taken."""
    try:
        float(raw)
    except ValueError:
        pass
    else:
        raise wrong
    try:
        return convert(action, raw, where)
    except InputError:
        raise wrong from None


def from_env(action: argparse.Action, text: str, name: str) -> object:
    """A variable's value, read as the command line reads the flag's text."""
    where = f"{name}={text!r}"
    words = text.strip().lower()
    optional_value = action.nargs == "?" and action.const is not None
    if action.nargs == 0 or (optional_value and words in TRUE_WORDS | FALSE_WORDS):
        if words in TRUE_WORDS:
            return action.const
        if words in FALSE_WORDS:
            return action.default
        raise InputError(f"{where}: must be one of 1, true, yes, on, 0, false, no, off")
    return convert(action, text, where)


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
    settings: SettingsFile, actions: Mapping[str, argparse.Action], known: frozenset[str]
) -> dict[str, object]:
    """Key -> value of the keys this command has; another command's keys are left to it."""
    unknown = sorted(set(settings.values) - known)
    if unknown:
        raise InputError(
            f"{settings.label}: unknown key {unknown[0]!r} "
            f"(keys are the long flags without --, e.g. trials, max-trials, cases)"
        )
    return {
        key: from_file(key, actions[key], raw, settings)
        for key, raw in settings.values.items()
        if key in actions
    }


def env_layer(
    actions: Mapping[str, argparse.Action], environ: Mapping[str, str]
) -> dict[str, tuple[object, str]]:
    """Key -> (value, variable) for each set `ACTIVATION_<KEY>` of this command's keys."""
    found: dict[str, tuple[object, str]] = {}
    for key, action in actions.items():
        name = env_name(key)
        if name in environ:
            found[key] = (from_env(action, environ[name], name), name)
    return found


def default_value(action: argparse.Action) -> object:
    """argparse converts a text default with the flag's converter; so does this."""
    if isinstance(action.default, str) and callable(action.type):
        return action.type(action.default)
    return action.default


def resolve(
    build: Callable[[], argparse.ArgumentParser],
    argv: Sequence[str],
    cwd: Path,
    environ: Mapping[str, str],
    known: frozenset[str],
) -> tuple[argparse.Namespace, tuple[Setting, ...]]:
    """Parse `argv` over the environment, the file and the defaults: the arguments and,
    for every key, its value and where it came from."""
    parser = build()
    actions = options(parser)
    marked = argparse.Namespace(**{action.dest: _UNSET for action in actions.values()})
    args = parser.parse_args(list(argv), namespace=marked)
    env = env_layer(actions, environ)
    repo = vars(args).get("repo", _UNSET)
    if repo is _UNSET:
        repo = env.get("repo", (None, ""))[0]
    root = nearest_git_folder(cwd) if repo is None else cwd / Path(str(repo))
    settings = read_settings_file(root) if root is not None else None
    file = file_layer(settings, actions, known) if settings is not None else {}
    chosen: list[Setting] = []
    for key, action in actions.items():
        given = getattr(args, action.dest)
        if given is not _UNSET:
            value, source = given, COMMAND_LINE
        elif key in env:
            value, source = env[key]
        elif key in file:
            value, source = file[key], settings.label if settings else ""
        else:
            value, source = default_value(action), DEFAULT
        setattr(args, action.dest, value)
        chosen.append(Setting(key, value, source))
    return args, tuple(chosen)


@cache
def configurable_keys() -> frozenset[str]:
    """Every key a settings file may hold: the options of all configured commands."""
    return frozenset(key for build in CONFIGURED.values() for key in options(build()))


def parse_settings(
    build: Callable[[], argparse.ArgumentParser], argv: Sequence[str]
) -> tuple[argparse.Namespace, tuple[Setting, ...]]:
    """`resolve` in this process: its working directory and its environment."""
    return resolve(build, argv, Path.cwd(), os.environ, configurable_keys())
