"""The trajectory graders on crafted trajectories, exact: what each passes and fails on and
why, a turn and a count range, the voiding of the negative ones in a trial where nothing
positive passed, a figure the agent's stream does not give, and bad fields refused."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from activation._behavior import Grader
from activation._errors import InputError
from activation._models import ToolCall, Trajectory
from activation.graders.base import TRACE
from activation.inputs.behavior_graders import parse_graders
from activation.trials.behavior.graders import grade
from activation.trials.behavior.workspace import Workspace

VALIDATE = '{"command":"python .claude/skills/pdf/scripts/validate.py out.pdf"}'
MEASURED = frozenset({"turns", "tool_calls", "seconds"})
DID = Trajectory.joined([
    Trajectory(
        tool_calls=(
            ToolCall("Skill", '{"skill":"pdf"}'),
            ToolCall("Read", '{"file_path":"/tmp/run/plugin/skills/pdf/references/forms.md"}'),
            ToolCall("Bash", VALIDATE),
        ),
        commands=("python .claude/skills/pdf/scripts/validate.py out.pdf",),
        files_read=("/tmp/run/plugin/skills/pdf/references/forms.md", "notes.txt"),
        turns=3,
        measured=MEASURED,
    ),
    Trajectory(
        tool_calls=(ToolCall("Bash", '{"command":"ls"}'),), commands=("ls",), turns=2,
        measured=MEASURED,
    ),
])  # fmt: skip
"""Two prompts: the skill's work after the first, an `ls` after the second."""


def one(raw: Mapping[str, object], did: Trajectory = DID) -> tuple[str, str]:
    (grader,) = parse_graders([raw], "test")
    return grader.check((), {TRACE: did})


@pytest.mark.parametrize(
    ("raw", "checked"),
    [
        ({"type": "tool_used", "name": "Bash"}, ("passed", "Bash called 2 times")),
        ({"type": "tool_used", "name": "Bash", "input": r"validate\.py"},
         ("passed", "Bash called once")),
        ({"type": "tool_used", "name": "Bash", "maxCount": 1},
         ("failed", "Bash called 2 times, more than 1")),
        ({"type": "tool_used", "name": "Bash", "min_count": 3},
         ("failed", "Bash called 2 times, fewer than 3")),
        ({"type": "tool_used", "name": "Bash", "turn": 2},
         ("passed", "Bash called once in turn 2")),
        ({"type": "tool_used", "name": "bash"}, ("failed", "bash called 0 times, fewer than 1")),
        ({"type": "tool_not_used", "name": "WebFetch"}, ("passed", "WebFetch never called")),
        ({"type": "tool_not_used", "name": "Bash", "input": "validate"},
         ("failed", f"Bash called once: {VALIDATE!r}")),
        ({"type": "command_ran", "pattern": r"scripts/validate\.py"},
         ("passed", "ran 'python .claude/skills/pdf/scripts/validate.py out.pdf'")),
        ({"type": "command_ran", "pattern": "pytest"},
         ("failed", "none of the 2 commands it ran matches")),
        ({"type": "command_not_ran", "pattern": r"\brm\b"},
         ("passed", "none of the 2 commands it ran matches")),
        ({"type": "command_not_ran", "pattern": "^ls$"}, ("failed", "ran 'ls'")),
        ({"type": "file_read", "file_pattern": "references/*.md"},
         ("passed", "read '/tmp/run/plugin/skills/pdf/references/forms.md'")),
        ({"type": "file_read", "file_pattern": "./notes.txt"}, ("passed", "read 'notes.txt'")),
        ({"type": "file_read", "file_pattern": "scripts/*.py"},
         ("failed", "none of the 2 files it read matches")),
        ({"type": "max_turns", "max": 5}, ("passed", "5 turns")),
        ({"type": "max_turns", "max": 4}, ("failed", "5 turns, over 4")),
        ({"type": "max_tool_calls", "max": 4}, ("passed", "4 tool calls")),
        ({"type": "max_tool_calls", "max": 3}, ("failed", "4 tool calls, over 3")),
    ],
)  # fmt: skip
def test_each_trajectory_grader_on_what_the_agent_did(
    raw: Mapping[str, object], checked: tuple[str, str]
) -> None:
    assert one(raw) == checked


def test_an_agent_that_did_nothing() -> None:
    nothing = Trajectory(turns=1, measured=frozenset({"turns"}))
    assert one({"type": "command_ran", "pattern": "x"}, nothing) == ("failed", "it ran no command")
    assert one({"type": "file_read", "file_pattern": "*.md"}, nothing) == (
        "failed",
        "it read no file",
    )


def test_turns_the_stream_does_not_give_are_an_error_never_a_pass() -> None:
    unknown = Trajectory(measured=frozenset({"tool_calls", "seconds"}))
    assert one({"type": "max_turns", "max": 100}, unknown) == (
        "error",
        "the agent's stream does not give its turns",
    )


def test_the_negative_ones_are_void_when_nothing_positive_passed() -> None:
    graders: tuple[Grader, ...] = parse_graders(
        [
            {"type": "command_ran", "pattern": "pytest"},
            {"type": "tool_not_used", "name": "WebFetch"},
            {"type": "command_not_ran", "pattern": "rm"},
            {"type": "max_turns", "max": 9},
            {"type": "max_tool_calls", "max": 9},
        ],
        "test",
    )
    grading = grade(graders, Workspace(()), {TRACE: DID})
    assert [result.outcome for result in grading.results] == [
        "failed", "void", "void", "void", "void"
    ]  # fmt: skip
    assert grading.passed is False


def test_a_trajectory_grader_passes_beside_the_file_graders() -> None:
    graders = parse_graders(
        [
            {"type": "contains", "value": "greet"},
            {"type": "command_ran", "pattern": "validate"},
            {"type": "tool_not_used", "name": "WebFetch"},
        ],
        "test",
    )
    grading = grade(graders, Workspace((("app.py", "greet()"),)), {TRACE: DID})
    assert [r.outcome for r in grading.results] == ["passed", "passed", "passed"]
    assert grading.passed is True


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "tool_used", "name": "Bash", "input": "("},
         "grader 1 (tool_used): input /(/ does not compile: missing ), unterminated subpattern "
         "at position 0"),
        ({"type": "tool_used", "name": "Bash", "min_count": 3, "max_count": 2},
         "grader 1 (tool_used): max_count 2 is below min_count 3"),
        ({"type": "tool_used", "name": "Bash", "min_count": 0},
         "grader 1 (tool_used): 'min_count' must be a whole number from 1, got 0 (a count, "
         "from 1)"),
        ({"type": "max_turns"}, "grader 1 (max_turns): missing 'max' (a count, from 1)"),
        ({"type": "max_turns", "max": True}, "grader 1 (max_turns): 'max' must be a whole "
         "number from 1, got True (a count, from 1)"),
        ({"type": "command_ran", "pattern": "["}, "grader 1 (command_ran): pattern /[/ does "
         "not compile: unterminated character set at position 0"),
        ({"type": "file_read"}, "grader 1 (file_read): missing 'file_pattern' (non-empty text)"),
    ],
)  # fmt: skip
def test_bad_fields_are_refused_in_one_line(raw: Mapping[str, object], message: str) -> None:
    with pytest.raises(InputError) as error:
        parse_graders([raw], "test")
    assert str(error.value).endswith(message)


def test_no_trajectory_given_is_the_callers_bug() -> None:
    (grader,) = parse_graders([{"type": "max_tool_calls", "max": 1}], "test")
    with pytest.raises(ValueError, match="no trajectory given for the grader 'at most 1 tool"):
        grader.check((), {})
