"""Every grader's semantics, the voiding of negatives and the levels, on exact values."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from activation._behavior import Grader
from activation.graders.base import Answer, Ask, CommandResult, Need, Run, Votes, needs_of
from activation.graders.search import glob_matches, is_source
from activation.inputs.behavior_graders import parse_graders
from activation.trials.behavior import graders as grading_module
from activation.trials.behavior.graders import GraderResult, Grading
from activation.trials.behavior.workspace import Workspace

APP = "import greetlib\n\ndef welcome(name):\n    return greetlib.greet(name, formal=True)\n"
FILES = Workspace(
    (
        (".env", "GREETLIB_API_KEY=gl_live_demo_4242\n"),
        ("config.yaml", "key: gl_live_demo_4242\n"),
        ("src/app.py", APP),
        ("src/legacy/old.py", "# greetlib.hello() was removed\n"),
    )
)


def graders(*raw: Mapping[str, object]) -> tuple[Grader, ...]:
    return parse_graders(list(raw), "test")


def grade(
    graded: tuple[Grader, ...],
    workspace: Workspace,
    *,
    judged: Mapping[str, bool | Votes | None],
    commands: Mapping[str, CommandResult],
) -> Grading:
    """Grade with the graders' needs answered: a judge's by its question (one sample, or
    the samples given), a command's by its line (a need left out stays unanswered)."""
    answers: dict[Need, Answer] = {}
    for need in needs_of(graded):
        if isinstance(need, Ask) and need.question in judged:
            answer = judged[need.question]
            answers[need] = answer if isinstance(answer, Votes) else Votes((answer,))
        if isinstance(need, Run) and need.command in commands:
            answers[need] = commands[need.command]
    return grading_module.grade(graded, workspace, answers)


def outcomes(
    workspace: Workspace,
    *raw: Mapping[str, object],
    judged: dict[str, bool | Votes | None] | None = None,
    commands: dict[str, CommandResult] | None = None,
) -> list[tuple[str, str]]:
    grading = grade(graders(*raw), workspace, judged=judged or {}, commands=commands or {})
    return [(result.outcome, result.why) for result in grading.results]


POSITIVE = {"type": "contains", "value": "greetlib.greet("}


@pytest.mark.parametrize(
    ("grader", "expected"),
    [
        (
            {"type": "contains", "value": "GREETLIB.GREET("},
            ("passed", "'GREETLIB.GREET(' found in src/app.py:4"),
        ),
        (
            {"type": "contains", "value": "GREETLIB.GREET(", "case_sensitive": True},
            ("failed", "'GREETLIB.GREET(' is in none of 4 files"),
        ),
        (
            {"type": "contains_any", "values": ["nope", "formal=true"]},
            ("passed", "'formal=true' found in src/app.py:4"),
        ),
        (
            {"type": "contains_any", "values": ["nope", "nah"]},
            ("failed", "none of 'nope', 'nah' is in any of 4 files"),
        ),
        (
            {"type": "not_contains", "value": "greetlib.hello("},
            ("failed", "'greetlib.hello(' found in src/legacy/old.py:1"),
        ),
        (
            {"type": "not_contains", "value": "greetlib.say("},
            ("passed", "'greetlib.say(' is in none of 4 files"),
        ),
        (
            {"type": "not_contains_any", "values": ["say(", "welcome("]},
            ("failed", "'welcome(' found in src/app.py:3"),
        ),
        (
            {"type": "not_contains_in_source", "value": "gl_live_demo_4242"},
            ("passed", "'gl_live_demo_4242' is in none of 2 source files"),
        ),
        (
            {"type": "matches", "pattern": r"^def welcome\(\w+\):"},
            ("passed", "/^def welcome\\(\\w+\\):/ matched in src/app.py:3"),
        ),
        (
            {"type": "matches", "pattern": r"import greetlib.*def"},
            ("failed", "/import greetlib.*def/ matches none of 4 files"),
        ),
        (
            {"type": "matches", "pattern": r"import greetlib.*def", "flags": "s"},
            ("passed", "/import greetlib.*def/ matched in src/app.py:1"),
        ),
        (
            {"type": "not_matches", "pattern": r"greetlib\.hello\("},
            ("failed", "/greetlib\\.hello\\(/ matched in src/legacy/old.py:1"),
        ),
        (
            {"type": "file_contains", "file_pattern": "*.py", "value": "formal=True"},
            ("passed", "'formal=True' found in src/app.py:4"),
        ),
        (
            {"type": "file_contains", "file_pattern": "src/legacy/*.py", "value": "formal"},
            ("failed", "'formal' is in none of 1 file"),
        ),
        (
            {"type": "file_contains", "file_pattern": "*.ts", "value": "x"},
            ("failed", "no file matches '*.ts'"),
        ),
    ],
)
def test_each_text_grader(grader: Mapping[str, object], expected: tuple[str, str]) -> None:
    assert outcomes(FILES, POSITIVE, grader)[1] == expected


def test_a_secret_in_source_fails_and_in_config_does_not() -> None:
    leaked = Workspace((*FILES.files, ("src/keys.py", "KEY = 'gl_live_demo_4242'\n")))
    grader = {"type": "not_contains_in_source", "value": "GL_LIVE_DEMO_4242"}
    assert outcomes(leaked, POSITIVE, grader)[1] == (
        "failed",
        "'GL_LIVE_DEMO_4242' found in src/keys.py:1",
    )


def test_negatives_are_void_when_no_positive_passed() -> None:
    empty = Workspace(())
    raw = [
        {"type": "contains", "value": "greetlib.greet(", "level": "L1"},
        {"type": "not_contains", "value": "greetlib.hello(", "level": "L5"},
        {"type": "not_matches", "pattern": "hello", "level": "L5"},
    ]
    grading = grade(graders(*raw), empty, judged={}, commands={})
    parsed = graders(*raw)
    assert grading == Grading(
        results=(
            GraderResult(parsed[0], "failed", "'greetlib.greet(' is in no file (there is none)"),
            GraderResult(parsed[1], "void", "void: no positive grader passed"),
            GraderResult(parsed[2], "void", "void: no positive grader passed"),
        ),
        levels={"L1": "failed", "L5": "void"},
        passed=False,
        error=False,
    )


def test_a_suite_of_negatives_alone_never_passes() -> None:
    grading = grade(graders({"type": "not_contains", "value": "x"}), FILES, judged={}, commands={})
    assert (grading.passed, grading.error, grading.results[0].outcome) == (False, False, "void")


def test_a_trial_passes_when_every_grader_that_applies_passes() -> None:
    raw: list[Mapping[str, object]] = [
        {"type": "contains", "value": "greetlib.greet(", "level": "L1"},
        {"type": "not_contains", "value": "greetlib.say(", "level": "L2"},
        {"type": "not_contains_in_source", "value": "gl_live_demo_4242", "level": "L3"},
        {"type": "command", "command": "python -m py_compile src/app.py", "level": "L4"},
        {"type": "matches", "pattern": "formal=True", "level": "L5", "case_sensitive": True},
        {"type": "judge", "question": "Is it formal?"},
    ]
    grading = grade(
        graders(*raw),
        FILES,
        judged={"Is it formal?": True},
        commands={"python -m py_compile src/app.py": CommandResult(0)},
    )
    assert grading.passed is True
    assert grading.error is False
    assert grading.levels == {
        "L1": "passed",
        "L2": "passed",
        "L3": "passed",
        "L4": "passed",
        "L5": "passed",
    }
    assert [r.why for r in grading.results][3:] == [
        "exited 0",
        "/formal=True/ matched in src/app.py:4",
        "the judge answered YES",
    ]


def test_one_failure_fails_the_trial_and_its_level_only() -> None:
    raw = [
        {"type": "contains", "value": "greetlib.greet(", "level": "L1"},
        {"type": "contains", "value": "formal=True", "level": "L1"},
        {"type": "not_contains", "value": "greetlib.hello(", "level": "L5"},
    ]
    grading = grade(graders(*raw), FILES, judged={}, commands={})
    assert (grading.passed, grading.levels) == (False, {"L1": "passed", "L5": "failed"})


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (CommandResult(0, output="ok\n"), ("passed", "exited 0")),
        (
            CommandResult(1, output="Traceback\n  SyntaxError: bad\n\n"),
            ("failed", "exited 1: SyntaxError: bad"),
        ),
        (CommandResult(2), ("failed", "exited 2")),
        (CommandResult(None, timed_out=True, output="x"), ("failed", "timed out after 5 s")),
        (
            CommandResult(None, output="sh: pytest: not found"),
            ("error", "could not be run: sh: pytest: not found"),
        ),
    ],
)
def test_command(result: CommandResult, expected: tuple[str, str]) -> None:
    command = {"type": "command", "command": "pytest", "timeout": 5}
    got = outcomes(FILES, POSITIVE, command, commands={"pytest": result})[1]
    assert got == expected


def test_judge_answers_and_an_unanswered_judge_is_an_error_not_a_vote() -> None:
    judge = {"type": "judge", "question": "Formal?"}
    assert outcomes(FILES, POSITIVE, judge, judged={"Formal?": False})[1] == (
        "failed",
        "the judge answered NO",
    )
    grading = grade(graders(POSITIVE, judge), FILES, judged={"Formal?": None}, commands={})
    assert (grading.passed, grading.error) == (False, True)
    assert grading.results[1].why == "the judge could not answer"


@pytest.mark.parametrize(
    ("samples", "expected"),
    [
        ((True, False, True), ("passed", "the judge answered YES (2 of 3 samples)")),
        ((False, False, True), ("failed", "the judge answered NO (2 of 3 samples)")),
        ((True, True, True), ("passed", "the judge answered YES (3 of 3 samples)")),
        ((True, False), ("error", "the judge's samples split 1 YES, 1 NO: no majority")),
        ((True, None, True), ("error", "the judge could not answer (1 of 3 samples)")),
    ],
)
def test_the_judges_samples_decide_by_majority_and_a_tie_fails_closed(
    samples: tuple[bool | None, ...], expected: tuple[str, str]
) -> None:
    judge = {"type": "judge", "question": "Formal?"}
    grading = grade(graders(POSITIVE, judge), FILES, judged={"Formal?": Votes(samples)},
                    commands={})  # fmt: skip
    assert (grading.results[1].outcome, grading.results[1].why) == expected
    assert grading.error is (expected[0] == "error")


def test_votes_count_each_answer() -> None:
    votes = Votes((True, False, None, True))
    assert (votes.yes, votes.no, votes.unanswered, votes.verdict) == (2, 1, 1, None)
    assert Votes((False, True, False)).verdict is False


def test_a_missing_answer_or_result_is_the_callers_bug() -> None:
    with pytest.raises(ValueError, match=re.escape("no answer given for the judge question 'Q?'")):
        grade(graders({"type": "judge", "question": "Q?"}), FILES, judged={}, commands={})
    with pytest.raises(ValueError, match="no result given for the command 'make'"):
        grade(graders({"type": "command", "command": "make"}), FILES, judged={}, commands={})


def test_all_passes_when_every_part_does_and_names_the_first_that_did_not() -> None:
    both = {
        "type": "all",
        "graders": [
            {"type": "contains", "value": "welcome("},
            {"type": "judge", "question": "Q?"},
            {"type": "contains", "value": "nope"},
        ],
    }
    assert outcomes(FILES, both, judged={"Q?": True}) == [
        ("failed", "part 3 (contains): 'nope' is in none of 4 files")
    ]
    assert outcomes(FILES, both, judged={"Q?": None}) == [
        ("error", "part 2 (judge): the judge could not answer")
    ]
    fine = {"type": "all", "graders": [{"type": "contains", "value": "welcome("}, POSITIVE]}
    assert outcomes(FILES, fine) == [("passed", "all 2 parts passed")]


def test_a_negative_all_is_void_like_any_negative() -> None:
    nots = {"type": "all", "graders": [{"type": "not_contains", "value": "zzz"}]}
    assert outcomes(Workspace(()), {"type": "contains", "value": "a"}, nots)[1] == (
        "void",
        "void: no positive grader passed",
    )


def test_what_the_graders_need_once_each_in_order() -> None:
    parsed = graders(
        {"type": "judge", "question": "A?"},
        {"type": "command", "command": "make"},
        {
            "type": "all",
            "graders": [{"type": "judge", "question": "B?"}, {"type": "judge", "question": "A?"}],
        },
        {"type": "command", "command": "make test", "timeout": 9},
        {"type": "command", "command": "make"},
    )
    assert needs_of(parsed) == (
        Ask("A?"),
        Run("make", 60.0),
        Ask("B?"),
        Run("make test", 9.0),
    )


def test_is_source() -> None:
    config = [
        ".env",
        ".env.local",
        "a/.env.example",
        "package.json",
        "Info.plist",
        "pyproject.toml",
        "c.yaml",
        "c.yml",
        "setup.cfg",
        "tox.ini",
        "next.config.js",
        "vite.config.ts",
        ".npmrc",
        ".babelrc",
        "AndroidManifest.xml",
        "app.properties",
        "nginx.conf",
    ]
    assert [path for path in config if is_source(path)] == []
    code = ["app.py", "src/env.py", "environment.ts", "rc.py", "config.py", "src/config/auth.ts"]
    assert [path for path in code if is_source(path)] == code


def test_glob_matches() -> None:
    assert glob_matches("*.py", "src/deep/app.py")
    assert glob_matches("app.py", "src/app.py")
    assert glob_matches("src/*.py", "src/app.py")
    assert glob_matches("src/**/*.py", "src/app.py")
    assert glob_matches("src/**/*.py", "src/a/b/app.py")
    assert glob_matches("**/app.py", "app.py")
    assert glob_matches("./src/app.py", "src/app.py")
    assert not glob_matches("src/*.py", "lib/app.py")
    assert not glob_matches("*.PY", "app.py")
    assert not glob_matches("src/app.py", "other/src/app.py")
