"""This tool's own format: an object with a `cases` list, or a bare list of cases that say
`should_activate` or `expect` (cases.py validates it)."""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from activation.inputs.cases import NATIVE, CaseFile, check_cases
from activation.inputs.formats.shape import Document, Fit, rows, share

_MARKS = ("id", "prompt", "why")


def fit(document: Document) -> Fit:
    data = document.data
    if isinstance(data, Mapping):
        if "cases" in data:
            return Fit(NATIVE, None)
        return Fit(NATIVE, "a 'cases' list", 0)
    listed = rows(data) if document.kind == "json" else None
    if listed is None:
        return Fit(NATIVE, "a list of cases", 0)
    if any("should_activate" in row or "expect" in row for row in listed):
        return Fit(NATIVE, None)
    found = sum(mark in listed[0] for mark in _MARKS)
    return Fit(NATIVE, "'should_activate' or 'expect' in its cases", share(found, 5))


def read(document: Document) -> CaseFile:
    return check_cases(document.data)


def write(checked: CaseFile, about: str) -> bytes:
    """The cases in this tool's format, as `read` reads them back: a routing case's
    `expect` (a name, a list, or null for no skill), else `should_activate`; a case without
    a reason keeps `"why": null`, so it is counted, never given a made-up one."""
    cases = []
    for case in checked.cases:
        entry: dict[str, object] = {"id": case.id, "prompt": case.prompt}
        if case.expect is None:
            entry["should_activate"] = case.should_activate
        else:
            entry["expect"] = (
                list(case.expect) if len(case.expect) > 1 else (case.expect or [None])[0]
            )
        if case.must_not:
            entry["must_not"] = list(case.must_not)
        entry["why"] = case.why or None
        entry["tags"] = list(case.tags)
        if case.spot_check:
            entry["spot_check"] = True
        if case.twin is not None:
            entry["twin"] = case.twin
        cases.append(entry)
    document: dict[str, object] = {"_about": about}
    if checked.written_for is not None:
        document["skill"] = checked.written_for
    document["cases"] = cases
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
