"""GitHub Copilot CLI's detector on the real CLI's lines (tests/fixtures/streams/copilot, the
stdout of CLI 1.0.102 run with Stage B's own command line against the scripted Messages
API stand-in; temporary paths renamed `/tmp/demo`, the port 8080): each capture's reading,
what counts as a load, failures, errors and where a run can stop."""

from __future__ import annotations

from pathlib import Path

from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agent.reading import Reading
from activation.trials.agents.copilot.stream import CopilotReader

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams" / "copilot"
COPY = Path("/tmp/demo/copy/payments/skills")
TARGET = SkillCopy("billing:refunds", COPY / "refunds", "refunds")
SIBLING = SkillCopy("billing:charts", COPY / "charts", "charts")
SKILLS = SkillSet(COPY.parent, True, CatalogCopy(), (TARGET, SIBLING))


def lines(name: str) -> list[bytes]:
    return (STREAMS / name).read_bytes().splitlines(keepends=True)


def read(stream: list[bytes], exit_code: int | None = 0) -> Reading:
    return read_through(CopilotReader(SKILLS), stream, exit_code)


def test_a_load_is_the_skill_calls_start_and_its_successful_completion() -> None:
    stream = lines("skill.jsonl")
    reading = read(stream)
    complete = next(i for i, line in enumerate(stream, 1) if b'"tool.execution_complete"' in line)
    assert reading.reason == (
        f"the agent called skill 'refunds' and Copilot CLI loaded it (line {complete})"
    )
    assert reading.model == "claude-sonnet-4.6"
    started = [line for line in stream[: complete - 1] if b'"tool.execution_start"' in line]
    assert len(started) == 1 and b'"arguments":{"skill":"refunds"}' in started[0]
    without = [line for line in stream if b'"tool.execution_complete"' not in line]
    assert read(without).outcome == "not_activated"  # a start alone is no load


def test_the_run_can_stop_at_the_completion_of_the_load() -> None:
    reader = CopilotReader(SKILLS)
    for line in lines("skill.jsonl"):
        reader.feed(line)
        if b'"tool.execution_complete"' in line:
            break
        assert not reader.decided
    assert reader.decided


def test_a_skill_call_for_a_name_not_installed_is_no_load_as_on_every_agent() -> None:
    """A decoy name reads as "not loaded" (it was an ERROR, which no other agent gives)."""
    reading = read(lines("skill-unknown.jsonl"))
    assert reading.reason == (
        "the run completed without a successful skill call for 'billing:refunds'"
    )
    assert any("skill 'refund' failed: Skill not found: refund" in line
               for line in reading.evidence)  # fmt: skip


def test_a_failed_skill_call_for_the_target_is_a_refused_load() -> None:
    stream = [line.replace(b'"refund"', b'"refunds"') for line in lines("skill-unknown.jsonl")]
    reading = read(stream)
    complete = next(i for i, line in enumerate(stream, 1) if b'"tool.execution_complete"' in line)
    assert (reading.outcome, reading.reason) == (
        "error",
        f"Copilot CLI did not load 'refunds' (line {complete}): Skill not found: refund",
    )


def test_a_view_of_the_targets_file_is_noted_but_is_not_a_load() -> None:
    reading = read(lines("view-target.jsonl"))
    assert reading.reason == (
        "the run completed without a successful skill call for 'billing:refunds'"
    )
    assert any("the agent calls view" in line for line in reading.evidence)


def test_an_api_error_and_a_refused_key() -> None:
    error = read(lines("api-error-400.jsonl"), exit_code=1)
    assert error.reason == "API error 400: 400 bad request"
    refused = CopilotReader(SKILLS)
    stream = lines("auth-401.jsonl")
    first = next(i for i, line in enumerate(stream) if b'"model.call_failure"' in line)
    for line in stream[: first + 1]:
        refused.feed(line)
    assert (refused.decided, refused.auth_status) == (True, 401)  # at the first attempt
    assert read(stream, exit_code=1).reason == "the API refused the credentials (HTTP 401)"


def test_no_events_and_a_non_zero_exit_are_errors() -> None:
    assert read([]).reason == "no events: the output is not a Copilot CLI JSON run"
    text = lines("text.jsonl")
    assert read(text, exit_code=3).reason == "copilot exited with code 3"
    assert read(text, exit_code=None).reason == "the run did not finish (no exit code)"
