"""How every command ends when something goes wrong: a crash is never a verdict, the report
is written on every way out, signals stop runs cleanly, and the output stays usable."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import orjson
import pytest

import activation
from activation.commands import session
from activation.commands.main import main
from activation.commands.session import Session, run_command
from activation.inputs.suite import BUNDLED_CASES
from activation.report import codec
from activation.trials.agents import every
from activation.trials.classifier import backend as classifier_backend
from activation.trials.fake import CaseKey, scripted
from tests.support.cli import (
    STATUS_CASES,
    Spawn,
    hang_on,
    one_line_error,
    read_report,
    run,
    wait_until,
)
from tests.support.fake_stages import FakeStages
from tests.support.messages_api import FakeMessagesAPI
from tests.support.scripted_model import API_KEY, Scripted, always
from tests.support.skill_repo import SKILL_ID, SkillRepo, case, write_cases

DEBUG_HINT = " (--debug or ACTIVATION_DEBUG=1 shows where)"


def error_lines(err: str) -> list[str]:
    """What the command said went wrong (stderr also holds the progress bar's last frame)."""
    assert "Traceback" not in err
    return [line for line in err.splitlines() if line.startswith("activation")]


def model() -> FakeStages:
    """Regresses stripe-dispute, passes the rest: exit 1 on STATUS_CASES."""
    return FakeStages(
        scripted(
            {
                ("stripe-dispute", "baseline"): [True],
                ("stripe-dispute", "candidate"): [False],
                "plain-refund": [True],
            }
        )
    )


# --- a crash is exit 4, one line, and the report still on disk -------------------------------


def test_a_crash_in_the_answer_parser_is_exit_4_with_the_report(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*_args: object) -> tuple[str, ...]:
        raise RuntimeError("answer parser exploded")

    monkeypatch.setattr(classifier_backend, "parse_answer", broken)
    monkeypatch.delenv("ACTIVATION_DEBUG", raising=False)
    fake_api.script = Scripted({entry["prompt"]: always([SKILL_ID]) for entry in STATUS_CASES})
    code, report = run(tmp_path, STATUS_CASES)
    message = "internal error: RuntimeError: answer parser exploded; please report it"
    assert code == 4
    assert error_lines(capsys.readouterr().err) == [f"activation: error: {message}{DEBUG_HINT}"]
    assert report == {
        "schema": "activation-report/4",
        "version": activation.__version__,
        "exit_code": 4,
        "error": message + DEBUG_HINT,
    }


def test_a_crash_in_the_report_writer_is_exit_4_with_a_report(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*_args: object) -> bytes:
        raise KeyError("figures")

    monkeypatch.setattr(codec, "report_json", broken)
    monkeypatch.delenv("ACTIVATION_DEBUG", raising=False)
    code, report = run(tmp_path, STATUS_CASES, stages=model())
    message = "internal error: KeyError: 'figures'; please report it"
    assert code == 4
    assert error_lines(capsys.readouterr().err) == [f"activation: error: {message}{DEBUG_HINT}"]
    assert report == {
        "schema": "activation-report/4",
        "version": activation.__version__,
        "exit_code": 4,
        "error": message + DEBUG_HINT,
    }


def test_debug_shows_the_traceback(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*_args: object) -> bytes:
        raise ValueError("boom")

    monkeypatch.setattr(codec, "report_json", broken)
    code, _report = run(tmp_path, STATUS_CASES, "--debug", stages=model())
    err = capsys.readouterr().err
    assert code == 4
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1] == (
        "activation: error: internal error: ValueError: boom; please report it"
    )


def test_interrupts_anywhere_are_130_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted(_session: Session, _argv: list[str]) -> int:
        raise KeyboardInterrupt

    def terminated(_session: Session, _argv: list[str]) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        return 0

    assert run_command("activation", interrupted, []) == 130
    assert capsys.readouterr().err == "activation: error: interrupted\n"
    previous = signal.getsignal(signal.SIGTERM)
    try:
        session.install_stop_signals()
        assert run_command("activation", terminated, []) == 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert capsys.readouterr().err == "activation: error: interrupted\n"


# --- --json that cannot be written ------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "problem"),
    [
        ("folder", "is a directory"),
        ("missing/report.json", "the folder {tmp}/missing does not exist"),
        ("/sys/kernel/activation-report.json", "cannot be written (Permission denied)"),
    ],
    ids=["directory", "missing-parent", "read-only"],
)
def test_an_unwritable_report_path_is_exit_2_before_any_call(
    tmp_path: Path,
    repo: SkillRepo,
    capsys: pytest.CaptureFixture[str],
    where: str,
    problem: str,
) -> None:
    (tmp_path / "folder").mkdir()
    path = tmp_path / where
    backends = model()
    cases = write_cases(tmp_path / "cases.json", STATUS_CASES)
    code = main(["--cases", str(cases), "--json", str(path)], backends)
    assert code == 2
    expected = f"activation: error: --json {path}: {problem.format(tmp=tmp_path)}"
    assert one_line_error(capsys) == expected
    assert (backends.prepared, backends.opened) == ([], [])


def test_a_report_lost_at_the_end_keeps_the_summary_and_the_verdict(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = write_cases(tmp_path / "cases.json", STATUS_CASES)
    argv = ["--cases", str(cases), "--distractors", str(tmp_path / "distractors")]
    code = main([*argv, "--json", "/dev/full"], model())
    captured = capsys.readouterr()
    assert code == 1
    assert "FAILED: the candidate regressed." in captured.out
    assert error_lines(captured.err) == [
        "activation: error: cannot write the report /dev/full: No space left on device"
    ]


# --- signals: SIGTERM is Ctrl-C -----------------------------------------------------------


def test_sigterm_during_stage_a_writes_a_partial_report(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, spawn_activation: Spawn
) -> None:
    fake_api.latency = hang_on("give money back to the buyer")
    fake_api.script = Scripted({entry["prompt"]: always([SKILL_ID]) for entry in STATUS_CASES})
    cases = write_cases(tmp_path / "cases.json", STATUS_CASES)
    report = tmp_path / "partial.json"
    process = spawn_activation(repo.root, tmp_path, cases, report, "--concurrency", "8")
    wait_until(lambda: len(fake_api.message_requests) >= 36)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    data = read_report(report)
    assert (data["interrupted"], data["exit_code"]) == (True, 130)
    assert data["summary"]["unfinished"] == ["never"]  # every one of its trials hung
    assert len(data["cases"]) == 5
    assert data["usage"]["requests"] == 36  # the six hanging ones were sent all the same
    assert "INTERRUPTED" in out.decode()
    assert API_KEY not in out.decode() + err.decode()


# --- an unreachable API -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:1", "cannot reach http://127.0.0.1:1 (Connection refused): "),
        ("not a url", "cannot reach 'not a url': ANTHROPIC_BASE_URL is not an http(s) URL"),
    ],
    ids=["refused", "malformed"],
)
@pytest.mark.parametrize("stage", [[], ["--real", "--only", "plain-refund"]], ids=["A", "B"])
def test_an_unreachable_api_is_exit_2_before_any_trial(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    url: str,
    message: str,
    stage: list[str],
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    for proxy in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    fake_claude = tmp_path / "claude"
    fake_claude.write_text("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
    fake_claude.chmod(0o755)
    code, report = run(tmp_path, STATUS_CASES, "--claude", str(fake_claude), *stage)
    (line,) = error_lines(capsys.readouterr().err)
    assert code == 2
    assert line.startswith(f"activation: error: {message}")
    assert (report["exit_code"], report["error"]) == (2, line.removeprefix("activation: error: "))


def test_the_stage_a_backend_stops_on_an_api_it_cannot_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the check before the run (a URL that stops answering mid-run), the backend gives
    up after the SDK's retries with the same error, rather than failing trial after trial."""
    import anyio

    from activation._errors import ApiUnreachable
    from activation._models import RunSpec, TrialKey
    from activation.trials.simulate import simulated_inputs, typical
    from activation.trials.stage import stage_named

    monkeypatch.setattr("activation._config.API_RETRIES", 0)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://user:secret@127.0.0.1:1/v1")
    inputs = simulated_inputs(typical(1))
    stage = stage_named("A")
    backend = stage.open(stage.configure(RunSpec()), inputs)
    assert isinstance(backend, classifier_backend.ClassifierBackend)

    async def one() -> None:
        async with backend:
            await backend.run(TrialKey(inputs.cases[0], "baseline", 0))

    with pytest.raises(ApiUnreachable) as raised:
        anyio.run(one)
    assert str(raised.value) == (
        "cannot reach http://127.0.0.1:1/v1/ (check ANTHROPIC_BASE_URL and the network)"
    )


# --- --version and what the report records -------------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"activation {activation.__version__}\n"


def test_the_report_records_the_version(tmp_path: Path, repo: SkillRepo) -> None:
    _code, report = run(tmp_path, STATUS_CASES, stages=model())
    assert report["version"] == activation.__version__
    assert report["agent"] is None
    _code, report = run(tmp_path, STATUS_CASES, "--real", "--only", "plain-refund", stages=model())
    assert report["agent"] == {
        "claude": "claude",
        "version": "fake",
        "max_turns": 8,
        "timeout": 300.0,
        "keep_workspaces": None,
        "sandbox": "host",  # ACTIVATION_SANDBOX, which every test sets (tests/conftest.py)
        "canary": True,
        "image": "activation-sandbox:bookworm",
        "executor": "local",
        "executables": {agent.name: agent.command for agent in every()},
    }


# --- ids and the suggested command stay whole at any width -----------------------------------


@pytest.mark.parametrize("width", [60, 80])
def test_case_ids_and_the_real_command_print_unbroken(
    width: int,
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A terminal this narrow wraps the long lines on screen; a copy keeps each one whole."""
    ids = [f"framework-loss-nextjs-app-router-middleware-{i}" for i in range(3)]
    cases = [case(case_id, f"prompt number {i}", True) for i, case_id in enumerate(ids)]
    monkeypatch.setenv("COLUMNS", str(width))
    answers: dict[CaseKey, list[bool]] = {
        (ids[0], "candidate"): [False],
        ids[0]: [True],
        ids[1]: [True, False],
    }
    backends = FakeStages(scripted({**answers, ids[2]: [True]}))
    code, _report = run(tmp_path, cases, "--max-trials", "3", stages=backends)
    lines = capsys.readouterr().out.splitlines()
    command = (
        f"  activation --real --only {ids[0]},{ids[1]} --cases {tmp_path}/cases.json "
        "--max-trials 3"
    )  # the run's own flags that matter to the check, as the user gave them
    assert command in lines
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ids
    assert f"  {ids[0]} 3/3 -> 0/3: fired nothing 3/3: prompt number 0" in lines
    assert code == 1


# --- one validator, warnings before spending ---------------------------------------------------


def test_lint_and_the_run_agree_on_a_broken_cases_file(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = [
        case("pos", "refund order 12", True),
        {**case("neg", "chart it", False), "twin": "ghost"},
    ]
    cases = write_cases(tmp_path / "cases.json", broken)
    assert (
        main(["--cases", str(cases), "--distractors", str(tmp_path / "distractors")], model()) == 2
    )
    assert (
        one_line_error(capsys)
        == f"activation: error: {cases}: case 'neg': twin 'ghost' names no case"
    )
    assert main(["lint", "--cases", str(cases)]) == 1
    assert "error    neg  twin 'ghost' names no case" in capsys.readouterr().out


def test_a_huge_prompt_and_a_huge_plan_warn_before_any_call(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [case("huge", "x " * 10_001, True), *STATUS_CASES]
    backends = model()
    code, _report = run(tmp_path, cases, "--dry-run", "--trials", "900", stages=backends)
    err = capsys.readouterr().err
    assert code == 0
    assert (
        "warning: 1 prompt(s) over 20,000 characters (huge): each costs that much in every trial\n"
        in err
    )
    assert "warning: the run plans 12,600 model calls in its first round (over 10,000): " in err
    code, _report = run(
        tmp_path,
        cases,
        "--trials",
        "900",
        "--max-trials",
        "900",
        "--only",
        "huge",
        stages=backends,
    )
    assert "warning: 1 prompt(s) over 20,000 characters" in capsys.readouterr().err


def test_a_suite_written_for_another_skill_warns_in_one_line(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --cases, a skill other than auth0 is refused in one line, never measured on
    the bundled auth0 cases (changed behaviour: it was a warning, then the run)."""
    bundled = ["--distractors", str(tmp_path / "distractors"), "--only", "kw-passkeys"]
    code = main(["--dry-run", *bundled], model())
    assert code == 2
    assert capsys.readouterr().err == (
        f"activation: error: no cases for {SKILL_ID}: --cases was not given, "
        "none about it were found (looked in files named as cases (cases.json, *.cases.json, "
        "*trigger*eval*.json, *trigger*test*.yaml, *skill*test*.yaml) anywhere; each skill's "
        "folder and its evals/; "
        "evals/ and tests/ folders (.txt prompts in their prompts/ folders); beside the skill "
        "folders and at the repo's top), and the bundled suite is only for auth0:auth0; "
        f"pass --cases FILE with cases for {SKILL_ID} (docs/formats.md)\n"
    )
    own = write_cases(tmp_path / "own.json", STATUS_CASES)
    data = orjson.loads(own.read_bytes())
    own.write_bytes(orjson.dumps({**data, "skill": "acme:other"}))
    main(
        ["--cases", str(own), "--distractors", str(tmp_path / "distractors"), "--dry-run"], model()
    )
    assert (
        f"warning: the cases file was written for acme:other, not {SKILL_ID}"
        in capsys.readouterr().err
    )


def test_dry_run_never_imports_the_sdk(tmp_path: Path, repo: SkillRepo, fresh_python: str) -> None:
    argv = ["--dry-run", "--only", "kw-passkeys", "--distractors", str(tmp_path / "distractors"),
            "--cases", str(BUNDLED_CASES)]  # fmt: skip
    probe = (
        "import sys, contextlib, io\n"
        "from activation.commands.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        "print(code, 'anthropic' in sys.modules)\n"
    )
    # Without a key there is nothing to count tokens with, so the SDK stays unloaded.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    completed = subprocess.run(
        [fresh_python, "-c", probe], cwd=repo.root, capture_output=True, text=True, check=True,
        env=env,
    )  # fmt: skip
    assert completed.stdout.split() == ["0", "False"]


@pytest.mark.usefixtures("repo")
def test_an_error_line_prints_a_users_value_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`:smile:` is no emoji and `[bold]` no markup in an error or a warning line: the value
    the user gave is what they read back."""
    odd = ":smile: [bold]x[/bold]"
    code, _report = run(tmp_path, STATUS_CASES, "--model", "mock", "--only", odd)
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: --only names unknown case ids: {odd}"
    real = ("--real", "--dry-run", "--only", "plain-refund", "--claude", odd)
    code, _report = run(tmp_path, STATUS_CASES, *real)
    assert code == 0
    warning = capsys.readouterr().err.splitlines()[0]
    assert warning.startswith(f"warning: cannot find the Claude Code CLI '{odd}': install it")
