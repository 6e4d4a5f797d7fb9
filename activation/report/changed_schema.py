"""The JSON Schema of `activation changed --json` (`activation-changed/1`), from the report's
types, as codec.py makes the run report's: msgspec writes it, and a test keeps the shipped
file equal to what the types give.

Each gate's `run` is saved as its own command saves it (report/changed.py's
`changed_data`): a run of one cell is that cell's report, a run of several the matrix; so
its schema is either, as in the run report's schema. A command that stopped before it had
a result writes only `schema`, `version`, `exit_code` and `error`.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import msgspec

from activation.report.changed import CHANGED_SCHEMA, ChangedReport
from activation.report.codec import schema_bytes, stopped_early
from activation.report.matrix import Matrix
from activation.report.model import Report

CHANGED_SCHEMA_FILE = "changed.schema.json"
"""The shipped JSON Schema, beside this module."""


def changed_schema() -> dict[str, Any]:
    (changed, body, matrix), components = msgspec.json.schema_components(
        [ChangedReport, Report, Matrix], ref_template="#/$defs/{name}"
    )
    gate = components["GateResult"]
    gate["properties"]["run"] = {
        "description": "The gate's run: one cell's report, or the matrix of several.",
        "anyOf": [body, matrix],
    }
    stopped = stopped_early(
        CHANGED_SCHEMA, "A command that stopped before it had a result (exit 2 or 4)."
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "activation changed report",
        "anyOf": [changed, stopped],
        "$defs": components,
    }


def changed_schema_json() -> bytes:
    return schema_bytes(changed_schema())


def shipped_changed_schema() -> bytes:
    """The schema file the package carries."""
    return files("activation.report").joinpath(CHANGED_SCHEMA_FILE).read_bytes()
