"""Stage C end to end: `activation behavior` drives the real Claude Code CLI against the local
Messages API stand-in on the bundled example (examples/behavior), the model scripted to do
each task the way the skill it loaded teaches (tests/support/behavior_repo.py): it reads the
file and writes it whole with Claude Code's own Write tool, in the run's workspace.

The baseline is the committed skill; the candidate, the working tree's, is either the same
(nothing changed) or the broken body (the same description over the removed 1.x API).
(On every agent, tests/trials/agents/test_conformance.py: one case regressed by the broken
body, an unchanged body that lifts over no skill, a trial that skips the skill, SIGTERM.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.behavior_repo import FILES, does_the_task, example_repo, judged
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Raw, Reply, Text
from tests.support.scripted_model import API_KEY
from tests.test_docs import shows

Report = dict[str, Any]
ONE_CASE = ("--only", "welcome_banner", "--trials", "3", "--max-trials", "3")


@pytest.fixture
def at_work(
    fake_api: FakeMessagesAPI, claude: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[FakeMessagesAPI, Path]:
    fake_api.script = does_the_task
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    return fake_api, claude


def behave(tmp_path: Path, claude: Path, *flags: str) -> tuple[int, Report]:
    report = tmp_path / "behavior.json"
    code = main(["behavior", "--claude", str(claude), "--json", str(report), "--full-record",
                 *flags])  # fmt: skip
    return code, read_report(report) if report.exists() else {}


def trials_of(report: Report, case: str, arm: str) -> list[dict[str, Any]]:
    (entry,) = [entry for entry in report["cases"] if entry["id"] == case]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def outcomes(trial: dict[str, Any]) -> dict[str, str]:
    return {grade["grader"]: grade["outcome"] for grade in trial["grades"]}


def stand_in_output() -> str:
    """The walk-through's output on the Behavior page: what this file's first test prints."""
    page = (Path(__file__).parents[2] / "docs" / "behavior.md").read_text()
    return page.split("<!-- stand-in output -->\n```text\n", 1)[1].split("```", 1)[0]


def test_a_body_that_teaches_the_removed_api_regresses_every_case_and_fails_the_gate(
    tmp_path: Path,
    at_work: tuple[FakeMessagesAPI, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    api, claude = at_work
    monkeypatch.chdir(example_repo(tmp_path / "repo", broken=True))
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("ACTIVATION_SANDBOX", "auto")  # bwrap here, as a user's run gets it
    kept = tmp_path / "kept"
    code, report = behave(tmp_path, claude, "--baseline", "git:HEAD", "--trials", "3",
                          "--max-trials", "3", "--keep-workspaces", str(kept))  # fmt: skip
    assert code == 1
    assert shows(capsys.readouterr().out, stand_in_output())
    assert report["stage"] == "C"
    assert report["agent"]["keep_workspaces"] == str(kept.resolve())
    # The descriptions are the same: the report carries the body's edit that was tested.
    diff = report["body_diff"].splitlines()
    assert diff[:2] == ["--- a/skills/greetlib/SKILL.md", "+++ b/skills/greetlib/SKILL.md"]
    assert '-greetlib.configure(api_key=os.environ["GREETLIB_API_KEY"])' in diff
    assert '+greetlib.init(os.environ["GREETLIB_API_KEY"])' in diff
    # The example's cases have a `## System` section: the llm arm runs too, by default.
    assert report["arms"] == ["none", "llm"]
    assert {entry["id"]: entry["status"] for entry in report["cases"]} == {
        "batch_cards": "REGRESSED",
        "configure_once": "REGRESSED",
        "welcome_banner": "REGRESSED",
    }
    for case, file in FILES.items():
        for arm, loaded in (("baseline", True), ("candidate", True), ("none", False),
                            ("llm", False)):  # fmt: skip
            trials = trials_of(report, case, arm)
            assert [trial["index"] for trial in trials] == [0, 1, 2]
            assert {trial["activated"] for trial in trials} == {loaded}
            assert {trial["correct"] for trial in trials} == {arm == "baseline"}
            written = (
                (file, "requirements.txt", "response.md")
                if arm == "llm"
                else (file, "requirements.txt")
            )
            assert {tuple(sorted(trial["files"])) for trial in trials} == {tuple(sorted(written))}
        right = trials_of(report, case, "baseline")[0]
        assert set(outcomes(right).values()) == {"passed"}
        broken = outcomes(trials_of(report, case, "candidate")[0])
        assert broken["No removed 1.x API (hello, hello_all, init, polite=)"] == "failed"
        kept_file = kept / case / "candidate-0" / file
        assert "hello" in kept_file.read_text()
    # The installed skill's own files (its references hold the right code) are never graded.
    assert all(".claude" not in path for entry in report["cases"] for t in entry["trials"]
               for path in t["files"])  # fmt: skip
    assert API_KEY not in (tmp_path / "behavior.json").read_text()
    judge_requests = [r for r in api.message_requests if r.schema is not None]
    assert judge_requests and {r.model for r in judge_requests} == {"claude-haiku-5-5"}


def idle(request: FakeRequest) -> Reply:
    """An agent that changes nothing (the judge is the scripted one)."""
    return judged(request) if request.schema is not None else Text("Nothing to change.")


def test_an_empty_workspace_scores_nothing(
    tmp_path: Path, at_work: tuple[FakeMessagesAPI, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, claude = at_work
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    api.script = idle
    code, report = behave(tmp_path, claude, "--baseline", "git:HEAD", "--only",
                          "welcome_banner", "--trials", "1", "--max-trials", "1",
                          "--no-control")  # fmt: skip
    assert code == 0
    (entry,) = report["cases"]
    assert entry["status"] == "FAIL"
    for trial in entry["trials"]:
        assert (trial["activated"], trial["correct"]) == (False, False)
        assert trial["files"] == ["app.py", "requirements.txt"]
        found = outcomes(trial)
        # Nothing positive passed on the untouched scaffold, so every negative is void.
        assert found["Uses only greetlib's real names (greet, greet_many, configure and its "
                     "errors)"] == "void"  # fmt: skip
        assert found["No removed 1.x API (hello, hello_all, init, polite=)"] == "void"
        assert found["Imports greetlib"] == "failed"


def test_a_judge_without_an_answer_makes_the_trial_an_error_and_the_gate_fails_closed(
    tmp_path: Path, at_work: tuple[FakeMessagesAPI, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, claude = at_work
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    api.script = lambda request: (
        Raw("I would rather not say.") if request.schema is not None else does_the_task(request)
    )
    code, report = behave(tmp_path, claude, "--baseline", "git:HEAD", "--only",
                          "welcome_banner", "--trials", "1", "--max-trials", "1",
                          "--no-control")  # fmt: skip
    assert code == 3
    (entry,) = report["cases"]
    assert entry["status"] == "ERROR"
    judge = "Does welcome_banner(name) return an HTML <h1> holding the formal greeting"
    for trial in entry["trials"]:
        assert trial["reading"] == "error"
        assert trial["error"].startswith(f"grader '{judge}")
        assert trial["error"].endswith("the judge could not answer")
        assert outcomes(trial)["Imports greetlib"] == "passed"
    # Asked twice (once again after an unreadable answer), per trial.
    assert len([r for r in api.message_requests if r.schema is not None]) == 4


def test_a_scaffold_that_already_passes_is_refused_before_any_agent_run(
    tmp_path: Path, at_work: tuple[FakeMessagesAPI, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    api, claude = at_work
    root = example_repo(tmp_path / "repo")
    (root / "evals/welcome-banner/scaffold/app.py").write_text("import greetlib\n")
    monkeypatch.chdir(root)
    code, report = behave(tmp_path, claude, "--baseline", "git:HEAD")
    assert code == 2
    assert report["exit_code"] == 2
    assert "passes on the scaffold alone" in report["error"]
    line = capsys.readouterr().err.strip()
    assert line.startswith("activation behavior: error: ")
    assert "case welcome_banner: grader 1 (Imports greetlib) passes on the scaffold alone" in line
    assert api.message_requests == []


def test_a_cost_ceiling_stops_the_run_and_fails_it_closed(
    tmp_path: Path, at_work: tuple[FakeMessagesAPI, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _api, claude = at_work
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    code, report = behave(tmp_path, claude, "--baseline", "git:HEAD", *ONE_CASE,
                          "--model", "claude-sonnet-5-5", "--max-cost-usd", "0.05",
                          "--concurrency", "1")  # fmt: skip
    assert code == 3
    errors = [t["error"] for t in report["cases"][0]["trials"] if t["reading"] == "error"]
    assert errors and all("cost ceiling" in error for error in errors)
    assert report["ceiling_hit"] is True


def test_invoke_loads_the_skill_through_the_prompt_and_a_second_run_comes_from_the_cache(
    tmp_path: Path, at_work: tuple[FakeMessagesAPI, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, claude = at_work
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    flags = ("--baseline", "git:HEAD", "--only", "welcome_banner", "--trials", "1",
             "--max-trials", "1", "--no-control", "--invoke")  # fmt: skip
    code, report = behave(tmp_path, claude, *flags)
    assert code == 0
    trials = report["cases"][0]["trials"]
    assert [(t["variant"], t["activated"], t["correct"]) for t in trials] == [
        ("baseline", True, True), ("candidate", True, True),
    ]  # fmt: skip
    assert all(
        t["evidence"].startswith("loaded by the prompt's explicit invocation") for t in trials
    )
    firsts = [r for r in api.message_requests if r.is_main_loop and r.turn == 0]
    assert len(firsts) == 2
    command = "<command-name>/greetlib:greetlib</command-name>"
    assert all(command in orjson.dumps(r.messages).decode() for r in firsts)
    asked = len(api.message_requests)
    again, second = behave(tmp_path, claude, *flags)
    assert again == 0
    assert len(api.message_requests) == asked
    assert [t["cached"] for t in second["cases"][0]["trials"]] == [True, True]
    assert [t["correct"] for t in second["cases"][0]["trials"]] == [True, True]
