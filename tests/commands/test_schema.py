"""`activation schema`: the JSON Schema of the report, as shipped, and a report validates."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from activation.commands.main import main
from activation.report.codec import shipped_schema
from tests.commands.test_run import model
from tests.support.cli import STATUS_CASES, run
from tests.support.skill_repo import SkillRepo


def test_it_prints_the_shipped_schema(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["schema"]) == 0
    printed = capsysbinary.readouterr().out
    assert printed == shipped_schema()
    schema = orjson.loads(printed)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    report = schema["$defs"]["Report"]
    assert report["properties"]["schema"]["enum"] == ["activation-report/4"]


def test_a_run_report_and_a_stopped_runs_record_validate(tmp_path: Path, repo: SkillRepo) -> None:
    validator = jsonschema.Draft202012Validator(orjson.loads(shipped_schema()))
    code, report = run(tmp_path, STATUS_CASES, stages=model())
    assert code == 1
    validator.validate(report)
    code, stopped = run(tmp_path, STATUS_CASES, "--trials", "0", stages=model())
    assert (code, stopped) == (2, {})
    code, failed = run(tmp_path, [], stages=model())
    assert code == 2
    validator.validate(failed)
    assert set(failed) == {"schema", "version", "exit_code", "error"}
