"""The report's JSON: one codec generated from the report's types.

msgspec turns the typed records into plain data and back (`to_builtins`, and `convert`,
which validates every field against its type); orjson reads and writes the bytes. So a
field added to a record is in the JSON, read back and described by the schema
(report/schemas.py) with no change here.

A report is written compact unless the whole record is asked for (`--full-record`): the
trials of a case that is not flagged keep only what is judged, and no trial writes a field
at its default. Reading it back gives every left-out field its default, so `merge` judges
every case again, `report` renders and `diff` compares exactly as from the whole record;
`trial_detail` says which it is.

`activation-report/4` adds to `/3`, and `/3` to `/2`; neither renames or drops anything
(except the per-agent `agent.opencode` and `agent.codex` of early /4 reports, which
`agent.executables` replaced: every agent's executable by its name; `agent.claude` stays).
An older report is read by adding what it lacks and can be told from the rest: each trial's
case id (new in `/3`), each tally's and trial's correct count (new in `/4`: in an older
report a case was right exactly when the measured skill's activation matched
`should_activate`); its other new fields take their defaults (no routes, no skills fired).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import MISSING, fields
from typing import Any

import msgspec
import orjson

from activation._config import AGENT
from activation._errors import ExitCode, InputError
from activation._models import FIGURES, FLAGGED, VARIANTS, Trajectory, Trial, Usage
from activation.report.matrix import MATRIX_SCHEMA, Matrix, of_report
from activation.report.model import SCHEMA, Report

READABLE = ("activation-report/2", "activation-report/3", SCHEMA)


JUDGED = ("case_id", "variant", "index", "activated", "chose", "correct", "error", "grades",
          "seconds", "trajectory")  # fmt: skip
"""What a trial keeps in a compact report when its case is not flagged: all that its case's
verdict, tallies, routes and behavior figures are computed from (`merge` judges every case
again from these), its wall time, which `--durations` plans shards by, and what the agent
did (without its tool calls' inputs)."""
MEASURED = ("usage", "cached")
"""What a trial whose agent's stream was read keeps beside `JUDGED` (its trajectory among
them): the efficiency figures (verdicts/efficiency.py) are computed from these."""


def _defaults(kind: type) -> dict[str, Any]:
    """A record's fields that have a default, as plain data."""
    return {
        item.name: msgspec.to_builtins(item.default)
        for item in fields(kind)
        if item.init and item.default is not MISSING
    }


TRIAL_DEFAULTS = _defaults(Trial)
USAGE_DEFAULTS = _defaults(Usage)
TRAJECTORY_DEFAULTS = _defaults(Trajectory)


def report_data(report: Matrix | Report, full: bool = True) -> dict[str, Any]:
    """A run as plain data: a one-cell matrix is its cell's report (`activation-report/4`),
    a matrix of several `activation-matrix/1`. Not `full`: compact (`compact_cell`)."""
    if isinstance(report, Matrix) and report.single is not None:
        report = report.single
    data: dict[str, Any] = msgspec.to_builtins(report)
    for cell in data["cells"] if isinstance(report, Matrix) else [data]:
        cell["cases"] = [_tallies_trimmed(entry) for entry in cell["cases"]]
        for entry in cell["cases"]:
            for trial in entry["trials"]:
                if trial.get("trajectory"):
                    trial["trajectory"] = _trajectory_trimmed(trial["trajectory"])
                trial["grades"] = [_grade_trimmed(grade) for grade in trial.get("grades", ())]
    if full:
        return data
    if isinstance(report, Matrix):
        return {**data, "cells": [compact_cell(cell) for cell in data["cells"]]}
    return compact_cell(data)


def _grade_trimmed(grade: dict[str, Any]) -> dict[str, Any]:
    """A grade with `votes` only when a judge asked several samples, as reports before it."""
    return {key: value for key, value in grade.items() if key != "votes" or value is not None}


def _tallies_trimmed(entry: dict[str, Any]) -> dict[str, Any]:
    """A case whose tallies say `graded` only when it is true (a Stage C run's), so Stage A
    and B reports read as they did before it."""
    trimmed = {**entry}
    for variant in VARIANTS:
        if not trimmed[variant].get("graded"):
            trimmed[variant] = {k: v for k, v in trimmed[variant].items() if k != "graded"}
    return trimmed


def _in_order(figures: list[str]) -> list[str]:
    """A trajectory's measured figures in `FIGURES` order, the same in every run."""
    return sorted(
        figures, key=lambda name: (FIGURES.index(name) if name in FIGURES else len(FIGURES), name)
    )


def _trajectory_trimmed(trajectory: dict[str, Any]) -> dict[str, Any]:
    """A trajectory's measured figures in order, and its `parts` only for a case of several
    prompts (a trial of one reads as reports before them)."""
    trimmed = {**trajectory, "measured": _in_order(trajectory["measured"])}
    parts = trimmed.pop("parts", [])
    return {**trimmed, "parts": [_trajectory_trimmed(part) for part in parts]} if parts else trimmed


def _compact_trajectory(trajectory: dict[str, Any]) -> dict[str, Any]:
    """A trajectory (and each prompt's part) without its tool calls' inputs, and no field
    at its default."""
    calls = [{k: v for k, v in call.items() if k == "name" or (k == "turn" and v != 1)}
             for call in trajectory.get("tool_calls", [])]  # fmt: skip
    parts = [_compact_trajectory(part) for part in trajectory.get("parts", [])]
    return {key: value for key, value in {**trajectory, "tool_calls": calls, "parts": parts}.items()
            if not _default(value, TRAJECTORY_DEFAULTS[key])}  # fmt: skip


def compact_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """One cell's report with its trials compact: a flagged case's keep every detail (and
    the derived `reading`), the others' only what is judged (`judged`); none writes a field
    at its default, which reading the report gives back."""
    flagged = {status.value for status in FLAGGED}
    cases = [
        {
            **entry,
            "trials": [
                _trimmed(trial, trial if entry["status"] in flagged else judged(trial))
                for trial in entry["trials"]
            ],
        }
        for entry in cell["cases"]
    ]
    return {**cell, "trial_detail": "flagged", "cases": cases}


def judged(trial: dict[str, Any]) -> tuple[str, ...]:
    """What a trial of a case not flagged keeps: what its figures are computed from."""
    return JUDGED + MEASURED if trial.get("trajectory") is not None else JUDGED


def _trimmed(trial: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """The trial's `keys` that are not at their default (a usage's counts alike)."""
    kept = {}
    for key in keys:
        value = trial.get(key, TRIAL_DEFAULTS.get(key))
        if key == "usage" and isinstance(value, dict):
            value = {name: n for name, n in value.items() if not _default(n, USAGE_DEFAULTS[name])}
        if key == "trajectory" and isinstance(value, dict):
            value = _compact_trajectory(value)
        if key not in TRIAL_DEFAULTS or not _default(value, TRIAL_DEFAULTS[key]):
            kept[key] = value
    return kept


def _default(value: object, default: object) -> bool:
    """Equal to the default as the JSON has it (`False` is not `None`, `()` is `[]`)."""
    if isinstance(value, list | tuple | dict) or isinstance(default, list | tuple | dict):
        return not value and not default
    return type(value) is type(default) and value == default


def report_json(report: Matrix | Report, full: bool = False) -> bytes:
    """The JSON report, indented: compact unless `full` (`--full-record`, see
    `report_data`), and then with each trial on a line of its own."""
    data = report_data(report, full)
    if not full:
        cells = data.get("cells", [data])
        for cell in cells:
            cell["cases"] = [{**entry, "trials": [orjson.Fragment(orjson.dumps(trial))
                                                  for trial in entry["trials"]]}
                             for entry in cell["cases"]]  # fmt: skip
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def failure_json(exit_code: ExitCode, error: str, version: str, schema: str = SCHEMA) -> bytes:
    """The record of a command that stopped before it had a result: a run's, or (`schema`)
    another command's."""
    data = {"schema": schema, "version": version, "exit_code": int(exit_code), "error": error}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def upgraded(data: dict[str, Any]) -> dict[str, Any]:
    """An older report in the current shape (see the module docstring)."""
    data = {**data, "agent": _upgraded_agent(data.get("agent"))}
    if data.get("schema") == SCHEMA:
        return data
    cases = [_upgraded_case(entry) if isinstance(entry, dict) else entry
             for entry in data.get("cases") or ()]  # fmt: skip
    return {**data, "schema": SCHEMA, "cases": cases}


def _upgraded_agent(agent: object) -> object:
    """Before `executables`, a report named the default agent's executable alone (`claude`)."""
    if not isinstance(agent, dict) or "executables" in agent or "claude" not in agent:
        return agent
    return {**agent, "executables": {AGENT: agent["claude"]}}


def _upgraded_case(entry: dict[str, Any]) -> dict[str, Any]:
    should = entry.get("should_activate")

    def right(activated: object) -> object:
        return None if activated is None else activated == should

    def tally(counts: object) -> object:
        if not isinstance(counts, dict) or "correct" in counts:
            return counts
        activated, valid = counts.get("activated"), counts.get("valid")
        if not isinstance(activated, int) or not isinstance(valid, int):
            return counts
        return {**counts, "correct": activated if should else valid - activated}

    trials = [
        {"case_id": entry.get("id"), "correct": right(t.get("activated")), **t}
        if isinstance(t, dict) else t
        for t in entry.get("trials", ())
    ]  # fmt: skip
    upgraded = {**entry, "trials": trials}
    for variant in ("baseline", "candidate"):
        if variant in entry:
            upgraded[variant] = tally(entry[variant])
    return upgraded


def parse_report(data: object, source: str) -> Report:
    """A saved JSON report of one cell as the typed model; anything else is an input error."""
    if not isinstance(data, dict) or data.get("schema") not in READABLE:
        raise InputError(f"{source}: not an activation report ({' or '.join(READABLE)})")
    if "cases" not in data:
        raise InputError(f"{source}: the report of a run that stopped early ({data.get('error')})")
    try:
        return msgspec.convert(upgraded(data), Report)
    except msgspec.ValidationError as error:
        raise InputError(f"{source}: a damaged activation report ({error})") from None


def parse_saved(data: object, source: str) -> Matrix:
    """A saved JSON report, of one cell or of a matrix of several, as the matrix it is."""
    if not isinstance(data, dict) or data.get("schema") != MATRIX_SCHEMA:
        return of_report(parse_report(data, source))
    if "cells" not in data:
        raise InputError(f"{source}: the report of a run that stopped early ({data.get('error')})")
    cells = data["cells"]
    if not isinstance(cells, list) or not cells:
        raise InputError(f"{source}: a damaged activation report (a matrix without cells)")
    read = [parse_report(cell, f"{source}, cell {number}") for number, cell in enumerate(cells, 1)]
    try:
        return msgspec.convert({**data, "cells": [report_data(cell) for cell in read]}, Matrix)
    except msgspec.ValidationError as error:
        raise InputError(f"{source}: a damaged activation report ({error})") from None
