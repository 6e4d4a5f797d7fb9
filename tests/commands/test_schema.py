"""`activation schema`: the JSON Schema of each document the tool writes, as shipped, the
list of kinds, and a run's report validates."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import jsonschema
import orjson
import pytest

from activation import state
from activation.commands.flags import SCHEMA_KINDS
from activation.commands.main import main
from activation.report.schemas import DOCUMENTS, read_document, schema_json, shipped_schema
from activation.trials.agents import REGISTRY
from tests.commands.test_behavior_command import calibrate as calibrate_behavior
from tests.commands.test_calibrate import CASES as CALIBRATION_CASES
from tests.commands.test_calibrate import REAL, calibrate
from tests.commands.test_calibrate import model as calibrated
from tests.commands.test_changed import changed, edit, two_plugins
from tests.commands.test_registered_agent import STAGE_B_CASES
from tests.commands.test_run import model
from tests.commands.test_suggest import CASES as SEARCH_CASES
from tests.commands.test_suggest import Proposer, a_train_prompt, suggest
from tests.support.behavior_repo import example_repo
from tests.support.cli import STATUS_CASES, run
from tests.support.fake_agent import write_shim
from tests.support.fake_behavior import FakeBehavior, passing, taught_by
from tests.support.fake_stages import FakeStages
from tests.support.scripted_model import refunds_fire
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SkillRepo,
    write_cases,
    write_distractors,
)


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
        "'suggestion', 'state', 'batches', 'skills') (see activation schema --help)"
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


# --- every kind: the shipped file is the types' schema; a real document validates ----------

PACKAGE = Path(__file__).resolve().parents[2] / "activation" / "report"
Writer = Callable[[Path, pytest.FixtureRequest], Path]
"""Runs the command that writes a document of one kind, with the fake or mock model in a
temp repo; the file it wrote."""


def test_the_kinds_help_names_are_the_documents() -> None:
    assert tuple(DOCUMENTS) == SCHEMA_KINDS


@pytest.mark.parametrize("kind", DOCUMENTS)
def test_the_shipped_schema_is_the_one_the_types_give(kind: str) -> None:
    committed = PACKAGE / DOCUMENTS[kind].filename
    assert committed.read_bytes() == schema_json(kind), (
        f"the committed schema is stale: write activation/report/{committed.name} from "
        f"activation.report.schemas.schema_json({kind!r})"
    )
    assert shipped_schema(kind) == committed.read_bytes()


def written_run(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    request.getfixturevalue("repo")
    assert run(tmp_path, STATUS_CASES, stages=model())[0] == 1
    return tmp_path / "report.json"


def written_state(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    repo: SkillRepo = request.getfixturevalue("repo")
    assert run(tmp_path, STATUS_CASES, stages=model())[0] == 1
    (flags,) = (repo.root / ".activation" / "stage-a").glob("*.json")
    return flags


def written_batches(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A run's batches as recorded the moment they exist (the file a run that saw them to
    the end removes, kept here)."""
    repo: SkillRepo = request.getfixturevalue("repo")
    request.getfixturevalue("fake_api").script = refunds_fire
    request.getfixturevalue("monkeypatch").setattr(state, "forget_batches", lambda *_: None)
    assert run(tmp_path, STATUS_CASES[:2], "--batch", "--max-trials", "3")[0] in (0, 1)
    (batches,) = (repo.root / ".activation" / "batches").glob("*.json")
    return batches


def written_changed(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = tmp_path / "repo"
    request.getfixturevalue("repo_templates").copy((two_plugins,), root, two_plugins)
    request.getfixturevalue("monkeypatch").chdir(root)
    edit(root, "refunds", "3. Tell the customer", "3. Email the customer")
    edit(root, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    assert changed(tmp_path, "--model", "mock", stages=stages)[0] == 0
    return tmp_path / "changed.json"


def calibration_repo(tmp_path: Path, request: pytest.FixtureRequest) -> SkillRepo:
    made: SkillRepo = request.getfixturevalue("skill_repo")(REAL, files=REFERENCE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    request.getfixturevalue("monkeypatch").chdir(made.root)
    return made


def written_calibration(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    calibration_repo(tmp_path, request)
    stages = FakeStages(by_description=calibrated)
    assert calibrate(tmp_path, CALIBRATION_CASES, stages=stages) == 0
    return tmp_path / "calibration.json"


def written_agreement(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    calibration_repo(tmp_path, request)
    stages = FakeStages(by_description=calibrated)
    only = ("--agreement", "--only", "refund,chart")
    assert calibrate(tmp_path, CALIBRATION_CASES, *only, stages=stages) == 0
    return tmp_path / "calibration.json"


def written_behavior_calibration(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    request.getfixturevalue("monkeypatch").chdir(example_repo(tmp_path / "repo"))
    assert calibrate_behavior(tmp_path, FakeBehavior(taught_by("# greetlib 2")))[0] == 0
    return tmp_path / "calibration.json"


def written_visibility(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    calibration_repo(tmp_path, request)
    out = tmp_path / "visibility.json"
    assert main(["visibility", "--baseline", "git:HEAD", "--json", str(out)]) == 0
    return out


def written_suggestion(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A search whose proposal wins, so the document holds its holdback run."""
    request.getfixturevalue("repo")
    cases = write_cases(tmp_path / "cases.json", SEARCH_CASES)
    request.getfixturevalue("fake_api").script = Proposer(a_train_prompt(cases))
    code, found = suggest(tmp_path, cases, "--model", "mock", "--rounds", "1")
    assert (code, found["holdback"]["schema"]) == (0, "activation-report/4")
    return tmp_path / "suggestion.json"


def written_skills(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A Stage B run of the registered fake agent, its CLI on the PATH."""
    request.getfixturevalue("repo")
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")
    folder = tmp_path / "bin"
    folder.mkdir()
    write_shim(folder)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    code, report = run(tmp_path, STAGE_B_CASES, "--real", "--agent", "fake", "--only", "named",
                       "--trials", "1", "--max-trials", "1")  # fmt: skip
    assert code == 0
    transcript = Path(report["cases"][0]["trials"][0]["transcript"])
    return transcript.parent.parent / "skills-baseline.json"


WRITERS: dict[str, Writer] = {
    "run": written_run,
    "changed": written_changed,
    "calibration": written_calibration,
    "agreement": written_agreement,
    "behavior-calibration": written_behavior_calibration,
    "visibility": written_visibility,
    "suggestion": written_suggestion,
    "state": written_state,
    "batches": written_batches,
    "skills": written_skills,
}


@pytest.mark.parametrize("kind", DOCUMENTS)
def test_a_document_the_tool_writes_validates_and_reads_back_the_same(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    written = WRITERS[kind](tmp_path, request).read_bytes()
    data = orjson.loads(written)
    assert data["schema"] == DOCUMENTS[kind].ids[0]
    jsonschema.Draft202012Validator(orjson.loads(shipped_schema(kind))).validate(data)
    again = DOCUMENTS[kind].data(read_document(kind, written))
    assert orjson.loads(orjson.dumps(again)) == data
