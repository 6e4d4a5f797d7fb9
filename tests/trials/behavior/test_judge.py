"""The judge's request is plain text over the workspace, and only YES or NO is an answer."""

from __future__ import annotations

import anyio
import jsonschema
import orjson

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


def test_the_mock_judge_answers_by_word_overlap_and_says_it_is_the_mock() -> None:
    """`--judge-model mock`: a YES or NO for every question, offline, the same every time."""
    from activation.trials.behavior.judge import ask_judge, judgement
    from activation.trials.providers.mock import MockModel, answer

    files = Workspace((("theme.css", ":root { --accent: oklch(0.7 0.1 250); }\n"),))
    question = "Do the files meet this expectation?\n- theme.css defines an accent colour"

    def verdict(question: str, workspace: Workspace) -> bool | None:
        async def ask() -> bool | None:
            found, _usage = await ask_judge(
                MockModel(), "mock", "mock", question, None, workspace, None
            )
            return found.verdict

        return anyio.run(ask)

    assert verdict(question, files) is True  # theme.css and accent: 2 of 7
    assert verdict("Is there a README with install steps?", files) is False
    assert verdict(question, Workspace(())) is False
    system, user = judge_request(question, "PASS: accent set\nFAIL: none", files)
    message = answer(
        {
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "output_config": {"format": {"type": "json_schema", "schema": JUDGE_SCHEMA}},
        }
    )
    assert judgement(message) is True
    assert orjson.loads(message["content"][0]["text"]) == {
        "reasoning": "mock judge (word overlap, offline): the files hold 2 of the question's "
        "7 content words",
        "verdict": "YES",
    }


def test_a_judge_that_is_the_agents_own_model_is_warned_of_once_per_model() -> None:
    from activation.trials.behavior.judge import own_model_warnings

    said = (
        "the judge claude-haiku-5-5 is the agent's own model (--model anthropic:claude-haiku-5-5)"
        ": it grades its own work; --judge-model another model judges apart from the agent"
    )
    models = ["anthropic:claude-haiku-5-5", None, "anthropic:claude-haiku-5-5", "openai:gpt-5.4"]
    assert own_model_warnings("claude-haiku-5-5", models) == [said]
    assert own_model_warnings("claude-haiku-5-5", [None, "claude-opus-5-5"]) == []
