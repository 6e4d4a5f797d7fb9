"""The judge's request is plain text over the workspace, and only YES or NO is an answer."""

from __future__ import annotations

import jsonschema

from activation.trials.behavior.judge import (
    JUDGE_SCHEMA,
    JUDGE_SYSTEM,
    judge_request,
    read_verdict,
)
from activation.trials.behavior.workspace import Workspace

FILES = Workspace((("a.py", "print('a')\n"), ("b.py", "b" * 30), ("c.py", "c")))


def test_the_request_holds_question_examples_and_files() -> None:
    system, user = judge_request("Is it formal?", "PASS: greet(formal=True)\nFAIL: hello()", FILES)
    assert system == JUDGE_SYSTEM
    assert user == (
        "Question: Is it formal?\n\n"
        "Examples of how to answer:\nPASS: greet(formal=True)\nFAIL: hello()\n\n"
        "The workspace's files:\n\n"
        "<file path=\"a.py\">\nprint('a')\n\n</file>\n"
        f'<file path="b.py">\n{"b" * 30}\n</file>\n'
        '<file path="c.py">\nc\n</file>'
    )


def test_files_past_the_limit_are_cut_then_named_as_left_out() -> None:
    _, user = judge_request("Q?", None, FILES, max_chars=20)
    assert user == (
        "Question: Q?\n\n"
        "The workspace's files:\n\n"
        "<file path=\"a.py\">\nprint('a')\n\n</file>\n"
        f'<file path="b.py">\n{"b" * 9}\n[cut: 21 more characters]\n</file>\n\n'
        "Left out (over the size limit): c.py"
    )


def test_an_empty_workspace_is_said_so() -> None:
    assert judge_request("Q?", None, Workspace(()))[1] == (
        "Question: Q?\n\nThe workspace has no files."
    )


def test_the_schema_accepts_a_verdict_and_nothing_else() -> None:
    jsonschema.validate({"reasoning": "ok", "verdict": "YES"}, JUDGE_SCHEMA)
    for bad in ({"reasoning": "ok", "verdict": "MAYBE"}, {"verdict": "NO"}):
        assert not jsonschema.Draft202012Validator(JUDGE_SCHEMA).is_valid(bad)


def test_read_verdict() -> None:
    assert read_verdict({"reasoning": "fine", "verdict": "YES"}) is True
    assert read_verdict({"reasoning": "no", "verdict": "NO"}) is False
    assert read_verdict({"verdict": "yes"}) is None
    assert read_verdict({"reasoning": "?"}) is None
    assert read_verdict("It calls greet with formal=True.\nVERDICT: YES") is True
    assert read_verdict("Uses hello().\n**VERDICT: no**\n") is False
    assert read_verdict("VERDICT: YES, but also VERDICT: NO") is False
    assert read_verdict("VERDICT: YES then more words") is None
    assert read_verdict("Yes.") is None
    assert read_verdict(None) is None
