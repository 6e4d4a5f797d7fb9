"""`activation calibrate` through the command line: on the in-memory fake, and once end to end
against the local Messages API stand-in over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import orjson
import pytest

from activation import __version__
from activation._config import CONCURRENCY, MAX_CONCURRENCY, MODEL
from activation._models import RunSpec, TrialKey
from activation.commands.main import main
from activation.inputs.controls import BROAD as BROAD_CONTROL
from activation.inputs.suite import BUNDLED_CONTROLS
from activation.trials.fake import Answer
from activation.trials.stage import Stage
from tests.support.fake_stages import PRICING, FakeStages, Prepared
from tests.support.messages_api import Answer as Reply
from tests.support.messages_api import FakeMessagesAPI, FakeRequest
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_ID,
    SkillRepo,
    SkillRepos,
    case,
    skill_text,
    write_cases,
    write_distractors,
)

REAL = "Use when issuing refunds or handling chargebacks."
NARROW = "explicitly asks for the"
BROAD = "Use for any software development task"

CASES = [
    case("refund", "refund order 1234", True, ["keyword-loss"]),
    case("chargeback", "a chargeback came in for order 9", True, ["keyword-loss"]),
    case("chart", "plot monthly revenue as a bar chart", False, ["negative"]),
    case("sql", "this sql query is slow, add an index", False, ["negative"]),
]


def fires(prompt: str, description: str) -> bool:
    """The scripted model: the real description covers refunds and chargebacks only."""
    if NARROW in description:
        return "skill by name" in prompt
    if BROAD in description or description == BROAD_CONTROL:
        return True
    return "refund" in prompt or "chargeback" in prompt


def model(description: str, key: TrialKey) -> Answer:
    return fires(key.case.prompt, description)


@pytest.fixture
def repo(skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    made = skill_repo(REAL, files=REFERENCE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    monkeypatch.chdir(made.root)
    return made


def calibrate(
    tmp_path: Path,
    cases: Sequence[Mapping[str, object]],
    *flags: str,
    stages: Mapping[str, Stage] | None = None,
) -> int:
    cases_file = write_cases(tmp_path / "cases.json", cases)
    return main(
        [
            "calibrate",
            "--cases",
            str(cases_file),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(tmp_path / "calibration.json"),
            *flags,
        ],
        stages,
    )


# --- end to end over HTTP -------------------------------------------------------------------


@pytest.fixture
def api(repo: SkillRepo, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-calibrate")
        yield api


def answer(request: FakeRequest) -> Reply:
    target = request.menu[SKILL_ID]
    return Reply([SKILL_ID] if fires(request.prompt, target) else ["charts"])


def test_a_sound_suite_catches_both_controls(
    tmp_path: Path, api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    api.script = answer
    code = calibrate(tmp_path, CASES, "--record", str(tmp_path / "records"))
    out, err = capsys.readouterr()
    assert code == 0
    assert "warning" not in err  # the default controls are written for refunds
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["schema"] == "activation-calibration/1"
    assert data["narrow"] == {"detected": True, "regressed": ["refund", "chargeback"]}
    assert data["broad"] == {"detected": True, "regressed": ["chart", "sql"]}
    assert data["self"] == {"false_alarms": []}
    assert data["problems"] == []
    assert data["exit_code"] == 0
    assert data["reports"]["narrow"]["candidate"]["description"].startswith("Use only when")
    assert data["reports"]["self"]["candidate"]["description"] == REAL
    # Each comparison's candidate is asked; the baseline (the real description, the same
    # requests in all three) only by the first: the other two get it from the cache.
    assert len(api.message_requests) == 3 * len(CASES) * 3 + len(CASES) * 3
    assert data["reports"]["broad"]["usage"]["from_cache"] == len(CASES) * 3
    assert "The suite caught both controls and raised no A/A alarm." in out
    records = sorted(path.suffix for path in (tmp_path / "records").iterdir())
    assert records == [".json", ".md"]
    markdown = next((tmp_path / "records").glob("*.md")).read_text()
    assert "| narrow | positives REGRESSED | yes | refund, chargeback |" in markdown
    assert "| self | no REGRESSED (A/A) | yes | - |" in markdown


# --- on the fake ----------------------------------------------------------------------------


def test_three_comparisons_of_the_real_description(tmp_path: Path, repo: SkillRepo) -> None:
    backends = FakeStages(by_description=model)
    code = calibrate(tmp_path, CASES, stages=backends)
    assert code == 0
    spec = RunSpec(
        model=MODEL, concurrency=CONCURRENCY, max_concurrency=MAX_CONCURRENCY, pricing=PRICING
    )
    assert backends.prepared == [Prepared(spec, calls=True)]
    real = str(repo.skill_file)
    runs = [(opened.inputs.baseline, opened.inputs.candidate) for opened in backends.opened]
    assert [(baseline.spec, candidate.spec) for baseline, candidate in runs] == [
        (real, "the narrow control for refunds"),
        (real, "the broad control for refunds"),
        (real, real),
    ]
    assert {baseline.description for baseline, _candidate in runs} == {REAL}
    # The default controls are the skill's own SKILL.md, named for it, its description
    # broken on one axis each; the bundled ones are the bundled auth0 suite's.
    narrow, broad = runs[0][1], runs[1][1]
    assert narrow.description == (
        'Use only when the user explicitly asks for the refunds skill by name, for example "use '
        'the refunds skill". Do not use it for any other request, including work on what it '
        "covers that does not name this skill."
    )
    assert broad.description == BROAD_CONTROL
    assert narrow.text == repo.skill_file.read_text().replace(REAL, narrow.description)
    assert narrow.siblings == broad.siblings == runs[2][1].siblings
    assert runs[2][1].description == REAL
    # The baseline's requests are the same in all three comparisons: the cache asks them once.
    assert backends.calls == len(CASES) * 3 + 3 * len(CASES) * 3


def test_a_suite_without_real_negatives_is_blind_on_false_positives(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    positives_only = [CASES[0], CASES[1]]
    code = calibrate(
        tmp_path, positives_only, "--trials", "3", stages=FakeStages(by_description=model)
    )
    out = capsys.readouterr().out
    assert code == 1
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["broad"] == {"detected": False, "regressed": []}
    assert data["narrow"]["detected"] is True
    assert [problem.split(":")[0] for problem in data["problems"]] == ["blind on false positives"]
    assert "The suite is blind on false positives" in out


def test_a_flaky_case_raises_an_aa_false_alarm(tmp_path: Path, repo: SkillRepo) -> None:
    """On A/A both variants show the real description; the scripted model fires on the
    refund case with the baseline and not with the candidate, as a flaky model might."""

    def flaky(description: str, key: TrialKey) -> Answer:
        if description == REAL and key.case.id == "refund":
            return key.variant == "baseline"
        return model(description, key)

    code = calibrate(tmp_path, CASES, stages=FakeStages(by_description=flaky))
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert code == 1
    assert data["self"] == {"false_alarms": ["refund"]}
    assert data["problems"][0].startswith("raises false alarms: A/A regressed refund")


def test_own_controls_for_the_skill_raise_no_warning(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    narrow = tmp_path / "narrow.md"
    narrow.write_text(skill_text(f"Use only when the user {NARROW} refunds skill by name."))
    broad = tmp_path / "broad.md"
    broad.write_text(skill_text(f"{BROAD}."))
    code = calibrate(
        tmp_path,
        CASES,
        "--narrow",
        str(narrow),
        "--broad",
        str(broad),
        stages=FakeStages(by_description=model),
    )
    out, err = capsys.readouterr()
    assert code == 0, out
    assert "warning" not in err
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert data["narrow"]["detected"] is True
    assert data["reports"]["narrow"]["candidate"]["spec"] == str(narrow)


def test_calibrate_bad_input_exits_2_before_any_call(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = FakeStages(by_description=model)
    code = calibrate(tmp_path, CASES, "--narrow", str(tmp_path / "missing.md"), stages=backends)
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("activation calibrate: error: ")
    assert "missing.md" in err[0]
    assert (backends.prepared, backends.opened) == ([], [])


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--only=--behavior"], "--only names unknown case ids: --behavior"),
        (
            ["--", "--behavior"],
            "unrecognized arguments: -- --behavior (see activation calibrate --help)",
        ),
    ],
    ids=["a value", "after --"],
)
def test_a_word_that_reads_behavior_is_not_the_switch(
    flags: list[str],
    line: str,
    tmp_path: Path,
    repo: SkillRepo,
    capsys: pytest.CaptureFixture[str],
) -> None:
    backends = FakeStages(by_description=model)
    code = calibrate(tmp_path, CASES, *flags, stages=backends)
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [f"activation calibrate: error: {line}"]
    assert (backends.prepared, backends.opened) == ([], [])


def test_the_behavior_switch_abbreviated_is_the_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    backends = FakeStages(by_description=model)
    code = main(["calibrate", "--behav", "--broken", "missing.md"], backends)
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        "activation calibrate: error: --broken missing.md: no such file (a SKILL.md with a "
        "wrong body)"
    ]
    assert (backends.prepared, backends.opened) == ([], [])


def test_calibrate_bad_input_still_writes_the_report(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = FakeStages(by_description=model)
    code = calibrate(tmp_path, CASES, "--narrow", str(tmp_path / "missing.md"), stages=backends)
    (line,) = capsys.readouterr().err.strip().splitlines()
    data = orjson.loads((tmp_path / "calibration.json").read_bytes())
    assert code == 2
    assert data == {
        "schema": "activation-calibration/1",
        "version": __version__,
        "exit_code": 2,
        "error": line.removeprefix("activation calibrate: error: "),
    }


def test_a_record_folder_that_is_a_file_is_exit_2_before_any_call(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "records"
    taken.write_text("not a folder")
    backends = FakeStages(by_description=model)
    code = calibrate(tmp_path, CASES, "--record", str(taken), stages=backends)
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"activation calibrate: error: --record {taken}: is a file, not a folder"
    ]
    assert (backends.prepared, backends.opened) == ([], [])


def test_calibrate_runs_one_cell(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["calibrate", "--model", "mock,claude-haiku-4-5"])
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "activation calibrate: error: calibrate runs one cell: pass one --model and one --agent"
    )


def test_the_bundled_suite_keeps_its_own_controls(
    skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no cases of its own the auth0 skill runs the bundled suite, calibrated against
    the bundled controls written for it; a skill with its own cases gets controls derived
    for it (above)."""
    made = skill_repo(
        "Use when adding login to a web app with Auth0.", plugin_dir="plugins/auth0",
        plugin_name="auth0", skill_name="auth0",
    )  # fmt: skip
    monkeypatch.chdir(made.root)
    backends = FakeStages(by_description=model)
    assert main(["calibrate", "--only", "kw-redirect-loop"], backends) in (0, 1)
    controls = [opened.inputs.candidate.spec for opened in backends.opened][:2]
    assert controls == [str(BUNDLED_CONTROLS / name / "SKILL.md") for name in ("narrow", "broad")]


def test_a_dry_run_plans_each_comparison_and_makes_no_call(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA5 F4: calibrate plans like the other commands: each comparison's cases and cost,
    no backend prepared or opened; --agreement has no plan of its own (one line, exit 2)."""
    backends = FakeStages(by_description=model)
    assert calibrate(tmp_path, CASES, "--dry-run", stages=backends) == 0
    out = capsys.readouterr().out
    assert "calibrate would make 3 runs, the real description against each of: narrow, " in out
    assert out.count("No call was made.") == 3
    assert [prepared.calls for prepared in backends.prepared] == [False] * 3  # checked, no call
    assert backends.opened == []
    assert calibrate(tmp_path, CASES, "--dry-run", "--agreement", stages=backends) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("error: --dry-run plans calibrate's comparisons: leave out --agreement")
    )
