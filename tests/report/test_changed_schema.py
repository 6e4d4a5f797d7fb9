"""The JSON Schema of `activation changed --json` takes a report and a stop record and
refuses the rest (tests/report/test_schemas.py keeps the shipped file equal to it;
tests/commands/test_changed.py validates the reports the command writes against it)."""

from __future__ import annotations

import jsonschema
import orjson
import pytest

from activation.report.schemas import schema_of, shipped_schema

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


def test_the_report_names_its_schema() -> None:
    assert orjson.loads(shipped_schema("changed"))["$defs"]["ChangedReport"]["properties"][
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
    validator = jsonschema.Draft202012Validator(schema_of("changed"))
    validator.validate(NOTHING)
    validator.validate(STOPPED)
    assert not validator.is_valid(bad)
