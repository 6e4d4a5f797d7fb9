"""The canary's last step proves that the agent's own tool really runs: the agent is asked
to read a file in its workspace that holds a fresh nonce (never in the prompt), and the
canary passes only when a tool call's result in the agent's stream, as its own reader reads
it, holds that nonce. An agent that answers in prose (a guessed nonce included) or whose
tool returned something else fails the cell before any trial: exit 3, no trial spent. One
canary run serves every cell of the same agent, sandbox and config. (That it passes through
every real agent in bubblewrap: the conformance suite's sandboxed runs, where the stand-ins
answer it, tests/support/canary_agent.py.)"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from activation._config import INFRASTRUCTURE_RETRIES
from activation._models import ToolCall, Trajectory, Trial, TrialKey
from activation.commands.main import main
from activation.trials.agent import backend as backend_module
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.canary import NONCE_FILE, agent_problem
from activation.trials.agent.reading import Reading
from activation.trials.agents import agent_named, known
from activation.trials.backend import Round, Silent
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots
from tests.support.canary_agent import asked_file
from tests.support.cli import read_report
from tests.support.real_agents import REAL_AGENTS, RealAgent, Script
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_PATH,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)
from tests.trials.agent.test_backend import case as stage_case
from tests.trials.agent.test_canary import Leaky
from tests.trials.agent.test_error_sources import fake_agent_in
from tests.trials.agents import test_conformance as conformance
from tests.trials.agents.conftest import agent_cli

__all__ = ["agent_cli"]

NONCE = "0f3c9a1e5b7d2c4a8e6f1b3d5a7c9e2f"
FILE = Path("/run/work") / NONCE_FILE
PREFIX = "the agent did not read the canary's file with its own tool: "


def reading(
    returned: tuple[tuple[str, str], ...] = (),
    calls: tuple[str, ...] = (),
    files_read: tuple[str, ...] = (),
    reads_shown: bool = True,
    error: str | None = None,
) -> Reading:
    """A run's reading as an agent's reader gives it, with these tool calls and results."""
    trajectory = Trajectory(tuple(map(ToolCall, calls)), files_read=files_read)
    return Reading("error" if error else "not_activated", error or "the run completed", (),
                   None, 1, 0, 0, True, True, 3, 0, trajectory=trajectory, returned=returned,
                   reads_shown=reads_shown)  # fmt: skip


def test_a_tool_result_holding_the_nonce_passes() -> None:
    assert agent_problem(reading((("Read", f"     1\t{NONCE}"),), ("Read",)), NONCE, FILE) is None


def test_prose_with_a_guessed_nonce_and_no_tool_call_fails() -> None:
    """The model's text is not in the reading at all: only what the CLI's tools returned."""
    assert agent_problem(reading(), NONCE, FILE) == (
        PREFIX + "it called no tool (an answer in prose alone proves nothing)"
    )


def test_a_tool_result_without_the_nonce_fails_naming_each_tool_once() -> None:
    found = reading((("Glob", f"{FILE}"), ("Read", "     1\tsomething else")),
                    ("Glob", "Read", "Glob"))  # fmt: skip
    assert agent_problem(found, NONCE, FILE) == (
        PREFIX + "it called Glob, Read, and no result held the file's nonce"
    )


def test_a_failed_run_says_why_with_the_tail_of_its_stderr() -> None:
    found = reading(error="the run ended without a result event")
    assert agent_problem(found, NONCE, FILE, "line one\n  " + "x" * 400) == (
        PREFIX + "its run failed: the run ended without a result event; stderr: " + "x" * 300
    )


def test_a_stream_that_shows_no_reads_content_passes_on_a_successful_read_of_the_file() -> None:
    """Gemini CLI's stream says only that `read_file` succeeded: the read of the canary's
    file by its path counts there, and a read of another file does not."""
    assert agent_problem(reading(calls=("read_file",), files_read=(str(FILE),),
                                 reads_shown=False), NONCE, FILE) is None  # fmt: skip
    other = reading(calls=("read_file",), files_read=("/run/work/x",), reads_shown=False)
    assert agent_problem(other, NONCE, FILE) == (
        PREFIX + "it called read_file, and no result held the file's nonce"
    )
    shown = reading(calls=("Read",), files_read=(str(FILE),))
    assert agent_problem(shown, NONCE, FILE) == (
        PREFIX + "it called Read, and no result held the file's nonce"
    )


def run_cells(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, cells: int
) -> tuple[list[AgentBackend], list[Trial], int]:
    """`cells` cells of the fake agent (its real CLI, whose tool reads a file the prompt
    names) in one sandbox and config, the sandbox's probe passing: each backend, every
    trial, and how many agent canary runs they took."""
    monkeypatch.setattr(backend_module, "AGENT_RUNS", {})

    async def passes(*_args: object) -> tuple[str, ...]:
        return ()  # the boundary's probe, as under real bubblewrap (test_canary.py)

    monkeypatch.setattr(backend_module, "run_probe", passes)
    runs = 0
    agent_canary = AgentBackend._agent_canary

    async def counted(self: AgentBackend) -> str | None:
        nonlocal runs
        runs += 1
        return await agent_canary(self)

    monkeypatch.setattr(AgentBackend, "_agent_canary", counted)
    backend = fake_agent_in(Leaky(), tmp_path, skill_repo, monkeypatch)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}  # as fake_agent_in's
    backends = [backend, *(AgentBackend(backend.spec, backend.inputs, tmp_path / f"t{index}",
                                        env=env) for index in range(1, cells))]  # fmt: skip
    delivered: list[Trial] = []

    async def main() -> None:
        for each in backends:
            each.sandbox = backend.sandbox
            async with each:
                keys = (TrialKey(stage_case("deploy the app"), "candidate", 0),)
                await each.run_round(Round(keys, delivered.append, RunSlots(Limiter(1)),
                                           Silent()))  # fmt: skip

    anyio.run(main)
    return backends, delivered, runs


def test_an_agent_whose_tool_returns_the_nonce_passes_and_one_run_serves_every_cell(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    backends, trials, runs = run_cells(tmp_path, skill_repo, monkeypatch, 2)
    assert [each.canary_failure for each in backends] == [None, None]
    assert [(t.activated, t.error) for t in trials] == [(True, None), (True, None)]
    assert runs == 1


def test_a_canary_run_that_could_not_start_is_run_again_as_a_trials_would_be(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent canary's first run fails to start (a docker hiccup): it is an
    infrastructure error, run again, and the cell's trials run once it passes."""
    drive = AgentBackend._drive
    calls = 0

    async def hiccup_first(self: AgentBackend, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("Cannot connect to the Docker daemon")
        return await drive(self, *args)

    monkeypatch.setattr(AgentBackend, "_drive", hiccup_first)
    backends, trials, runs = run_cells(tmp_path, skill_repo, monkeypatch, 1)
    assert [each.canary_failure for each in backends] == [None]
    assert [(t.activated, t.error) for t in trials] == [(True, None)]
    assert (runs, calls) == (1, 3)  # one canary: two of its runs, then the trial's


def test_a_canary_run_that_never_starts_fails_the_cell_after_the_retries(
    tmp_path: Path, skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0

    async def never(self: AgentBackend, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        raise OSError("Cannot connect to the Docker daemon")

    monkeypatch.setattr(AgentBackend, "_drive", never)
    backends, trials, _runs = run_cells(tmp_path, skill_repo, monkeypatch, 1)
    assert calls == 1 + INFRASTRUCTURE_RETRIES
    assert backends[0].canary_failure == (
        "the bwrap canary failed: the agent's canary run could not start: OSError: Cannot "
        "connect to the Docker daemon"
    )
    assert [t.error for t in trials] == [backends[0].canary_failure]


# --- through the real agent CLI --------------------------------------------------------------

GUESS = secrets.token_hex(16)


def answering(row: RealAgent, tool: bool) -> Script:
    """The model of a run that never reads the canary's file: in prose with a nonce of the
    right shape, after (`tool`) its agent's read of a file that is not there."""

    def answer(request: Any) -> Any:
        if tool and row.in_loop(request) and request.turn == 0:
            return row.at_work.instead(request)
        return row.text(GUESS)

    return answer


@pytest.mark.parametrize("real_agent", known()[:1])  # the default agent: one run each way
@pytest.mark.parametrize("tool", [False, True])
def test_an_agent_that_does_not_return_the_nonce_fails_the_run_before_any_trial(
    tool: bool,
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The real CLI under bubblewrap, its stand-in handing the canary's prompt to a model
    that answers it in prose with a guessed nonce, or reads another file first: the run
    exits 3, each trial that infrastructure error, and the stand-in got no request but the
    canary's."""
    row = REAL_AGENTS[real_agent]
    repo = skill_repo(conformance.BASELINE, files=REFERENCE, candidate=conformance.CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", [case("plain", conformance.PLAIN, True)])
    monkeypatch.chdir(repo.root)
    report = tmp_path / "report.json"
    with row.api(answering(row, tool)) as api:
        api.answers_canary = False
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        code = main([
            "--real", "--agent", real_agent, f"--{agent_named(real_agent).command}",
            str(agent_cli), *row.model, "--sandbox", "bwrap",
            "--cases", str(tmp_path / "cases.json"),
            "--distractors", str(tmp_path / "distractors"), "--skill-path", SKILL_PATH,
            "--only", "plain", "--trials", "1", "--max-trials", "1", "--timeout", "120",
            "--json", str(report),
        ])  # fmt: skip
        asked = [asked_file(request.prompt) is not None for request in api.requests]
    captured = capsys.readouterr()
    assert code == 3, captured.err
    trials = [t for entry in read_report(report)["cases"] for t in entry["trials"]]
    assert [(t["variant"], t["reading"], t["error_class"]) for t in trials] == [
        ("baseline", "error", "infrastructure"), ("candidate", "error", "infrastructure"),
    ]  # fmt: skip
    (error,) = {t["error"] for t in trials}
    if tool:
        assert error.startswith(f"the bwrap canary failed: {PREFIX}it called ")
        assert error.endswith(", and no result held the file's nonce")
    else:
        assert error == (
            f"the bwrap canary failed: {PREFIX}it called no tool (an answer in prose alone "
            "proves nothing)"
        )
    assert asked == [True] * (2 if tool else 1)


def strings(value: object) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [text for item in value for text in strings(item)] if isinstance(value, list) else []


@pytest.mark.parametrize("agent", sorted(conformance.CAPTURES))
def test_each_agents_reader_keeps_what_its_tools_returned_as_the_cli_wrote_it(agent: str) -> None:
    """Over the agent's captured streams: some tool results are kept, and each is a text
    of the stream's own events (a tool's result as the CLI wrote it)."""
    captured = conformance.CAPTURES[agent]
    kept = 0
    for path in sorted(captured.folder.glob("*.jsonl")):
        lines = path.read_bytes().splitlines()
        written = {text for line in lines if line.startswith(b"{")
                   for text in strings(orjson.loads(line))}  # fmt: skip
        returned = conformance.read(agent, path.name).returned
        assert all(text in written for _tool, text in returned), (path.name, returned)
        kept += len(returned)
    assert kept > 0
