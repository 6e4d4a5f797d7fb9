"""This tool's own format: an object with a `cases` list, or a bare list of cases that say
`should_activate` or `expect` (cases.py validates it)."""

from __future__ import annotations

from collections.abc import Mapping

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
