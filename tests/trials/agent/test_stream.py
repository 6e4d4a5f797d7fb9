"""Stage B detection: real CLI transcripts with their known readings, and one synthetic
stream per rule, plus `activation detect` on files and stdin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.trials.agents.claude_code.stream import (
    MAX_EVIDENCE,
    Reading,
    StreamReader,
    read_stream,
)

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
SKILL = "auth0:auth0"


def read_fixture(name: str, skill: str = SKILL) -> Reading:
    with (STREAMS / name).open("rb") as handle:
        return read_stream(handle, skill)


# --- synthetic events ------------------------------------------------------------------


def init(
    skills: tuple[str, ...] = (SKILL, "dataviz"),
    tools: tuple[str, ...] = ("Task", "Read", "Glob", "Grep", "Skill"),
    plugin_errors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "system",
        "subtype": "init",
        "tools": list(tools),
        "skills": list(skills),
        "plugins": [{"name": "auth0", "path": "/tmp/demo/plugins/auth0"}],
        "claude_code_version": "2.1.332",
    }
    if plugin_errors is not None:
        event["plugin_errors"] = plugin_errors
    return event


def assistant(block: dict[str, Any], parent: str | None = None, msg: str = "msg_1") -> dict:
    return {
        "type": "assistant",
        "message": {
            "id": msg,
            "role": "assistant",
            "content": [block],
            "usage": {"input_tokens": 100, "output_tokens": 7},
        },
        "parent_tool_use_id": parent,
    }


def say(text: str) -> dict[str, Any]:
    return assistant({"type": "text", "text": text})


def call(
    skill: str, use_id: str = "toolu_1", parent: str | None = None, msg: str = "msg_1"
) -> dict[str, Any]:
    block = {"type": "tool_use", "id": use_id, "name": "Skill", "input": {"skill": skill}}
    return assistant(block, parent, msg)


def tool(name: str, tool_input: dict[str, Any], use_id: str = "toolu_9") -> dict[str, Any]:
    return assistant({"type": "tool_use", "id": use_id, "name": name, "input": tool_input})


def ok(use_id: str = "toolu_1", command: str = SKILL, parent: str | None = None) -> dict:
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": use_id,
                    "content": f"Launching skill: {command}",
                }
            ],
        },
        "parent_tool_use_id": parent,
        "tool_use_result": {"success": True, "commandName": command},
    }


def failed(use_id: str = "toolu_1", text: str = "Unknown skill: x") -> dict[str, Any]:
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "content": f"<tool_use_error>{text}</tool_use_error>",
                    "is_error": True,
                    "tool_use_id": use_id,
                }
            ],
        },
        "parent_tool_use_id": None,
        "tool_use_result": f"Error: {text}",
    }


def result(
    is_error: bool = False, subtype: str = "success", num_turns: int = 2, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "num_turns": num_turns,
        "total_cost_usd": 0.25,
        "usage": {"input_tokens": 1000, "output_tokens": 50},
        **extra,
    }


def lines(*events: dict[str, Any]) -> list[str]:
    return [orjson.dumps(event).decode() + "\n" for event in events]


def read(*events: dict[str, Any], skill: str = SKILL, exit_code: int | None = None) -> Reading:
    return read_stream(lines(*events), skill, exit_code)


# --- the real transcripts --------------------------------------------------------------


def test_real_activation_names_the_call_and_result_lines() -> None:
    reading = read_fixture("skill.jsonl")
    assert (
        reading.reason == "the agent called Skill 'auth0:auth0' (line 3) and it succeeded (line 4)"
    )
    assert reading.activated is True
    assert reading.cost_usd == pytest.approx(0.102108)
    assert reading.num_turns == 3


def test_real_subagent_activation_says_so() -> None:
    reading = read_fixture("subagent-skill.jsonl")
    assert reading.reason.startswith("a subagent called Skill 'auth0:auth0'")


def test_real_plugin_load_error_shows_the_plugin_errors() -> None:
    reading = read_fixture("plugin-load-error.jsonl")
    assert reading.activated is None
    assert "never offered" in reading.reason
    assert "init.skills lacks it" in reading.reason
    assert "corrupt manifest file" in reading.reason


def test_real_skill_tool_disabled_is_an_error_not_a_miss() -> None:
    reading = read_fixture("skill-tool-disabled.jsonl")
    assert "init.tools lacks 'Skill'" in reading.reason


def test_real_api_error_keeps_the_result_text() -> None:
    reading = read_fixture("api-error-429.jsonl")
    assert reading.reason.startswith("API error 429: API Error: Request rejected (429)")
    assert any("API retry 1/1 (status 429" in item for item in reading.evidence)


def test_real_max_turns_is_a_valid_miss_even_with_exit_code_1() -> None:
    with (STREAMS / "max-turns.jsonl").open("rb") as handle:
        reading = read_stream(handle, SKILL, exit_code=1)
    assert reading.outcome == "not_activated"
    assert reading.reason.startswith("max turns reached")


def test_real_401_is_a_credentials_error() -> None:
    reading = read_fixture("auth-401-retrying.jsonl")
    assert reading.auth_status == 401
    assert reading.reason == "the API refused the credentials (HTTP 401)"


def test_real_transcript_for_another_skill_id_is_not_activated() -> None:
    # A skill that the init offers but was not called; the same stream read for another id.
    reading = read_fixture("skill.jsonl", skill="dataviz")
    assert reading.outcome == "not_activated"


def test_real_partial_message_stream_events_are_ignored() -> None:
    plain, partial = read_fixture("skill.jsonl"), read_fixture("skill-partial-messages.jsonl")
    assert plain.outcome == partial.outcome == "activated"
    assert partial.events > plain.events


# --- one synthetic stream per rule -----------------------------------------------------


def test_full_id_call_with_success_activates() -> None:
    reading = read(init(), call(SKILL), ok(), say("done"), result())
    assert reading.outcome == "activated"
    assert reading.activated is True


def test_bare_skill_name_counts() -> None:
    assert read(init(), call("auth0"), ok(command="auth0"), result()).outcome == "activated"


def test_leading_slash_is_ignored() -> None:
    assert read(init(), call("/auth0:auth0"), ok(), result()).outcome == "activated"
    assert read(init(), call("/auth0"), ok(command="auth0"), result()).outcome == "activated"


@pytest.mark.parametrize("name", ["Auth0:auth0", "auth0:Auth0", "AUTH0", "Auth0", " auth0"])
def test_names_are_case_and_space_sensitive(name: str) -> None:
    # Even if the CLI had launched something, a differently spelled name is not the target.
    reading = read(init(), call(name), ok(command=name), result())
    assert reading.outcome == "not_activated"


def test_same_bare_name_in_another_plugin_is_not_the_target() -> None:
    assert read(init(), call("other:auth0"), ok(command="other:auth0"), result()).outcome == (
        "not_activated"
    )


def test_bare_name_that_launched_another_plugins_skill_is_not_the_target() -> None:
    reading = read(init(), call("auth0"), ok(command="other:auth0"), result())
    assert reading.outcome == "not_activated"


def test_standalone_skill_id_without_plugin() -> None:
    reading = read(
        init(skills=("deploy",)), call("deploy"), ok(command="deploy"), result(), skill="deploy"
    )
    assert reading.outcome == "activated"


def test_subagent_call_counts() -> None:
    reading = read(
        init(),
        tool("Agent", {"prompt": "use the skill"}, use_id="toolu_agent"),
        call(SKILL, use_id="toolu_sub", parent="toolu_agent", msg="msg_2"),
        ok("toolu_sub", parent="toolu_agent"),
        result(),
    )
    assert reading.outcome == "activated"
    assert reading.reason.startswith("a subagent called")


def test_a_failed_call_of_the_target_is_a_refused_load_an_error() -> None:
    reading = read(init(), call(SKILL), failed(text="Unknown skill: auth0:auth0"), result())
    assert reading.outcome == "error"
    assert reading.reason == (
        "the agent refused to load 'auth0:auth0' (line 3): Unknown skill: auth0:auth0"
    )
    assert any("failed" in item for item in reading.evidence)


def test_result_with_success_false_is_a_refused_load() -> None:
    event = ok()
    event["tool_use_result"] = {"success": False, "commandName": SKILL}
    reading = read(init(), call(SKILL), event, result())
    assert reading.outcome == "error"
    assert reading.reason.startswith("the agent refused to load 'auth0:auth0' (line 3): ")


def test_a_failed_call_of_another_skill_is_not_activation() -> None:
    reading = read(init(), call("dataviz"), failed(text="Unknown skill: dataviz"), result())
    assert reading.outcome == "not_activated"


def test_a_skill_call_the_result_lists_as_denied_is_a_refused_load() -> None:
    denied = {"tool_name": "Skill", "tool_use_id": "toolu_9", "tool_input": {"skill": "auth0"}}
    reading = read(init(), result(permission_denials=[denied]))
    assert reading.outcome == "error"
    assert reading.reason == "the agent denied the permission to load 'auth0'"


def test_a_denied_read_is_no_refused_load() -> None:
    denied = {"tool_name": "Read", "tool_use_id": "toolu_9", "tool_input": {"file_path": "x"}}
    assert read(init(), result(permission_denials=[denied])).outcome == "not_activated"


def test_a_refused_call_then_a_successful_one_is_activation() -> None:
    reading = read(
        init(), call(SKILL), failed(text="Unknown skill: auth0:auth0"),
        call(SKILL, use_id="toolu_2"), ok("toolu_2"), result(),
    )  # fmt: skip
    assert reading.outcome == "activated"


def test_call_without_any_result_is_not_activation() -> None:
    assert read(init(), call(SKILL), say("done"), result()).outcome == "not_activated"


def test_success_for_a_different_tool_use_id_does_not_count() -> None:
    reading = read(init(), call(SKILL, use_id="toolu_1"), ok(use_id="toolu_2"), result())
    assert reading.outcome == "not_activated"


def test_another_skill_succeeding_is_not_activation() -> None:
    reading = read(init(), call("dataviz"), ok(command="dataviz"), result())
    assert reading.outcome == "not_activated"
    assert any("another skill" in item for item in reading.evidence)


def test_read_of_the_skill_file_is_not_activation() -> None:
    reading = read(
        init(),
        tool("Read", {"file_path": "/tmp/p/auth0/skills/auth0/SKILL.md"}),
        say("I used the auth0 skill."),
        result(),
    )
    assert reading.outcome == "not_activated"
    assert any("calls Read" in item for item in reading.evidence)


def test_prose_about_the_skill_is_not_activation() -> None:
    reading = read(init(), say("I'll use the auth0:auth0 skill. Skill auth0 loaded."), result())
    assert reading.outcome == "not_activated"


def test_max_turns_without_a_call_is_not_activated_despite_is_error() -> None:
    reading = read(
        init(),
        tool("Glob", {"pattern": "*"}),
        result(is_error=True, subtype="error_max_turns", num_turns=3),
        exit_code=1,
    )
    assert reading.outcome == "not_activated"
    assert reading.num_turns == 3


def test_max_turns_recognised_by_terminal_reason_too() -> None:
    reading = read(init(), result(is_error=True, subtype="other", terminal_reason="max_turns"))
    assert reading.outcome == "not_activated"


def test_is_error_with_subtype_success_is_an_error() -> None:
    reading = read(
        init(),
        result(is_error=True, api_error_status=500, result="API Error: 500 overloaded"),
        exit_code=1,
    )
    assert reading.outcome == "error"
    assert reading.activated is None
    assert reading.reason == "API error 500: API Error: 500 overloaded"


def test_is_error_without_status_still_errors() -> None:
    reading = read(init(), result(is_error=True, subtype="error_during_execution"))
    assert reading.outcome == "error"
    assert reading.reason.startswith("the run failed")


def test_non_zero_exit_without_max_turns_is_an_error() -> None:
    reading = read(init(), say("hi"), result(), exit_code=1)
    assert reading.outcome == "error"
    assert reading.reason == "claude exited with code 1"


def test_no_result_event_is_an_error() -> None:
    reading = read(init(), say("hi"))
    assert reading.outcome == "error"
    assert reading.reason == "the run ended without a result event"
    assert not reading.saw_result


def test_no_init_event_is_an_error() -> None:
    reading = read(say("hi"), result())
    assert reading.outcome == "error"
    assert "no init event" in reading.reason
    assert not reading.saw_init


def test_init_without_the_skill_is_an_error_with_plugin_errors() -> None:
    errors = [{"plugin": "inline[0]", "type": "generic-error", "message": "bad manifest"}]
    reading = read(init(skills=("dataviz",), plugin_errors=errors), say("hi"), result())
    assert reading.outcome == "error"
    assert "init.skills lacks it" in reading.reason
    assert "plugin errors: bad manifest" in reading.reason


def test_init_without_the_skill_tool_is_an_error() -> None:
    reading = read(init(tools=("Read", "Glob")), say("hi"), result())
    assert reading.outcome == "error"
    assert "init.tools lacks 'Skill'" in reading.reason


def test_init_without_a_skills_list_falls_back_to_slash_commands() -> None:
    event = init()
    event["slash_commands"] = event.pop("skills")
    assert read(event, call(SKILL), ok(), result()).outcome == "activated"
    event["slash_commands"] = ["dataviz"]
    assert read(event, say("hi"), result()).outcome == "error"


def test_init_error_wins_over_a_later_success() -> None:
    reading = read(init(skills=()), call(SKILL), ok(), result())
    assert reading.outcome == "error"


def test_activation_stands_without_result_or_exit_code() -> None:
    # The runner kills the process at the activation: no result, a kill signal's exit code.
    reading = read(init(), call(SKILL), ok(), exit_code=-9)
    assert reading.outcome == "activated"


def test_activation_stands_after_a_later_api_error() -> None:
    reading = read(init(), call(SKILL), ok(), result(is_error=True, api_error_status=529))
    assert reading.outcome == "activated"


def test_auth_failure_during_retries_is_decided_at_once() -> None:
    reader = StreamReader(SKILL)
    reader.feed(lines(init())[0])
    decided_at_init = reader.decided  # a local: mypy would keep `reader.decided` narrowed
    assert not decided_at_init
    retry = {"type": "system", "subtype": "api_retry", "attempt": 1, "error_status": 401}
    reader.feed(lines(retry)[0])
    assert reader.decided
    assert reader.auth_status == 401
    assert reader.reading().reason == "the API refused the credentials (HTTP 401)"


def test_other_retries_do_not_decide() -> None:
    reader = StreamReader(SKILL)
    for line in lines(init(), {"type": "system", "subtype": "api_retry", "error_status": 529}):
        reader.feed(line)
    assert not reader.decided


def test_403_result_is_a_credentials_error() -> None:
    reading = read(init(), result(is_error=True, api_error_status=403, result="forbidden"))
    assert reading.auth_status == 403


# --- incremental reading and early stop ------------------------------------------------


def test_activation_seen_exactly_at_the_successful_tool_result_line() -> None:
    stream = lines(init(), say("I'll use it"), call(SKILL), ok(), say("done"), result())
    reader = StreamReader(SKILL)
    seen_at = []
    for number, line in enumerate(stream, start=1):
        reader.feed(line)
        seen_at.append((number, reader.activation_seen, reader.decided))
    assert seen_at == [
        (1, False, False),
        (2, False, False),
        (3, False, False),  # the call alone is only intent: the CLI may reject it
        (4, True, True),
        (5, True, True),
        (6, True, True),
    ]


def test_real_transcript_activation_seen_at_its_tool_result_line() -> None:
    reader = StreamReader(SKILL)
    text = (STREAMS / "skill-partial-messages.jsonl").read_text().splitlines()
    first = None
    for number, line in enumerate(text, start=1):
        reader.feed(line)
        if reader.activation_seen and first is None:
            first = number
    assert first is not None
    assert '"tool_result"' in text[first - 1]
    assert '"success":true' in text[first - 1]


def test_init_error_is_decided_right_after_the_init_line() -> None:
    reader = StreamReader(SKILL)
    reader.feed(lines(init(skills=()))[0])
    assert reader.decided
    assert not reader.activation_seen


def test_reading_midway_is_available() -> None:
    reader = StreamReader(SKILL)
    for line in lines(init(), say("thinking")):
        reader.feed(line)
    assert reader.reading().reason == "the run ended without a result event"


# --- line handling ---------------------------------------------------------------------


def test_bytes_and_crlf_lines_are_read() -> None:
    stream = [line.replace("\n", "\r\n").encode() for line in lines(init(), call(SKILL), ok())]
    assert read_stream(stream, SKILL).outcome == "activated"


def test_noise_lines_are_skipped_and_counted() -> None:
    stream = ["Warning: something from the runtime\n", "\n", *lines(init(), say("x"), result())]
    reading = read_stream(stream, SKILL)
    assert reading.outcome == "not_activated"
    assert reading.skipped_lines == 1
    assert any("non-JSON line" in item for item in reading.evidence)


def test_a_corrupt_event_line_is_an_error() -> None:
    stream = [*lines(init()), '{"type":"user","message":{"content":[{"type":"tool_re\n']
    stream += lines(result())
    reading = read_stream(stream, SKILL)
    assert reading.outcome == "error"
    assert reading.reason.startswith('line 2 is not valid JSON: {"type":"user"')
    as_bytes = read_stream([line.encode() for line in stream], SKILL)
    assert as_bytes.reason == reading.reason


def test_a_corrupt_line_after_the_activation_does_not_matter() -> None:
    stream = [*lines(init(), call(SKILL), ok()), '{"type": "assist\n']
    assert read_stream(stream, SKILL).outcome == "activated"


def test_json_that_is_not_an_object_is_skipped_as_noise() -> None:
    reading = read_stream(["[1, 2]\n", *lines(init(), result())], SKILL)
    assert reading.skipped_lines == 1  # it cannot have been an event
    assert reading.outcome == "not_activated"


def test_evidence_is_bounded() -> None:
    events = [init()] + [say(f"step {i}") for i in range(200)] + [result()]
    reading = read(*events)
    assert len(reading.evidence) == MAX_EVIDENCE + 1
    assert reading.evidence[-1] == f"(+{202 - MAX_EVIDENCE} more events)"


def test_usage_from_the_result_or_from_messages_when_stopped_early() -> None:
    finished = read(init(), call(SKILL), ok(), result())
    assert (finished.input_tokens, finished.output_tokens, finished.cost_usd) == (1000, 50, 0.25)
    stopped = read(init(), say("a"), call(SKILL, msg="msg_1"), call(SKILL, msg="msg_2"), ok())
    # msg_1 appears twice (one event per content block) and is counted once.
    assert (stopped.input_tokens, stopped.output_tokens, stopped.cost_usd) == (200, 14, None)


def test_reading_as_a_dict() -> None:
    data = read(init(), call(SKILL), ok(), result()).to_dict()
    assert data["reading"] == "activated"
    assert set(data) >= {"reading", "reason", "evidence", "cost_usd", "num_turns"}
    assert isinstance(data["evidence"], list)


@pytest.mark.parametrize(
    ("name", "calls"),
    [("skill.jsonl", 2), ("text.jsonl", 1), ("api-error-429.jsonl", 0), ("max-turns.jsonl", 2)],
)
def test_model_calls_count_distinct_real_responses(name: str, calls: int) -> None:
    lines = (STREAMS / name).read_bytes().splitlines()
    assert read_stream(lines, "auth0:auth0").model_calls == calls


# --- every skill that fired, and when a case is settled --------------------------------


def test_every_successful_skill_call_is_kept_first_first() -> None:
    reading = read(
        init(skills=(SKILL, "dataviz", "auth0:legacy")),
        call("dataviz", use_id="toolu_1"),
        ok("toolu_1", command="dataviz"),
        call("legacy", use_id="toolu_2"),
        ok("toolu_2", command="auth0:legacy"),
        call("nope", use_id="toolu_3"),
        failed("toolu_3", "Unknown skill: nope"),
        call("auth0", use_id="toolu_4"),
        ok("toolu_4", command="auth0:auth0"),
        call("/dataviz", use_id="toolu_5"),
        ok("toolu_5", command="/dataviz"),
        result(),
    )
    assert reading.fired == ("dataviz", "auth0:legacy", SKILL, "dataviz")
    assert reading.outcome == "activated"
    assert reading.to_dict()["fired"] == ["dataviz", "auth0:legacy", SKILL, "dataviz"]


def test_a_run_is_decided_once_what_fired_settles_the_case() -> None:
    stream = lines(
        init(skills=(SKILL, "auth0:legacy")),
        call("auth0:legacy"),
        ok(command="auth0:legacy"),
        call(SKILL, use_id="toolu_2"),
        ok("toolu_2"),
        result(),
    )
    first_decides = StreamReader(SKILL, settled=lambda fired: bool(fired))
    target_decides = StreamReader(SKILL)
    decided = []
    for line in stream:
        first_decides.feed(line)
        target_decides.feed(line)
        decided.append((first_decides.decided, target_decides.decided))
    assert decided == [
        (False, False),
        (False, False),
        (True, False),  # a sibling fired first: a routing case is settled
        (True, False),
        (True, True),  # the target fired: a should_activate case is settled
        (True, True),
    ]


def test_a_run_stopped_where_a_sibling_settled_it_is_a_valid_reading() -> None:
    reader = StreamReader(SKILL, settled=lambda fired: bool(fired))
    for line in lines(init(skills=(SKILL, "auth0:legacy")), call("legacy"),
                      ok(command="auth0:legacy")):  # fmt: skip
        reader.feed(line)
    reading = reader.reading(None)
    assert (reading.outcome, reading.fired) == ("not_activated", ("auth0:legacy",))
    assert reading.reason == "auth0:legacy fired, which settles the case, and not 'auth0:auth0'"
    unsettled = StreamReader(SKILL)
    for line in lines(init(skills=(SKILL, "auth0:legacy")), call("legacy"),
                      ok(command="auth0:legacy")):  # fmt: skip
        unsettled.feed(line)
    assert unsettled.reading(None).outcome == "error"  # no result event: not a vote
