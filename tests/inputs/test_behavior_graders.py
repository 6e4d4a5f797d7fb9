"""Graders are read as the seeds write them, and every mistake is one line naming file and case."""

from __future__ import annotations

import re

import pytest

from activation._behavior import Grader
from activation._config import BEHAVIOR_COMMAND_TIMEOUT
from activation._errors import InputError
from activation.graders.all_of import All
from activation.graders.base import Ask, Run, needs_of
from activation.graders.command import Command
from activation.graders.contains import Contains
from activation.graders.file_contains import FileContains
from activation.graders.judge import Judge
from activation.graders.matches import Matches
from activation.graders.not_contains import NotContains
from activation.graders.not_contains_any import NotContainsAny
from activation.inputs.behavior_graders import parse_graders

EXAMPLES = "PASS: a\nFAIL: b"
NO_VALUE = "grader 1 (contains): missing 'value' (non-empty text)"
WHERE = "cases/flask.json: case 'flask'"


def one(raw: dict[str, object]) -> Grader:
    (grader,) = parse_graders([raw], WHERE)
    return grader


def error_of(data: object) -> str:
    with pytest.raises(InputError) as caught:
        parse_graders(data, WHERE)
    return str(caught.value)


def test_the_seeds_example_graders() -> None:
    graders = parse_graders(
        [
            {"type": "matches", "pattern": "ServerClient", "description": "SDK initialized"},
            {
                "type": "not_contains_any",
                "values": ["Authlib", "python-jose"],
                "description": "no wrong lib",
            },
            {"type": "judge", "question": "Does the code ...?", "examples": EXAMPLES},
        ],
        WHERE,
    )
    assert graders == (
        Matches(description="SDK initialized", pattern="ServerClient"),
        NotContainsAny(description="no wrong lib", values=("Authlib", "python-jose")),
        Judge(description="Does the code ...?", question="Does the code ...?", examples=EXAMPLES),
    )


def test_contains_with_level_and_case_sensitivity_in_both_spellings() -> None:
    snake = {"type": "contains", "value": "Auth0Provider", "level": "L1", "case_sensitive": True}
    camel = {"type": "contains", "value": "Auth0Provider", "level": "L1", "caseSensitive": True}
    expected = Contains(
        description="contains 'Auth0Provider'", level="L1", value="Auth0Provider",
        case_sensitive=True,
    )  # fmt: skip
    assert one(snake) == expected
    assert one(camel) == expected


def test_default_descriptions_say_what_is_checked() -> None:
    assert one({"type": "not_contains", "value": "x"}).description == "not_contains 'x'"
    assert one({"type": "contains_any", "values": ["a", "b"]}).description == (
        "contains_any 'a', 'b'"
    )
    assert one({"type": "not_matches", "pattern": "a+"}).description == "not_matches /a+/"
    assert one({"type": "file_contains", "filePattern": "*.py", "value": "v"}).description == (
        "*.py contains 'v'"
    )
    assert one({"type": "command", "command": "make"}).description == "`make` exits 0"


def test_file_contains_command_and_all() -> None:
    assert one({"type": "file_contains", "file_pattern": "src/*.ts", "value": "auth"}) == (
        FileContains(description="src/*.ts contains 'auth'", value="auth", file_pattern="src/*.ts")
    )
    assert one({"type": "command", "command": "pytest -q", "timeout": 30}) == Command(
        description="`pytest -q` exits 0", command="pytest -q", timeout=30.0
    )
    assert one({"type": "command", "command": "make"}) == Command(
        description="`make` exits 0", command="make", timeout=BEHAVIOR_COMMAND_TIMEOUT
    )
    both = one(
        {
            "type": "all",
            "level": "L4",
            "graders": [{"type": "contains", "value": "a"}, {"type": "not_contains", "value": "b"}],
        }
    )
    assert both == All(
        description="contains 'a' and not_contains 'b'",
        level="L4",
        graders=(
            Contains(description="contains 'a'", value="a"),
            NotContains(description="not_contains 'b'", value="b"),
        ),
    )
    assert [g.type for g in both.walk()] == ["all", "contains", "not_contains"]


def test_negative_graders() -> None:
    negative: dict[str, dict[str, object]] = {
        "not_contains": {"value": "x"},
        "not_contains_any": {"values": ["x"]},
        "not_contains_in_source": {"value": "x"},
        "not_matches": {"pattern": "x"},
    }
    for kind, fields in negative.items():
        assert one({"type": kind, **fields}).negative is True, kind
    assert one({"type": "contains", "value": "x"}).negative is False
    assert one({"type": "judge", "question": "ok?"}).negative is False
    nots = [{"type": "not_contains", "value": "a"}, {"type": "not_matches", "pattern": "b"}]
    assert one({"type": "all", "graders": nots}).negative is True
    mixed = [{"type": "not_contains", "value": "a"}, {"type": "contains", "value": "b"}]
    assert one({"type": "all", "graders": mixed}).negative is False


def regex(raw: dict[str, object]) -> re.Pattern[str]:
    grader = one(raw)
    assert isinstance(grader, Matches)
    return grader.regex()


def test_regex_flags_ignore_case_unless_case_sensitive() -> None:
    assert regex({"type": "matches", "pattern": "a.b"}).flags & re.IGNORECASE
    sensitive = regex({"type": "matches", "pattern": "a.b", "case_sensitive": True})
    assert sensitive.flags & (re.IGNORECASE | re.MULTILINE) == re.MULTILINE
    dotall = regex({"type": "matches", "pattern": "a.b", "flags": "s"})
    assert dotall.search("A\nB") is not None
    assert regex({"type": "matches", "pattern": "a.b"}).search("A\nB") is None


def test_comment_keys_are_ignored_and_a_mapping_with_graders_is_read() -> None:
    data = {"_note": "x", "graders": [{"type": "contains", "value": "a", "_why": "y"}]}
    assert parse_graders(data, WHERE) == (Contains(description="contains 'a'", value="a"),)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"graders": 3}, "the graders must be a list"),
        ([3], "grader 1: must be an object with a 'type'"),
        (
            [{"type": "contains", "value": "a"}, {"type": "includes", "value": "a"}],
            "grader 2 (includes): unknown type 'includes' (known: contains, contains_any, "
            "not_contains, not_contains_any, not_contains_in_source, matches, not_matches, "
            "file_contains, all, command, judge, tool_used, tool_not_used, command_ran, "
            "command_not_ran, file_read, max_turns, max_tool_calls)",
        ),
        ([{"type": "contains"}], NO_VALUE),
        ([{"type": "contains", "value": ""}], NO_VALUE),
        (
            [{"type": "contains", "vlaue": "a"}],
            "grader 1 (contains): unknown key 'vlaue' "
            "(allowed: case_sensitive, description, follows, level, type, value)",
        ),
        (
            [{"type": "contains", "value": "a", "level": "L6"}],
            "grader 1 (contains): level 'L6' is not one of L1, L2, L3, L4, L5 (or null)",
        ),
        (
            [{"type": "contains", "value": "a", "level": 1}],
            "grader 1 (contains): level 1 is not one of L1, L2, L3, L4, L5 (or null)",
        ),
        (
            [{"type": "matches", "pattern": "(unclosed"}],
            "grader 1 (matches): the pattern '(unclosed' is not a valid regular expression "
            "(missing ), unterminated subpattern at position 0)",
        ),
        (
            [{"type": "matches", "pattern": "a", "flags": "iq"}],
            "grader 1 (matches): 'flags' must be letters of 'imsxug', got 'iq'",
        ),
        (
            [{"type": "contains_any", "values": []}],
            "grader 1 (contains_any): missing 'values' (a non-empty list of text)",
        ),
        (
            [{"type": "contains_any", "values": ["a", 2]}],
            "grader 1 (contains_any): every item of 'values' must be non-empty text",
        ),
        (
            [{"type": "contains", "value": "a", "case_sensitive": "yes"}],
            "grader 1 (contains): 'case_sensitive' must be true or false",
        ),
        (
            [{"type": "contains", "value": "a", "case_sensitive": True, "caseSensitive": True}],
            "grader 1 (contains): both 'case_sensitive' and 'caseSensitive' are given: keep one",
        ),
        (
            [{"type": "command", "command": "make", "timeout": 0}],
            "grader 1 (command): 'timeout' must be a positive number of seconds, got 0",
        ),
        ([{"type": "all", "graders": []}], "grader 1 (all): 'graders' must be a non-empty list"),
        (
            [{"type": "all", "graders": [{"type": "contains", "value": "a"}, {"type": "judge"}]}],
            "grader 1.2 (judge): missing 'question' (non-empty text)",
        ),
        (
            [{"type": "judge", "question": "q?", "examples": ["PASS: a"]}],
            "grader 1 (judge): 'examples' must be text (PASS: ... and FAIL: ... lines)",
        ),
        (
            [{"type": "contains", "value": "a", "description": " "}],
            "grader 1 (contains): 'description' must be non-empty text",
        ),
    ],
)
def test_bad_graders_are_one_line_naming_file_case_and_grader(data: object, message: str) -> None:
    assert error_of(data) == f"{WHERE}: {message}"


def test_one_question_with_two_sets_of_examples_is_two_questions() -> None:
    """A judge's answer is keyed by its question and examples, a command's result by its
    line and time limit: the same text twice with different settings is two checks (it was
    refused as ambiguous when answers were keyed by the text alone)."""
    judges = [
        {"type": "judge", "question": "ok?", "examples": "PASS: a"},
        {"type": "judge", "question": "ok?", "examples": "PASS: b"},
    ]
    assert [g.own_needs() for g in parse_graders(judges, WHERE)] == [
        (Ask("ok?", "PASS: a"),),
        (Ask("ok?", "PASS: b"),),
    ]
    commands = [
        {"type": "command", "command": "make"},
        {"type": "all", "graders": [{"type": "command", "command": "make", "timeout": 5}]},
    ]
    assert needs_of(parse_graders(commands, WHERE)) == (
        Run("make", BEHAVIOR_COMMAND_TIMEOUT),
        Run("make", 5.0),
    )
