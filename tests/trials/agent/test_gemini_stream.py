"""Gemini CLI's detector on the real CLI's lines: tests/fixtures/streams/gemini/ holds the
stdout of the pinned CLI (0.61.0, `-p ... --output-format stream-json`) run against the Gemini
API stand-in with `refunds` and `charts` skills under `.agents/skills`, each case scripted
(the workspace's path rewritten to /tmp/demo/work, the CLI's to /usr/local/lib). Each
capture's reading, what counts as a load, a refused load, and the usage."""

from __future__ import annotations

from pathlib import Path

from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agent.reading import Reading
from activation.trials.agents.gemini.stream import GeminiReader

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams" / "gemini"
SOURCES = Path("/tmp/demo/copy/payments/skills")
TARGET = SkillCopy("billing:refunds", SOURCES / "refunds", "refunds", "1ed1a0429b0d7a77")
SIBLING = SkillCopy("billing:charts", SOURCES / "charts", "charts", "4619868f5a8e9a57")
EXIT_CODES = {"api-error-400.jsonl": 144, "bad-key.jsonl": 144}
SKILLS = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (TARGET, SIBLING))

"""What the CLI exits with when the API fails."""


def lines(name: str) -> list[bytes]:
    return (STREAMS / name).read_bytes().splitlines(keepends=True)


def read(name: str, skills: SkillSet = SKILLS) -> Reading:
    return read_through(GeminiReader(skills), lines(name), EXIT_CODES.get(name, 0))


def test_a_load_is_a_successful_activate_skill_from_the_targets_folder() -> None:
    reading = read("activate.jsonl")
    assert reading.reason == (
        "the agent called activate_skill 'refunds' and the CLI activated the target from its "
        "own folder (line 4)"
    )
    assert reading.model == "gemini-3.1-pro-preview"
    assert (reading.input_tokens, reading.output_tokens, reading.cache_read_tokens) == (40, 20, 0)


def test_a_built_in_of_the_targets_name_is_not_the_target() -> None:
    """A skill named like the target but loaded from elsewhere (the CLI's built-in folder)
    fires under its name, not as the target."""
    builtin = SkillCopy("mine:skill-creator", SOURCES / "skill-creator", "skill-creator", "n")
    skills = SkillSet(SKILLS.root, True, CatalogCopy(), (builtin, SIBLING))
    reading = read("activate-builtin.jsonl", skills)
    assert (reading.outcome, reading.fired) == ("not_activated", ("skill-creator",))


def test_a_refused_load_is_an_error_with_the_clis_reason() -> None:
    reading = read("activate-denied.jsonl")
    assert reading.reason.startswith(
        "Gemini CLI refused the agent's activate_skill 'refunds' (tool_not_registered: Tool "
        '"activate_skill" not found.'
    )
    assert reading.auth_status is None


def test_a_name_the_cli_does_not_list_is_a_failed_load_not_a_refusal() -> None:
    reading = read("activate-unknown.jsonl")
    assert any(
        "activate_skill 'refund' failed (invalid_tool_params): params/name must be equal to "
        "one of the allowed values" in line
        for line in reading.evidence
    )


def test_a_read_of_the_skill_file_is_noted_not_counted() -> None:
    reading = read("read-target.jsonl")
    assert (
        "line 4: the agent reads billing:refunds's SKILL.md with read_file: not a load "
        "(Gemini CLI loads a skill with activate_skill)"
    ) in reading.evidence


def test_a_bad_key_is_refused_credentials_and_an_api_error_is_an_error() -> None:
    bad_key = read("bad-key.jsonl")
    assert bad_key.auth_status == 400
    assert bad_key.reason == "the API refused the credentials (HTTP 400)"
    failed = read("api-error-400.jsonl")
    assert failed.auth_status is None
    assert failed.reason.startswith('the run failed: [API Error: {"error":{"code":400,')


def test_the_run_can_stop_once_the_target_loaded() -> None:
    reader = GeminiReader(SKILLS)
    for line in lines("activate.jsonl")[:3]:
        reader.feed(line)
    before = reader.decided
    reader.feed(lines("activate.jsonl")[3])
    assert (before, reader.decided, reader.saw_result) == (False, True, False)
    assert reader.reading().outcome == "activated"


def test_no_init_or_no_result_is_an_error() -> None:
    assert read_through(GeminiReader(SKILLS), [b"noise\n"]).reason == (
        "no init event: the output is not a Gemini CLI stream-json run"
    )
    head = lines("text.jsonl")[:2]
    assert read_through(GeminiReader(SKILLS), head, 0).reason == (
        "the run ended without a result event"
    )
