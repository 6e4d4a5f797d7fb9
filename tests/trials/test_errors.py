"""Whose an error is: each kind of failed trial gets its class where the fact is known (each
agent's reader of its captured streams, with no process; the backend for a signal it did not
send), only infrastructure errors are retried, bounded, counted, and a retried trial counts
once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from activation._config import INFRASTRUCTURE_RETRIES
from activation._models import ErrorClass, RunSpec, Trial, TrialKey, Usage
from activation.trials.agent.adapter import Detector, read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agents.claude_code.stream import read_stream
from activation.trials.agents.codex.stream import CodexReader
from activation.trials.agents.copilot.stream import CopilotReader
from activation.trials.agents.gemini.stream import GeminiReader
from activation.trials.agents.opencode.stream import OpenCodeReader
from activation.trials.engine import execute
from activation.trials.errors import InfrastructureFailure, ended_class, run_failure_class
from activation.trials.fake import FakeBackend
from activation.trials.limiter import Limiter
from activation.trials.schedule import RunSlots
from activation.trials.simulate import simulated_inputs, typical

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"
ROOT = Path("/tmp/demo/work/.agents/skills")
TARGET = SkillCopy("billing:refunds", ROOT / "refunds", "refunds", "1ed1a0429b0d7a77")
SKILLS = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (TARGET,))
READERS: dict[str, Callable[[SkillSet], Detector]] = {
    "codex": CodexReader,
    "copilot": CopilotReader,
    "gemini": GeminiReader,
    "opencode": OpenCodeReader,
}


@pytest.mark.parametrize(
    ("stream", "kind"),
    [
        ("api-error-400.jsonl", ErrorClass.MODEL),
        ("api-error-429.jsonl", ErrorClass.MODEL),
        ("auth-401-retrying.jsonl", ErrorClass.AGENT_SETUP),
        ("plugin-load-error.jsonl", ErrorClass.AGENT_SETUP),
        ("skill-tool-disabled.jsonl", ErrorClass.AGENT_SETUP),
    ],
)
def test_claude_codes_captured_failures_have_their_class(stream: str, kind: ErrorClass) -> None:
    with (STREAMS / stream).open("rb") as handle:
        reading = read_stream(handle, "auth0:auth0", exit_code=1)
    assert reading.outcome == "error"
    assert reading.error_class is kind
    assert ended_class(reading.error_class, 1) is kind


@pytest.mark.parametrize(
    ("agent", "stream", "kind"),
    [
        ("gemini", "api-error-400.jsonl", ErrorClass.MODEL),
        ("gemini", "bad-key.jsonl", ErrorClass.AGENT_SETUP),  # the API answers a bad key 400
        ("gemini", "activate-denied.jsonl", ErrorClass.AGENT_SETUP),
        ("codex", "api-error-400.jsonl", ErrorClass.MODEL),
        ("codex", "throttled-429.jsonl", ErrorClass.MODEL),
        ("codex", "auth-401.jsonl", ErrorClass.AGENT_SETUP),
        ("copilot", "api-error-400.jsonl", ErrorClass.MODEL),
        ("copilot", "auth-401.jsonl", ErrorClass.AGENT_SETUP),
        ("opencode", "api-error-400.jsonl", ErrorClass.MODEL),
        ("opencode", "skill-denied.jsonl", ErrorClass.AGENT_SETUP),
    ],
)
def test_every_agents_captured_failures_have_their_class(
    agent: str, stream: str, kind: ErrorClass
) -> None:
    lines = (STREAMS / agent / stream).read_bytes().splitlines(keepends=True)
    reading = read_through(READERS[agent](SKILLS), lines, 1)
    assert reading.outcome == "error"
    assert reading.error_class is kind


def test_a_class_is_read_from_the_stream_not_from_its_words() -> None:
    """A refused load is the agent's setup, and so is an empty stream (no run of the agent);
    a reading that is no error has no class."""
    lines = (STREAMS / "opencode" / "skill-denied.jsonl").read_bytes().splitlines(keepends=True)
    reading = read_through(OpenCodeReader(SKILLS), lines, 0)
    assert reading.error_class is ErrorClass.AGENT_SETUP
    assert read_through(OpenCodeReader(SKILLS), [], 0).error_class is ErrorClass.AGENT_SETUP
    with (STREAMS / "skill.jsonl").open("rb") as handle:
        assert read_stream(handle, "auth0:auth0", exit_code=0).error_class is None


@pytest.mark.parametrize(
    ("read", "returncode", "kind"),
    [
        (ErrorClass.MODEL, -9, ErrorClass.INFRASTRUCTURE),
        (ErrorClass.AGENT_SETUP, -15, ErrorClass.INFRASTRUCTURE),
        (ErrorClass.MODEL, 1, ErrorClass.MODEL),
        (ErrorClass.AGENT_SETUP, 1, ErrorClass.AGENT_SETUP),
        (ErrorClass.MODEL, None, ErrorClass.MODEL),
        (None, 1, ErrorClass.AGENT_SETUP),
    ],
)
def test_a_signal_the_tool_did_not_send_is_infrastructure_else_the_readers_class(
    read: ErrorClass | None, returncode: int | None, kind: ErrorClass
) -> None:
    assert ended_class(read, returncode) is kind


def test_a_run_that_cannot_start_is_setup_when_the_cli_is_missing_else_infrastructure() -> None:
    assert run_failure_class(FileNotFoundError(2, "no such file")) is ErrorClass.AGENT_SETUP
    assert run_failure_class(PermissionError(13, "denied")) is ErrorClass.AGENT_SETUP
    assert run_failure_class(BrokenPipeError(32, "broken pipe")) is ErrorClass.INFRASTRUCTURE


# --- retries ---------------------------------------------------------------------------

KEY = TrialKey(simulated_inputs(typical(1)).cases[0], "baseline", 0)


def attempts(outcomes: list[str]) -> tuple[Trial | None, int, list[str]]:
    """Run KEY through the slots with a run whose attempts go as `outcomes` say
    ("infra": the sandbox fails, "model": an API error, "ok": a vote)."""
    left = list(outcomes)
    seen: list[str] = []

    async def run(key: TrialKey) -> Trial:
        outcome = left.pop(0)
        seen.append(outcome)
        if outcome == "infra":
            raise InfrastructureFailure("the sandbox did not start: bwrap exited 1")
        if outcome == "model":
            return key.failed("API error 500: boom", Usage(requests=1), kind=ErrorClass.MODEL)
        return key.answer(True, "ok", Usage(requests=1, cost_usd=0.01))

    slots = RunSlots(Limiter(1))
    trial = anyio.run(slots.run, KEY, run)
    return trial, slots.retried, seen


def test_an_infrastructure_error_is_retried_and_the_trial_is_the_next_attempt() -> None:
    trial, retried, seen = attempts(["infra", "ok"])
    assert seen == ["infra", "ok"]
    assert retried == 1
    assert trial is not None
    assert trial.activated is True
    assert trial.error_class is None
    assert trial.usage == Usage(requests=1, cost_usd=0.01)


def test_infrastructure_retries_are_bounded_and_the_last_attempt_is_the_error() -> None:
    assert INFRASTRUCTURE_RETRIES == 2
    trial, retried, seen = attempts(["infra", "infra", "infra", "ok"])
    assert seen == ["infra", "infra", "infra"]
    assert retried == 2
    assert trial is not None
    assert trial.error == "the sandbox did not start: bwrap exited 1"
    assert trial.error_class is ErrorClass.INFRASTRUCTURE


def test_other_errors_are_never_retried() -> None:
    trial, retried, seen = attempts(["model", "ok"])
    assert seen == ["model"]
    assert retried == 0
    assert trial is not None
    assert trial.error_class is ErrorClass.MODEL


@dataclass(eq=False)
class FlakySandbox(FakeBackend):
    """Every trial's first attempt finds no sandbox; the second runs (an honest vote)."""

    tried: Counter[tuple[str, str, int]] = field(default_factory=Counter)

    async def run(self, key: TrialKey) -> Trial:
        self.tried[key.case.id, key.variant, key.index] += 1
        if self.tried[key.case.id, key.variant, key.index] == 1:
            raise InfrastructureFailure("the container did not start")
        return await super().run(key)


def test_a_retried_trial_counts_once_and_the_run_says_how_many_were_retried() -> None:
    backend = FlakySandbox(lambda key: True)
    inputs = simulated_inputs(typical(2))
    outcome = execute(RunSpec(trials=3, max_trials=3), inputs, backend)
    assert len(outcome.trials) == 2 * 2 * 3
    assert not any(trial.is_error for trial in outcome.trials)
    assert outcome.retried == 12
    assert set(backend.tried.values()) == {2}
    assert [(v.baseline.run, v.baseline.valid, v.baseline.errors) for v in outcome.verdicts] == [
        (3, 3, 0),
        (3, 3, 0),
    ]
    assert outcome.coverage.scored == outcome.coverage.planned == 12
