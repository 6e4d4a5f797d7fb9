"""Reading a grader from a case file: its `type` picks the registered class, and each key is
read by its field's annotation, so a type needs no reading code of its own.

Keys are strict (a misspelt `case_sensitive` would silently change what a grader means);
keys starting with `_` are comments; a field's camelCase spelling (`caseSensitive`,
`filePattern`, the seeds' TypeScript helpers') is read as the field. A field's metadata
`shape` says, in an error, what its value should look like.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from activation.graders.base import LEVELS, Grader, Level


class GraderError(ValueError):
    """A grader's problem, in words naming it by number (`grader 3.2 (contains): ...`)."""


class _Bad(Exception):
    """A problem of one grader, before its number is known."""


Registry = Mapping[str, type[Grader]]
Reader = Callable[[object, str, str, Registry], Any]
"""(the value given, its key, the grader's number, the registry) -> the field's value."""


def parse_grader(raw: object, number: str, registry: Registry) -> Grader:
    """One grader from parsed JSON or YAML; a GraderError naming it by `number`."""
    try:
        return _grader(raw, number, registry)
    except _Bad as problem:
        kind = raw.get("type") if isinstance(raw, Mapping) else None
        label = f"grader {number} ({kind})" if isinstance(kind, str) else f"grader {number}"
        raise GraderError(f"{label}: {problem}") from None


def allowed_keys(kind: type[Grader]) -> tuple[str, ...]:
    """The keys a case file may give a grader of this type, `type` included, sorted."""
    return tuple(sorted({"type", *(field.name for field in dataclasses.fields(kind))}))


def _grader(raw: object, number: str, registry: Registry) -> Grader:
    if not isinstance(raw, Mapping):
        raise _Bad("must be an object with a 'type'")
    name = raw.get("type")
    kind = registry.get(name) if isinstance(name, str) else None
    if kind is None:
        raise _Bad(f"unknown type {name!r} (known: {', '.join(registry)})")
    allowed = allowed_keys(kind)
    fields = _renamed(raw, allowed)
    unknown = sorted(set(fields) - set(allowed))
    if unknown:
        raise _Bad(f"unknown key {unknown[0]!r} (allowed: {', '.join(allowed)})")
    readers = field_readers(kind)
    given: dict[str, Any] = {}
    for field in dataclasses.fields(kind):
        if field.name not in fields and field.default is not dataclasses.MISSING:
            continue
        try:
            given[field.name] = readers[field.name](
                fields.get(field.name), field.name, number, registry
            )
        except _Bad as problem:
            shape = field.metadata.get("shape")
            raise _Bad(f"{problem} ({shape})" if shape else str(problem)) from None
    grader = kind(**given)
    problems = grader.problems()
    if problems:
        raise _Bad(problems[0])
    return grader


def field_readers(kind: type[Grader]) -> dict[str, Reader]:
    """How each field of `kind` is read; a TypeError for an annotation no reader reads (a
    registry test calls this on every type)."""
    hints = get_type_hints(kind)
    readers: dict[str, Reader] = {}
    for field in dataclasses.fields(kind):
        reader = _BY_NAME.get(field.name) or _READERS.get(hints[field.name])
        if reader is None:
            raise TypeError(f"{kind.__name__}.{field.name}: no reader for {hints[field.name]}")
        readers[field.name] = reader
    return readers


def _renamed(raw: Mapping[object, object], allowed: tuple[str, ...]) -> dict[str, object]:
    spellings = {_camel(name): name for name in allowed}
    fields: dict[str, object] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise _Bad(f"key {key!r} is not text")
        if key.startswith("_"):
            continue
        name = spellings.get(key, key)
        if name in fields:
            raise _Bad(f"both {name!r} and {key!r} are given: keep one")
        fields[name] = value
    return fields


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _text(value: object, key: str, _number: str, _registry: Registry) -> str:
    if not isinstance(value, str) or not value:
        raise _Bad(f"missing {key!r} (non-empty text)")
    return value


def _optional_text(value: object, key: str, _number: str, _registry: Registry) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _Bad(f"{key!r} must be text")
    return value


def _description(value: object, key: str, _number: str, _registry: Registry) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"{key!r} must be non-empty text")
    return value


def _texts(value: object, key: str, _number: str, _registry: Registry) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _Bad(f"missing {key!r} (a non-empty list of text)")
    if not all(isinstance(item, str) and item for item in value):
        raise _Bad(f"every item of {key!r} must be non-empty text")
    return tuple(value)


def _flag(value: object, key: str, _number: str, _registry: Registry) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"{key!r} must be true or false")
    return value


def _seconds(value: object, key: str, _number: str, _registry: Registry) -> float:
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if number is None or not math.isfinite(number) or number <= 0:
        raise _Bad(f"{key!r} must be a positive number of seconds, got {value!r}")
    return float(number)


def _count(value: object, key: str, _number: str, _registry: Registry) -> int:
    if value is None:
        raise _Bad(f"missing {key!r}")
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _Bad(f"{key!r} must be a whole number from 1, got {value!r}")
    return value


def _optional_count(value: object, key: str, number: str, registry: Registry) -> int | None:
    return None if value is None else _count(value, key, number, registry)


def _level(value: object, _key: str, _number: str, _registry: Registry) -> object:
    if value is not None and value not in LEVELS:
        raise _Bad(f"level {value!r} is not one of {', '.join(LEVELS)} (or null)")
    return value


def _graders(value: object, key: str, number: str, registry: Registry) -> tuple[Grader, ...]:
    """Graders inside this one, numbered below it (`3.1`, `3.2`); a part's GraderError
    already names the part and passes up as it is."""
    if not isinstance(value, list) or not value:
        raise _Bad(f"{key!r} must be a non-empty list")
    return tuple(parse_grader(part, f"{number}.{n}", registry) for n, part in enumerate(value, 1))


_READERS: dict[object, Reader] = {
    str: _text,
    str | None: _optional_text,
    tuple[str, ...]: _texts,
    bool: _flag,
    float: _seconds,
    int: _count,
    int | None: _optional_count,
    Level | None: _level,
    tuple[Grader, ...]: _graders,
}
"""How a field is read, by its annotation."""
_BY_NAME: dict[str, Reader] = {"description": _description}
