"""The shipped JSON Schema of `activation changed --json` (activation/report/
changed.schema.json) is the one the report's types give; tests/commands/test_changed.py
validates the reports the command writes against it."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from activation.report.changed_schema import (
    changed_schema,
    changed_schema_json,
    shipped_changed_schema,
)

REPO_SCHEMA = Path(__file__).resolve().parents[2] / "activation" / "report" / "changed.schema.json"
STOPPED = {
    "schema": "activation-changed/1",
    "version": "1.0",
    "exit_code": 2,
    "error": "--base main: pass a git ref, e.g. git:main",
}
NOTHING = {
    "schema": "activation-changed/1",
    "version": "1.0",
    "exit_code": 0,
    "base": "git:main",
    "head": "the working tree",
    "allow_untested": False,
    "skills": [],
    "gates": [],
}

GATE = {"kind": "activation", "skill": "a", "path": "a", "suite": "a", "because": []}


def test_the_shipped_schema_is_the_one_the_types_give() -> None:
    assert REPO_SCHEMA.read_bytes() == changed_schema_json(), (
        "the committed schema is stale: write activation/report/changed.schema.json from "
        "activation.report.changed_schema.changed_schema_json()"
    )
    assert shipped_changed_schema() == REPO_SCHEMA.read_bytes()
    assert orjson.loads(REPO_SCHEMA.read_bytes())["$defs"]["ChangedReport"]["properties"][
        "schema"
    ] == {"default": "activation-changed/1", "enum": ["activation-changed/1"]}


@pytest.mark.parametrize(
    "bad",
    [
        {**NOTHING, "schema": "activation-report/4"},
        {**NOTHING, "exit_code": "1"},
        {**NOTHING, "skills": [{"id": "billing:refunds"}]},
        {**NOTHING, "gates": [{**GATE, "kind": "lint"}]},
        {**STOPPED, "cases": []},
        {key: value for key, value in STOPPED.items() if key != "error"},
    ],
)
def test_the_schema_takes_a_report_and_a_stop_record_and_refuses_the_rest(bad: object) -> None:
    validator = jsonschema.Draft202012Validator(changed_schema())
    validator.validate(NOTHING)
    validator.validate(STOPPED)
    assert not validator.is_valid(bad)
