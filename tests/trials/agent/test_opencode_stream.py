"""OpenCode's detector on the real CLI's lines (tests/fixtures/streams/README.md): each
capture's reading, what counts as a load (the skill tool's output with the copy's nonce),
where a run can stop, and the usage it reports."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agent.reading import Reading
from activation.trials.agents.opencode.stream import OpenCodeReader

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams" / "opencode"
SKILLS_ROOT = Path("/tmp/demo/work/.agents/skills")
TARGET = SkillCopy("billing:refunds", SKILLS_ROOT / "refunds", "refunds", "1ed1a0429b0d7a77")
SIBLING = SkillCopy("billing:charts", SKILLS_ROOT / "charts", "charts", "4619868f5a8e9a57")
SKILLS = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (TARGET, SIBLING))


def lines(name: str) -> list[bytes]:
    return (STREAMS / name).read_bytes().splitlines(keepends=True)


def read(stream: list[bytes], skills: SkillSet = SKILLS, exit_code: int | None = 0) -> Reading:
    return read_through(OpenCodeReader(skills), stream, exit_code)


def test_a_refused_load_of_the_target_is_an_error_with_opencodes_reason() -> None:
    """`ask` (which `opencode run` rejects by itself) and `deny` both end the target's
    skill call in `status: error`; the reason is OpenCode's own."""
    rejected = read(lines("skill-rejected.jsonl"))
    assert rejected.reason == (
        "OpenCode refused to load 'refunds' (line 2, status error): The user rejected "
        "permission to use this specific tool call."
    )
    denied = read(lines("skill-denied.jsonl"))
    assert denied.reason.startswith(
        "OpenCode refused to load 'refunds' (line 2, status error): The user has specified a "
        "rule which prevents you from using this specific tool call."
    )
    assert (rejected.activated, denied.activated) == (None, None)


def test_a_refusal_of_another_skill_is_not_an_error() -> None:
    """Only the target's refused load voids the trial: the same refusal for the sibling is
    a call that did not load it."""
    charts_measured = SkillSet(SKILLS.root, True, CatalogCopy(), (SIBLING, TARGET))
    reading = read(lines("skill-denied.jsonl"), charts_measured)
    assert (reading.outcome, reading.fired) == ("not_activated", ())
    assert reading.reason == (
        "the run completed without a successful skill call for 'billing:charts'"
    )


def test_a_load_is_the_skill_call_that_returned_the_copys_nonce() -> None:
    reading = read(lines("skill.jsonl"))
    assert reading.reason == (
        "the agent called skill 'refunds' and it returned the target's SKILL.md, nonce "
        "included (line 2)"
    )
    assert reading.activated is True


def test_the_same_name_without_the_copys_nonce_is_not_the_target() -> None:
    """A completed skill call whose output is some other file of that name (not this run's
    copy) loaded something, but not the measured copy."""
    other = SkillSet(SKILLS.root, True, CatalogCopy(), (SkillCopy(TARGET.id, TARGET.folder,
                     "refunds", "0000000000000000"), SIBLING))  # fmt: skip
    reading = read(lines("skill.jsonl"), other)
    assert (reading.outcome, reading.fired) == ("not_activated", ())
    assert "line 2: skill 'refunds' completed, but its output lacks billing:refunds's nonce" in (
        reading.evidence
    )


def test_a_read_of_the_targets_file_is_noted_but_is_not_a_load() -> None:
    reading = read(lines("read-target.jsonl"))
    assert (
        reading.reason == "the run completed without a successful skill call for 'billing:refunds'"
    )
    path = SKILLS_ROOT / "refunds" / "SKILL.md"
    assert reading.evidence[0].startswith(f"line 2: the agent calls read {{'filePath': '{path}'}}")


def test_a_failed_call_is_noted_with_the_clis_error() -> None:
    reading = read(lines("skill-unknown.jsonl"))
    assert reading.evidence[0] == (
        "line 2: skill 'no-such-skill' failed: Skill \"no-such-skill\" not found. Available "
        "skills: charts, customize-opencode, refunds"
    )


def test_the_run_stops_once_the_loading_step_has_finished() -> None:
    """The skill tool's line decides the case, but the run stops at the `step_finish` right
    after it, so that step's tokens and cost are counted."""
    reader = OpenCodeReader(SKILLS)
    decided = []
    for line in lines("skill.jsonl"):
        reader.feed(line)
        decided.append(reader.decided)
    assert decided == [False, False, True, True, True, True]
    stopped = reader.reading(None)
    assert stopped.outcome == "activated"


def test_usage_is_the_sum_of_the_steps() -> None:
    reading = read(lines("skill.jsonl"))
    assert (reading.model_calls, reading.num_turns) == (2, 2)
    assert (reading.input_tokens, reading.output_tokens) == (0, 35)
    assert (reading.cache_write_tokens, reading.cache_read_tokens) == (8984, 0)
    assert reading.cost_usd == pytest.approx(0.01691625 + 0.01729875)
    assert read(lines("api-error-400.jsonl"), exit_code=1).cost_usd is None


def test_a_sibling_settles_a_routing_case() -> None:
    reader = OpenCodeReader(SKILLS, settled=lambda fired: bool(fired))
    for line in lines("skill-sibling.jsonl")[:3]:
        reader.feed(line)
    assert reader.decided
    reading = reader.reading(None)
    assert (reading.outcome, reading.reason) == (
        "not_activated",
        "billing:charts fired, which settles the case, and not 'billing:refunds'",
    )


def test_an_api_error_is_an_error_with_its_status_and_message() -> None:
    reading = read(lines("api-error-400.jsonl"), exit_code=1)
    assert reading.reason == "API error 400: fake failure"
    assert reading.auth_status is None


def test_refused_credentials_decide_the_run_at_once() -> None:
    reader = OpenCodeReader(SKILLS)
    (line,) = lines("auth-401.jsonl")
    reader.feed(line)
    assert (reader.decided, reader.auth_status) == (True, 401)
    assert reader.reading(1).reason == "the API refused the credentials (HTTP 401)"


def test_a_failed_exit_without_an_error_event_is_an_error() -> None:
    reading = read(lines("text.jsonl"), exit_code=2)
    assert (reading.outcome, reading.reason) == ("error", "opencode exited with code 2")


def test_no_events_is_an_error() -> None:
    reading = read([b"Warning: something from the runtime\n"])
    assert (reading.outcome, reading.skipped_lines) == ("error", 1)
    assert reading.reason == "no events: the output is not an OpenCode JSON run"


def test_a_corrupt_line_is_an_error_unless_the_load_came_first() -> None:
    text = lines("text.jsonl")
    corrupt = [*text[:1], text[1][:60] + b"\n", *text[2:]]
    reading = read(corrupt)
    assert reading.outcome == "error"
    assert reading.reason.startswith("line 2 is not valid JSON: ")
    assert read([*lines("skill.jsonl")[:2], b'{"type":"step_fin\n']).outcome == "activated"


def test_the_transcript_is_the_cli_s_own_json() -> None:
    events = [orjson.loads(line) for line in lines("skill.jsonl")]
    assert [event["type"] for event in events] == [
        "step_start", "tool_use", "step_finish", "step_start", "text", "step_finish",
    ]  # fmt: skip
    assert events[1]["part"]["state"]["output"].startswith(
        '<skill_content name="refunds">\n# Skill: refunds\n\n'
        "<!-- activation nonce: 1ed1a0429b0d7a77 -->\n# Refunds\n"
    )
