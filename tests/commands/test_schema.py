"""`activation schema`: the JSON Schema of a run's report or of `activation changed`'s, as
shipped, and a report validates."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from activation.commands.main import main
from activation.report.changed_schema import shipped_changed_schema
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


def test_changed_prints_the_changed_reports_shipped_schema(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["schema", "changed"]) == 0
    printed = capsysbinary.readouterr().out
    assert printed == shipped_changed_schema()
    assert orjson.loads(printed)["title"] == "activation changed report"
    assert main(["schema", "run"]) == 0
    assert capsysbinary.readouterr().out == shipped_schema()


def test_another_report_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "calibration"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "activation schema: error: argument REPORT: invalid choice: 'calibration' (choose "
        "from 'run', 'changed') (see activation schema --help)"
    ]


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
