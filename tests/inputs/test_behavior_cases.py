"""Both of the seeds' case shapes are read as they are: case files and eval folders."""

from __future__ import annotations

import pytest

from activation._behavior import BehaviorCase, BehaviorSuite
from activation._errors import InputError
from activation.graders.contains import Contains
from activation.graders.judge import Judge
from activation.graders.matches import Matches
from activation.inputs.behavior_cases import parse_case_file
from activation.inputs.behavior_evals import parse_eval, parse_prompt

FLASK = {
    "slug": "flask",
    "origin_skill": "auth0-flask",
    "evals": [
        {"prompt": "Add login to my Flask app", "expectations": ["uses auth0-server-python"]},
        {"prompt": "Protect /admin", "expectations": []},
    ],
    "graders": [{"type": "matches", "pattern": "ServerClient", "description": "SDK initialized"}],
    "scaffold": {"requirements.txt": "flask\n", "./app/main.py": "# TODO\n"},
}


def error_of(call: object, *args: object) -> str:
    assert callable(call)
    with pytest.raises(InputError) as caught:
        call(*args)
    return str(caught.value)


def test_a_case_file_gives_one_case_per_eval() -> None:
    grader = Matches(description="SDK initialized", pattern="ServerClient")
    scaffold = (("app/main.py", "# TODO\n"), ("requirements.txt", "flask\n"))
    assert parse_case_file(FLASK, "cases/flask.json") == (
        BehaviorCase(
            id="flask",
            name="flask",
            prompt="Add login to my Flask app",
            source="cases/flask.json",
            expectations=("uses auth0-server-python",),
            graders=(grader,),
            scaffold=scaffold,
            origin_skill="auth0-flask",
        ),
        BehaviorCase(
            id="flask-2",
            name="flask-2",
            prompt="Protect /admin",
            source="cases/flask.json",
            graders=(grader,),
            scaffold=scaffold,
            origin_skill="auth0-flask",
        ),
    )


def test_a_case_without_graders_is_expectations_only_and_manual() -> None:
    data = {"slug": "branding", "evals": [{"prompt": "Brand the login page"}], "graders": None}
    (case,) = parse_case_file(data, "cases/branding.json")
    assert case.manual is True
    assert case.graders == ()
    assert case.scaffold == ()
    (missing,) = parse_case_file({k: v for k, v in data.items() if k != "graders"}, "b.json")
    assert missing.manual is True
    suite = BehaviorSuite("cases", (case, *parse_case_file(FLASK, "f.json")))
    assert [c.id for c in suite.graded] == ["flask", "flask-2"]


def test_unknown_top_level_keys_of_a_case_file_are_tolerated() -> None:
    (case,) = parse_case_file({**ONE, "slug": "flask", "tags": ["x"]}, "f.json")
    assert case.id == "flask"


ONE = {"slug": "x", "evals": [{"prompt": "p"}]}
NO_SLUG = "'slug' must be text of letters, digits, '.', '_' or '-'"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a case file must be a JSON object with a 'slug'"),
        ({"evals": []}, NO_SLUG),
        ({"slug": "a b", "evals": []}, NO_SLUG),
    ],
)
def test_bad_case_files(data: object, message: str) -> None:
    assert error_of(parse_case_file, data, "f.json") == f"f.json: {message}"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**ONE, "evals": []}, "'x': 'evals' must be a non-empty list of {prompt, expectations}"),
        ({**ONE, "evals": [{"prompt": " "}]}, "'x': the eval's 'prompt' must be non-empty text"),
        (
            {**ONE, "evals": [{"prompt": "p"}, {}]},
            "'x-2': the eval's 'prompt' must be non-empty text",
        ),
        (
            {**ONE, "evals": [{"prompt": "p"}, "q"]},
            "'x-2': each eval must be an object with a 'prompt'",
        ),
        (
            {**ONE, "evals": [{"prompt": "p", "expectations": "e"}]},
            "'x': 'expectations' must be a list of text",
        ),
        ({**ONE, "origin_skill": 3}, "'x': 'origin_skill' must be text"),
        (
            {**ONE, "graders": [{"type": "nope"}]},
            "'x': grader 1 (nope): unknown type 'nope' (known: "
            "contains, contains_any, not_contains, not_contains_any, not_contains_in_source, "
            "matches, not_matches, file_contains, all, command, judge, tool_used, tool_not_used, "
            "command_ran, command_not_ran, file_read, max_turns, max_tool_calls)",
        ),
        ({**ONE, "scaffold": ["a"]}, "'x': 'scaffold' must be an object of {path: content}"),
        (
            {**ONE, "scaffold": {"a.txt": 1}},
            "'x': the scaffold file 'a.txt' must have text content",
        ),
        (
            {**ONE, "scaffold": {"../a.txt": ""}},
            "'x': the scaffold path '../a.txt' leaves the workspace",
        ),
        (
            {**ONE, "scaffold": {"/etc/a": ""}},
            "'x': the scaffold path '/etc/a' leaves the workspace",
        ),
        (
            {**ONE, "scaffold": {"a\\b.txt": ""}},
            "'x': the scaffold path 'a\\\\b.txt' is not a relative POSIX path",
        ),
        (
            {**ONE, "scaffold": {"a.txt": "", "./a.txt": ""}},
            "'x': the scaffold names 'a.txt' twice",
        ),
    ],
)
def test_bad_cases_name_file_and_case(data: object, message: str) -> None:
    assert error_of(parse_case_file, data, "f.json") == f"f.json: case {message}"


PROMPT = """---
id: welcome_banner
name: Welcome banner
skills: greetlib
setup_command: pip install -r requirements.txt
---
# A title for people

## System
You write Python.

## Agent System
Be brief.

## Task
Make welcome() greet formally.

## Requirements
Use greetlib.
"""


def test_a_prompt_md_with_every_section() -> None:
    case = parse_prompt(PROMPT, "evals/welcome/PROMPT.md", "quickstarts")
    assert case.id == "welcome_banner"
    assert case.name == "Welcome banner"
    assert case.category == "quickstarts"
    assert case.skills == ("greetlib",)
    assert case.setup_command == "pip install -r requirements.txt"
    assert case.system == "You write Python."
    assert case.agent_system == "Be brief."
    assert case.prompt == "Make welcome() greet formally.\n\n## Requirements\nUse greetlib."
    assert (case.source, case.graders, case.scaffold) == ("evals/welcome/PROMPT.md", (), ())


def test_without_sections_the_whole_body_is_the_task() -> None:
    text = "---\nid: plain\ncategory: apis\nskills: [a, b]\n---\n\nDo the thing.\n\n## Notes\nok\n"
    case = parse_prompt(text, "P")
    assert (case.prompt, case.system, case.agent_system) == (
        "Do the thing.\n\n## Notes\nok",
        None,
        None,
    )
    assert (case.name, case.category, case.skills, case.setup_command) == (
        "plain",
        "apis",
        ("a", "b"),
        None,
    )


def test_a_heading_inside_a_fenced_block_is_task_text() -> None:
    text = "---\nid: fenced\n---\n## Task\nWrite this:\n```md\n## System\nx\n```\n"
    case = parse_prompt(text, "P")
    assert case.prompt == "Write this:\n```md\n## System\nx\n```"
    assert case.system is None


BAD_ID = "the frontmatter's 'id' must match ^[a-z][a-z0-9_]{0,63}$ (snake_case), got"
EMPTY = "case 'a': the task is empty (write it under '## Task')"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Do it.\n", "no YAML frontmatter (the file must start with '---')"),
        ("---\nname: x\n---\nDo it.\n", f"{BAD_ID} None"),
        ("---\nid: Welcome-Banner\n---\nDo it.\n", f"{BAD_ID} 'Welcome-Banner'"),
        ("---\nid: a\n---\n## System\nx\n", EMPTY),
        ("---\nid: a\n---\n\n", EMPTY),
        (
            "---\nid: a\n---\n## Task\nx\n## task\ny\n",
            "case 'a': the section '## task' appears twice",
        ),
        (
            "---\nid: a\nskills: 3\n---\nx\n",
            "case 'a': the frontmatter's 'skills' must be a name or a list of names",
        ),
        (
            "---\nid: a\nsetup_command: ''\n---\nx\n",
            "case 'a': the frontmatter's 'setup_command' must be non-empty text",
        ),
    ],
)
def test_bad_prompt_files(text: str, message: str) -> None:
    assert error_of(parse_prompt, text, "P") == f"P: {message}"


GRADERS_YAML = b"""
- type: contains
  value: greetlib.greet(
  level: L1
- type: judge
  question: Does welcome() greet formally?
"""


def test_an_eval_folder_is_one_case() -> None:
    scaffold = (("app.py", b"# TODO\n"),)
    case = parse_eval(PROMPT, {"graders.yaml": GRADERS_YAML}, scaffold, "evals/welcome", "q")
    assert case == BehaviorCase(
        id="welcome_banner",
        name="Welcome banner",
        prompt="Make welcome() greet formally.\n\n## Requirements\nUse greetlib.",
        source="evals/welcome",
        graders=(
            Contains(description="contains 'greetlib.greet('", level="L1", value="greetlib.greet("),
            Judge(
                description="Does welcome() greet formally?",
                question="Does welcome() greet formally?",
            ),
        ),
        scaffold=scaffold,
        setup_command="pip install -r requirements.txt",
        system="You write Python.",
        agent_system="Be brief.",
        skills=("greetlib",),
        category="q",
    )
    json_case = parse_eval(
        PROMPT, {"graders.json": b'[{"type": "contains", "value": "x"}]'}, (), "e", None
    )
    assert json_case.graders == (Contains(description="contains 'x'", value="x"),)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"graders.ts": b"export function defineGraders() {}"},
            "a graders.ts cannot be run "
            "here: write the same graders in graders.yaml (or graders.json)",
        ),
        ({}, "no graders.yaml or graders.json beside PROMPT.md"),
        (
            {"graders.json": b"[]", "graders.yaml": b"[]"},
            "both graders.json and graders.yaml are there: keep one",
        ),
        (
            {"graders.json": b"[{"},
            "graders.json cannot be parsed (unexpected end of data: line 1 column 3 (char 2))",
        ),
        (
            {"graders.yml": b"- type: [\n"},
            "graders.yml cannot be parsed (while parsing a flow node)",
        ),
        (
            {"graders.yaml": b"- type: contains\n"},
            "graders.yaml: grader 1 (contains): missing 'value' (non-empty text)",
        ),
    ],
)
def test_bad_graders_files(files: dict[str, bytes], message: str) -> None:
    assert (
        error_of(parse_eval, PROMPT, files, (), "e", None) == f"e: case 'welcome_banner': {message}"
    )


def test_the_scaffold_digest_covers_paths_contents_and_the_setup_command() -> None:
    scaffold: tuple[tuple[str, bytes | str], ...] = (
        ("app.py", "x = 1\n"),
        ("logo.png", b"\x89PNG"),
    )
    setup = "pip install -r requirements.txt"
    case = BehaviorCase("a", "a", "p", "s", scaffold=scaffold, setup_command=setup)
    assert case.scaffold_digest == (
        "901dd2dd2555dc92e06487b73742d6fa77605e97c91232515b3902b31f9d6a43"
    )
    as_bytes = (("logo.png", b"\x89PNG"), ("app.py", b"x = 1\n"))
    same = BehaviorCase("b", "b", "q", "t", scaffold=as_bytes, setup_command=setup)
    assert same.scaffold_digest == case.scaffold_digest
    changed = [
        BehaviorCase("a", "a", "p", "s", scaffold=scaffold),
        BehaviorCase("a", "a", "p", "s", scaffold=(("app.py", "x = 2\n"), scaffold[1])),
        BehaviorCase("a", "a", "p", "s", scaffold=(("main.py", "x = 1\n"), scaffold[1])),
        BehaviorCase("a", "a", "p", "s", scaffold=scaffold, setup_command="make"),
    ]
    assert len({case.scaffold_digest, *(c.scaffold_digest for c in changed)}) == 5


def test_section_headings_are_read_loosely() -> None:
    text = "---\nid: loose\n---\n##  Agent   System ##\nBe brief.\n##\tTASK\nDo it.\n"
    case = parse_prompt(text, "P")
    assert (case.agent_system, case.prompt) == ("Be brief.", "Do it.")
