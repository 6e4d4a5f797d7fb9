"""A positive grader that passes before the agent writes anything is a lint error."""

from __future__ import annotations

from activation._behavior import BehaviorCase
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.lint import Finding
from activation.trials.behavior.scaffold_lint import scaffold_findings

SCAFFOLD = (
    ("app.py", b"import greetlib\n\ndef welcome(name):\n    # TODO\n    pass\n"),
    ("requirements.txt", "greetlib>=2\n"),
    ("poetry.lock", "greetlib.greet(\n"),
)


def test_a_grader_passing_on_the_scaffold_is_an_error_naming_it() -> None:
    graders = parse_graders(
        [
            {"type": "contains", "value": "import greetlib", "level": "L1"},
            {"type": "contains", "value": "greetlib.greet(", "level": "L1"},
            {"type": "not_contains", "value": "greetlib.hello(", "level": "L5"},
            {
                "type": "file_contains",
                "file_pattern": "requirements*.txt",
                "value": "greetlib",
                "level": "L5",
            },
            {
                "type": "all",
                "level": "L4",
                "graders": [
                    {"type": "contains", "value": "def welcome"},
                    {"type": "judge", "question": "Q?"},
                ],
            },
            {"type": "command", "command": "true", "level": "L4"},
            {"type": "judge", "question": "Right?"},
        ],
        "s",
    )
    case = BehaviorCase("welcome", "w", "p", "s", graders=graders, scaffold=SCAFFOLD)
    assert scaffold_findings([case]) == [
        Finding(
            "error",
            "welcome",
            "grader 1 (contains 'import greetlib') passes on the scaffold alone ('import "
            "greetlib' found in app.py:1): it cannot tell the agent's work from the starting "
            "files",
        ),
        Finding(
            "error",
            "welcome",
            "grader 4 (requirements*.txt contains 'greetlib') passes on the scaffold alone "
            "('greetlib' found in requirements.txt:1): it cannot tell the agent's work from "
            "the starting files",
        ),
    ]


def test_a_case_without_scaffold_or_graders_has_nothing_to_report() -> None:
    graders = parse_graders([{"type": "contains", "value": "x", "level": "L1"}], "s")
    assert scaffold_findings([BehaviorCase("a", "a", "p", "s", graders=graders)]) == []
    assert scaffold_findings([BehaviorCase("m", "m", "p", "s", scaffold=SCAFFOLD)]) == []
