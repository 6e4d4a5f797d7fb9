"""Graders as the seeds write them (a JSON or YAML list of objects), validated into `Grader`s.

Keys are strict (a misspelt `case_sensitive` would silently change what a grader means);
keys starting with `_` are comments. `caseSensitive` and `filePattern`, the spelling of the
seeds' TypeScript helpers, are read as `case_sensitive` and `file_pattern`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import cast

from activation._behavior import GRADER_TYPES, LEVELS, REGEX_FLAGS, Grader, GraderType, Level
from activation._config import BEHAVIOR_COMMAND_TIMEOUT
from activation._errors import InputError

_COMMON = frozenset({"type", "description", "level"})
_TEXT = frozenset({"case_sensitive"})
_FIELDS: dict[GraderType, frozenset[str]] = {
    "contains": _COMMON | _TEXT | {"value"},
    "not_contains": _COMMON | _TEXT | {"value"},
    "not_contains_in_source": _COMMON | _TEXT | {"value"},
    "contains_any": _COMMON | _TEXT | {"values"},
    "not_contains_any": _COMMON | _TEXT | {"values"},
    "matches": _COMMON | _TEXT | {"pattern", "flags"},
    "not_matches": _COMMON | _TEXT | {"pattern", "flags"},
    "file_contains": _COMMON | _TEXT | {"file_pattern", "value"},
    "all": _COMMON | {"graders"},
    "command": _COMMON | {"command", "timeout"},
    "judge": _COMMON | {"question", "examples"},
}
_ALIASES = {"caseSensitive": "case_sensitive", "filePattern": "file_pattern"}


class _Bad(Exception):
    """A grader's problem, raised with where it is once the grader's number is known."""


def parse_graders(data: object, where: str) -> tuple[Grader, ...]:
    """A case's graders from parsed JSON or YAML: a list, or an object with a `graders` list.
    `where` names the file and case in every error."""
    if isinstance(data, Mapping):
        data = data.get("graders")
    if not isinstance(data, list):
        raise InputError(f"{where}: the graders must be a list")
    try:
        graders = tuple(_numbered(raw, str(number)) for number, raw in enumerate(data, 1))
    except InputError as problem:
        raise InputError(f"{where}: {problem}") from None
    _check_keys_agree(graders, where)
    return graders


def _numbered(raw: object, number: str) -> Grader:
    """The grader, or an InputError naming it by number (`3.2`: the second inside the third)."""
    try:
        return _grader(raw, number)
    except _Bad as problem:
        kind = raw.get("type") if isinstance(raw, Mapping) else None
        label = f"grader {number} ({kind})" if isinstance(kind, str) else f"grader {number}"
        raise InputError(f"{label}: {problem}") from None


def _check_keys_agree(graders: Sequence[Grader], where: str) -> None:
    """A judge's answers are keyed by question and a command's results by command line, so
    one question with two sets of examples, or one command with two time limits, is
    ambiguous."""
    examples: dict[str, str | None] = {}
    timeouts: dict[str, float | None] = {}
    for top in graders:
        for grader in top.walk():
            if grader.question is not None:
                seen = examples.setdefault(grader.question, grader.examples)
                if seen != grader.examples:
                    raise InputError(
                        f"{where}: the judge question {grader.question!r} is asked twice "
                        "with different examples"
                    )
            if grader.command is not None:
                limit = timeouts.setdefault(grader.command, grader.timeout)
                if limit != grader.timeout:
                    raise InputError(
                        f"{where}: the command {grader.command!r} is given twice "
                        "with different time limits"
                    )


def _grader(raw: object, number: str) -> Grader:
    if not isinstance(raw, Mapping):
        raise _Bad("must be an object with a 'type'")
    fields = _renamed(raw)
    kind = fields.get("type")
    if kind not in GRADER_TYPES:
        known = ", ".join(GRADER_TYPES)
        raise _Bad(f"unknown type {kind!r} (known: {known})")
    grader_type: GraderType = kind
    unknown = sorted(set(fields) - _FIELDS[grader_type])
    if unknown:
        allowed = ", ".join(sorted(_FIELDS[grader_type]))
        raise _Bad(f"unknown key {unknown[0]!r} (allowed: {allowed})")
    level = _level(fields.get("level"))
    case_sensitive = _optional_bool(fields, "case_sensitive")
    if grader_type in ("contains", "not_contains", "not_contains_in_source"):
        value = _text(fields, "value")
        return Grader(
            grader_type,
            _description(fields, f"{grader_type} {value!r}"),
            level,
            value=value,
            case_sensitive=case_sensitive,
        )
    if grader_type in ("contains_any", "not_contains_any"):
        values = _texts(fields, "values")
        return Grader(
            grader_type,
            _description(fields, f"{grader_type} {', '.join(map(repr, values))}"),
            level,
            values=values,
            case_sensitive=case_sensitive,
        )
    if grader_type in ("matches", "not_matches"):
        return _regex_grader(grader_type, fields, level, case_sensitive)
    if grader_type == "file_contains":
        file_pattern, value = _text(fields, "file_pattern"), _text(fields, "value")
        return Grader(
            grader_type,
            _description(fields, f"{file_pattern} contains {value!r}"),
            level,
            value=value,
            file_pattern=file_pattern,
            case_sensitive=case_sensitive,
        )
    if grader_type == "all":
        parts = fields.get("graders")
        if not isinstance(parts, list) or not parts:
            raise _Bad("'graders' must be a non-empty list")
        graders = tuple(_numbered(part, f"{number}.{n}") for n, part in enumerate(parts, 1))
        described = " and ".join(part.description for part in graders)
        return Grader(grader_type, _description(fields, described), level, graders=graders)
    if grader_type == "command":
        command = _text(fields, "command")
        return Grader(
            grader_type,
            _description(fields, f"`{command}` exits 0"),
            level,
            command=command,
            timeout=_timeout(fields.get("timeout")),
        )
    question = _text(fields, "question")
    examples = fields.get("examples")
    if examples is not None and not isinstance(examples, str):
        raise _Bad("'examples' must be text (PASS: ... and FAIL: ... lines)")
    return Grader(
        grader_type, _description(fields, question), level, question=question, examples=examples
    )


def _regex_grader(
    grader_type: GraderType, fields: Mapping[str, object], level: Level | None, case_sensitive: bool
) -> Grader:
    pattern = _text(fields, "pattern")
    flags = fields.get("flags", "")
    if not isinstance(flags, str) or set(flags) - set(REGEX_FLAGS):
        raise _Bad(f"'flags' must be letters of {''.join(REGEX_FLAGS)!r}, got {flags!r}")
    grader = Grader(
        grader_type,
        _description(fields, f"{grader_type} /{pattern}/"),
        level,
        pattern=pattern,
        flags=flags,
        case_sensitive=case_sensitive,
    )
    try:
        grader.regex()
    except re.error as error:
        raise _Bad(f"the pattern {pattern!r} is not a valid regular expression ({error})") from None
    return grader


def _renamed(raw: Mapping[object, object]) -> dict[str, object]:
    fields: dict[str, object] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise _Bad(f"key {key!r} is not text")
        if key.startswith("_"):
            continue
        name = _ALIASES.get(key, key)
        if name in fields:
            raise _Bad(f"both {name!r} and {key!r} are given: keep one")
        fields[name] = value
    return fields


def _level(value: object) -> Level | None:
    if value is None:
        return None
    if value not in LEVELS:
        raise _Bad(f"level {value!r} is not one of {', '.join(LEVELS)} (or null)")
    return value


def _text(fields: Mapping[str, object], key: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value:
        raise _Bad(f"missing {key!r} (non-empty text)")
    return value


def _texts(fields: Mapping[str, object], key: str) -> tuple[str, ...]:
    values = fields.get(key)
    if not isinstance(values, list) or not values:
        raise _Bad(f"missing {key!r} (a non-empty list of text)")
    if not all(isinstance(value, str) and value for value in values):
        raise _Bad(f"every item of {key!r} must be non-empty text")
    return tuple(cast(list[str], values))


def _optional_bool(fields: Mapping[str, object], key: str) -> bool:
    value = fields.get(key, False)
    if not isinstance(value, bool):
        raise _Bad(f"{key!r} must be true or false")
    return value


def _description(fields: Mapping[str, object], default: str) -> str:
    value = fields.get("description")
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise _Bad("'description' must be non-empty text")
    return value


def _timeout(value: object) -> float:
    if value is None:
        return BEHAVIOR_COMMAND_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _Bad(f"'timeout' must be a positive number of seconds, got {value!r}")
    return float(value)
