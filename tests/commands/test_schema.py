"""`activation schema`: the JSON Schema of each document the tool writes, as shipped, the
list of kinds, and a run's report validates."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from activation.commands.main import main
from activation.report.schemas import DOCUMENTS, shipped_schema
from tests.commands.test_run import model
from tests.support.cli import STATUS_CASES, run
from tests.support.skill_repo import SkillRepo


def test_it_prints_the_shipped_schema(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["schema"]) == 0
    printed = capsysbinary.readouterr().out
    assert printed == shipped_schema("run")
    schema = orjson.loads(printed)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    report = schema["$defs"]["Report"]
    assert report["properties"]["schema"]["enum"] == ["activation-report/4"]


def test_changed_prints_the_changed_reports_shipped_schema(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["schema", "changed"]) == 0
    printed = capsysbinary.readouterr().out
    assert printed == shipped_schema("changed")
    assert orjson.loads(printed)["title"] == "activation changed report"
    assert main(["schema", "run"]) == 0
    assert capsysbinary.readouterr().out == shipped_schema("run")


@pytest.mark.parametrize("kind", DOCUMENTS)
def test_each_kind_prints_its_shipped_schema(
    kind: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["schema", kind]) == 0
    printed = capsysbinary.readouterr().out
    assert printed == shipped_schema(kind)
    assert orjson.loads(printed)["title"] == DOCUMENTS[kind].title


def test_list_names_every_kind_its_id_and_what_writes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == list(DOCUMENTS)
    assert lines[0] == (
        "run: activation-report/4, activation-matrix/1; written by `activation run`, "
        "`behavior` and `merge` with `--json`"
    )
    assert lines[7] == (
        "state: activation-state/1; written by every Stage A run, in `.activation/stage-a/`: "
        "the cases it flagged, which a Stage B run on the same pair of descriptions runs by "
        "default"
    )


def test_another_kind_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "cases"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "activation schema: error: argument KIND: invalid choice: 'cases' (choose from "
        "'run', 'changed', 'calibration', 'agreement', 'behavior-calibration', 'visibility', "
        "'suggestion', 'state', 'batches') (see activation schema --help)"
    ]


def test_a_run_report_and_a_stopped_runs_record_validate(tmp_path: Path, repo: SkillRepo) -> None:
    validator = jsonschema.Draft202012Validator(orjson.loads(shipped_schema("run")))
    code, report = run(tmp_path, STATUS_CASES, stages=model())
    assert code == 1
    validator.validate(report)
    code, stopped = run(tmp_path, STATUS_CASES, "--trials", "0", stages=model())
    assert (code, stopped) == (2, {})
    code, failed = run(tmp_path, [], stages=model())
    assert code == 2
    validator.validate(failed)
    assert set(failed) == {"schema", "version", "exit_code", "error"}
