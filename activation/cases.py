"""The labelled case matrix: loading, validation and selection.

The format is the Node harness's `cases.json` (an object with a `cases` list, or a bare
list); its files must load unchanged, so unknown keys are tolerated and `_`-keys ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from activation.errors import InputError


@dataclass(frozen=True)
class Case:
    id: str
    prompt: str
    should_activate: bool
    why: str
    tags: tuple[str, ...] = ()
    spot_check: bool = False
    twin: str | None = None


_REQUIRED: tuple[tuple[str, type], ...] = (
    ("prompt", str),
    ("should_activate", bool),
    ("why", str),
)


def case_list(data: object, source: str = "cases") -> list[object]:
    """The raw case entries of a cases file: `{"cases": [...]}` or a bare list."""
    if isinstance(data, dict):
        if "cases" not in data:
            raise InputError(f"{source}: expected a 'cases' list or a bare list of cases")
        data = data["cases"]
    if not isinstance(data, list):
        raise InputError(f"{source}: 'cases' must be a list")
    if not data:
        raise InputError(f"{source}: the case list is empty")
    return data


def parse_cases(data: object, source: str = "cases") -> tuple[Case, ...]:
    """Validate parsed JSON into cases; every problem names the case and the field."""
    entries = case_list(data, source)
    cases = tuple(_parse_case(raw, position, source) for position, raw in enumerate(entries))
    seen: set[str] = set()
    duplicates = [case.id for case in cases if case.id in seen or seen.add(case.id)]
    if duplicates:
        raise InputError(f"{source}: duplicate case ids: {', '.join(sorted(set(duplicates)))}")
    return cases


def _parse_case(raw: object, position: int, source: str) -> Case:
    where = f"{source}: case #{position + 1}"
    if not isinstance(raw, dict):
        raise InputError(f"{where} is not an object")
    case_id = raw.get("id")
    if not isinstance(case_id, str) or not case_id.strip():
        raise InputError(f"{where}: 'id' is missing or not a non-empty string")
    where = f"{source}: case {case_id!r}"
    for field, kind in _REQUIRED:
        if field not in raw:
            raise InputError(f"{where}: missing '{field}'")
        value = raw[field]
        if not isinstance(value, kind) or (kind is str and not value.strip()):
            expected = "true or false" if kind is bool else "a non-empty string"
            raise InputError(f"{where}: '{field}' must be {expected}")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InputError(f"{where}: 'tags' must be a list of strings")
    spot_check = raw.get("spot_check", False)
    if not isinstance(spot_check, bool):
        raise InputError(f"{where}: 'spot_check' must be true or false")
    twin = raw.get("twin")
    if twin is not None and not isinstance(twin, str):
        raise InputError(f"{where}: 'twin' must be a case id")
    return Case(
        id=case_id,
        prompt=raw["prompt"],
        should_activate=raw["should_activate"],
        why=raw["why"],
        tags=tuple(tags),
        spot_check=spot_check,
        twin=twin,
    )


def read_json(path: Path) -> object:
    """A cases file as parsed JSON; unreadable or non-JSON input is an input error."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read cases file {path}: {error.strerror}") from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error})") from None


def load_cases(path: Path) -> tuple[Case, ...]:
    return parse_cases(read_json(path), str(path))


def parse_only(value: str) -> tuple[str, ...]:
    """`--only a,b` as ids, in order, without blanks or repeats."""
    return tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))


def select(cases: Sequence[Case], only: Iterable[str]) -> tuple[Case, ...]:
    """The named cases in file order; unknown ids are an input error that lists them."""
    wanted = set(only)
    unknown = sorted(wanted - {case.id for case in cases})
    if unknown:
        raise InputError(f"--only names unknown case ids: {', '.join(unknown)}")
    return tuple(case for case in cases if case.id in wanted)
