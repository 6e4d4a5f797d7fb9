"""Codex's detector on the real CLI's lines (tests/fixtures/streams/README.md): each
capture's reading, what counts as a load (a command whose output holds the copy's nonce),
where a run can stop, retries and refused keys, and the usage it reports."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agent.reading import Reading
from activation.trials.agents.codex.stream import CodexReader

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams" / "codex"
SKILLS_ROOT = Path("/tmp/demo/work/.agents/skills")
TARGET = SkillCopy("billing:refunds", SKILLS_ROOT / "refunds", "refunds", "1ed1a0429b0d7a77")
SIBLING = SkillCopy("billing:charts", SKILLS_ROOT / "charts", "charts", "4619868f5a8e9a57")
SKILLS = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (TARGET, SIBLING))


def lines(name: str) -> list[bytes]:
    return (STREAMS / name).read_bytes().splitlines(keepends=True)


def read(stream: list[bytes], skills: SkillSet = SKILLS, exit_code: int | None = 0) -> Reading:
    return read_through(CodexReader(skills), stream, exit_code)


def test_a_load_is_a_command_that_returned_the_copys_nonce() -> None:
    reading = read(lines("shell-cat.jsonl"))
    assert reading.reason == (
        "the agent ran \"/bin/bash -lc 'cat .agents/skills/refunds/SKILL.md'\" and it "
        "returned the target's SKILL.md, nonce included (line 4)"
    )


def test_the_same_path_without_the_copys_nonce_is_not_the_target() -> None:
    other = SkillSet(SKILLS.root, True, CatalogCopy(), (SkillCopy(TARGET.id, TARGET.folder,
                     "refunds", "0000000000000000"), SIBLING))  # fmt: skip
    reading = read(lines("shell-cat.jsonl"), other)
    assert (reading.outcome, reading.fired) == ("not_activated", ())
    assert reading.evidence[0] == (
        "line 4: the agent runs \"/bin/bash -lc 'cat .agents/skills/refunds/SKILL.md'\": no "
        "skill's SKILL.md came back"
    )


def test_a_failed_command_is_noted_and_is_not_a_load() -> None:
    reading = read(lines("shell-missing.jsonl"))
    assert reading.evidence[0] == (
        "line 4: the agent runs \"/bin/bash -lc 'cat .agents/skills/no-such-skill/SKILL.md'\": "
        "failed (status failed, exit code 1)"
    )
    assert reading.reason == (
        "the run completed without a command that returned 'billing:refunds''s SKILL.md"
    )


def test_a_failed_read_of_the_targets_own_file_is_a_refused_load() -> None:
    """The target's SKILL.md is installed where the command looked, so a read of it that
    failed with a message, or that Codex declined, is an error with the reason."""
    failed = read(lines("shell-target-failed.jsonl"))
    assert (failed.outcome, failed.reason) == ("error", (
        "the agent's command reading the target's SKILL.md failed (line 4, exit code 1): "
        "cat: .agents/skills/refunds/SKILL.md: Permission denied"
    ))  # fmt: skip
    declined = read(lines("shell-declined.jsonl"))
    assert (declined.outcome, declined.reason) == ("error", (
        "Codex declined the agent's command reading the target's SKILL.md (line 4): "
        "\"/bin/bash -lc 'cat .agents/skills/refunds/SKILL.md'\""
    ))  # fmt: skip


def search(command: str, output: str, code: int = 1) -> bytes:
    item = {"id": "item_0", "type": "command_execution", "command": command,
            "aggregated_output": output, "exit_code": code, "status": "failed"}  # fmt: skip
    return orjson.dumps({"type": "item.completed", "item": item})


@pytest.mark.parametrize(
    ("command", "output", "outcome"),
    [
        # a search of the file that found nothing prints nothing: no failure
        ("/bin/bash -lc 'grep -n refund .agents/skills/refunds/SKILL.md'", "", "not_activated"),
        # a mistyped path, a user folder, another file: not the target's listed file
        (
            "/bin/bash -lc 'cat skills/refunds/SKILL.md'",
            "cat: skills/...: No such file",
            "not_activated",
        ),
        (
            "cat /root/.agents/skills/refunds/SKILL.md",
            "cat: /root/...: No such file",
            "not_activated",
        ),
        ("cat .agents/skills/refunds/SKILL.mdx", "cat: ...: No such file", "not_activated"),
        # the listed path, relative or under the run's workspace, failing with a message
        ("cat ./.agents/skills/refunds/SKILL.md", "cat: ...: Permission denied", "error"),
        (
            "cat /tmp/r/run-0/work/.agents/skills/refunds/SKILL.md",
            "cat: Input/output error",
            "error",
        ),
        ("cat .agents/skills/charts/SKILL.md", "cat: ...: Permission denied", "not_activated"),
    ],
)
def test_only_a_failure_on_the_targets_listed_path_is_a_refusal(
    command: str, output: str, outcome: str
) -> None:
    stream = [*lines("text.jsonl")[:2], search(command, output), *lines("text.jsonl")[2:]]
    assert read(stream).outcome == outcome


def test_the_run_stops_at_the_command_that_loaded_the_target() -> None:
    reader = CodexReader(SKILLS)
    decided = []
    for line in lines("shell-cat.jsonl"):
        reader.feed(line)
        decided.append(reader.decided)
    assert decided == [False, False, False, True, True, True]


def test_a_sibling_settles_a_routing_case() -> None:
    reader = CodexReader(SKILLS, settled=lambda fired: bool(fired))
    for line in lines("shell-sibling.jsonl")[:4]:
        reader.feed(line)
    assert reader.decided
    assert reader.reading(None).reason == (
        "billing:charts fired, which settles the case, and not 'billing:refunds'"
    )


def test_usage_comes_with_the_end_of_the_turn_only() -> None:
    finished = read(lines("text.jsonl"))
    assert (finished.input_tokens, finished.output_tokens, finished.tokens_known) == (
        15551, 10, True,
    )  # fmt: skip
    assert finished.cost_usd is None  # Codex reports no cost
    stopped = read(lines("shell-cat.jsonl")[:4], exit_code=None)
    assert (stopped.outcome, stopped.tokens_known, stopped.input_tokens) == ("activated", False, 0)


def test_a_failed_turn_is_an_error_with_its_message() -> None:
    reading = read(lines("api-error-400.jsonl"), exit_code=1)
    assert reading.reason == (
        'the turn failed: {"error":{"message":"fake 400","type":"invalid_request_error",'
        '"param":null,"code":null}}'
    )


def test_a_refused_key_is_decided_at_the_first_retry() -> None:
    reader = CodexReader(SKILLS)
    stream = lines("auth-401.jsonl")
    for line in stream[:3]:
        reader.feed(line)
    assert (reader.decided, reader.auth_status) == (True, 401)
    assert reader.reading(None).reason == "the API refused the credentials (HTTP 401)"


def test_throttled_retries_are_counted() -> None:
    calls = []
    reader = CodexReader(SKILLS, on_throttle=lambda: calls.append(1))
    for line in lines("throttled-429.jsonl"):
        reader.feed(line)
    reading = reader.reading(1)
    assert (reading.throttled, len(calls)) == (5, 5)
    assert reading.reason.startswith(
        "the turn failed: exceeded retry limit, last status: 429 Too Many Requests"
    )
    assert not reader.decided


def test_a_run_without_the_end_of_its_turn_is_an_error() -> None:
    reading = read(lines("text.jsonl")[:3], exit_code=None)
    assert (reading.outcome, reading.reason) == (
        "error", "the run ended without a turn.completed event",
    )  # fmt: skip


def test_a_failed_exit_after_a_completed_turn_is_an_error() -> None:
    reading = read(lines("text.jsonl"), exit_code=3)
    assert (reading.outcome, reading.reason) == ("error", "codex exited with code 3")


def test_no_thread_is_an_error() -> None:
    reading = read([b"WARNING: proceeding, even though we could not create PATH aliases\n"])
    assert reading.reason == "no thread.started event: the output is not a Codex JSON run"
    assert reading.skipped_lines == 1


def test_reading_the_bundled_skill_of_the_targets_name_is_not_the_target() -> None:
    """A user's `skill-creator` beside Codex's own: reading the bundled one fires the
    built-in (by the id the listing gives it), never the target."""
    mine = SkillCopy("skill-creator", SKILLS_ROOT / "skill-creator", "skill-creator",
                     "5a5a5a5a5a5a5a5a")  # fmt: skip
    skills = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (mine, SIBLING))
    reading = read(lines("shell-bundled.jsonl"), skills)
    assert (reading.outcome, reading.fired) == ("not_activated", (".system/skill-creator",))
