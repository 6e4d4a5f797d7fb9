"""Each command's typed request: its fields are its flags, it is built in one place, and
`changed` composes its gates' runs from requests, as their own commands would read them."""

from __future__ import annotations

import ast
import re
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from activation.commands.changed import activation_request, behavior_request
from activation.commands.flags import BEHAVIOR, COMMANDS, RUN, switch_given
from activation.commands.requests import (
    REQUESTS,
    BehaviorRequest,
    ChangedRequest,
    RunRequest,
    executable_flags,
    request_for,
    request_of,
)
from activation.inputs.change_plan import GateRun
from activation.inputs.changes import SkillPlace

PACKAGE = Path(__file__).resolve().parents[2] / "activation"
PARSE_STEP = {"commands/flags.py", "commands/config.py"}
"""Where argparse's Namespace may be seen: the parsers and the settings over them."""


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_a_request_has_a_field_for_each_flag_of_its_command_and_no_other(name: str) -> None:
    agents = set(executable_flags().values())
    dests = {flag.dest for flag in COMMANDS[name].flags if not flag.positional}
    expected = (dests - agents) | ({"executables"} if dests & agents else set())
    assert {field.name for field in fields(REQUESTS[name])} == expected


def test_no_function_below_the_parse_step_takes_an_argparse_namespace() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        if where in PARSE_STEP or "Namespace" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found += [
                    f"{where}:{node.name}"
                    for arg in (*node.args.args, *node.args.kwonlyargs)
                    if arg.annotation is not None and "Namespace" in ast.unparse(arg.annotation)
                ]
    assert found == []


@pytest.mark.parametrize(
    ("argv", "given"),
    [
        (["--behavior", "--broken", "b.md"], True),
        (["--broken", "b.md", "--behav"], True),
        (["--trials", "3", "--be"], True),
        (["--only=--behavior"], False),
        (["--suite", "evals", "--", "--behavior"], False),
        (["--trials", "3"], False),
        (["--b"], False),
        (["--record", "--behavior"], True),
    ],
)
def test_a_mode_switch_is_read_as_argparse_reads_it_never_found_in_a_word(
    argv: list[str], given: bool
) -> None:
    modes = (COMMANDS["calibrate"], COMMANDS["calibrate --behavior"])
    assert switch_given("--behavior", modes, argv) is given


def test_a_request_is_the_parsed_flags_with_the_agents_executables_in_one_mapping() -> None:
    args = RUN.parse(["--trials", "4", "--claude", "/opt/claude", "--model", "a,b"])
    request = request_of(RunRequest, vars(args))
    assert (request.trials, request.model, request.baseline) == (4, ("a", "b"), "git:HEAD")
    assert request.executables["claude-code"] == "/opt/claude"
    assert set(request.executables) == set(executable_flags())
    with pytest.raises(FrozenInstanceError):
        request.trials = 5  # type: ignore[misc]


def test_a_missing_or_unknown_value_is_a_programming_error_not_a_request() -> None:
    values = {key: value for key, value in vars(RUN.parse([])).items() if key != "show"}
    with pytest.raises(TypeError, match=r"^RunRequest needs show$"):
        request_of(RunRequest, values)
    with pytest.raises(TypeError, match=r"^BehaviorRequest has no batch, real$"):
        request_for("behavior", BehaviorRequest, real=True, batch=True)


def changed_request(*argv: str) -> ChangedRequest:
    args = COMMANDS["changed"].parse(["--base", "git:main", *argv])
    return request_of(ChangedRequest, vars(args))


GATE = GateRun(
    "behavior", SkillPlace("skills/pdf/SKILL.md", "skills", "pdf"), "skills/pdf/evals", ("pdf",)
)


def test_a_behavior_gate_is_the_request_behaviors_own_command_line_would_make() -> None:
    """What `changed` once wrote out as `activation behavior`'s command line and parsed
    again, now built directly: the same request, value for value."""
    repo = Path("/work/repo")
    args = changed_request(
        "--head", "git:HEAD", "--agent", "codex", "--seed", "7", "--cache-dir", "/tmp/c",
        "--no-cache", "--cache-ttl", "2h", "--max-cost-usd", "1.5", "--fail-on", "weakened",
        "--trials", "9", "--show", "all",
    )  # fmt: skip
    written = BEHAVIOR.parse(
        ["--repo", "/work/repo", "--skill-path", "skills/pdf/SKILL.md", "--suite",
         "/work/repo/skills/pdf/evals", "--baseline", "git:main", "--agent", "codex", "--seed",
         "7", "--candidate", "git:HEAD", "--cache-dir", "/tmp/c", "--no-cache", "--cache-ttl",
         "7200.0s", "--max-cost-usd", "1.5", "--fail-on", "weakened", "--trials", "9"]
    )  # fmt: skip
    built = behavior_request(args, repo, GATE)
    assert built == request_of(BehaviorRequest, vars(written))
    assert (built.trials, built.max_trials, built.show, built.cache_ttl) == (9, 21, "auto", 7200.0)


def test_an_activation_gate_is_the_main_runs_request_on_the_gates_skill_and_cases() -> None:
    args = changed_request("--trials", "5", "--real", "--model", "m1", "--show", "flagged")
    built = activation_request(args, Path("/r"), GATE, ("a", "b"))
    assert isinstance(built, RunRequest)
    assert (built.repo, built.skill_path, built.cases) == (
        Path("/r"), "skills/pdf/SKILL.md", [Path("/r/skills/pdf/evals")]
    )  # fmt: skip
    assert (built.baseline, built.candidate, built.only, built.shard) == (
        "git:main", None, ("a", "b"), None
    )  # fmt: skip
    assert (built.trials, built.real, built.model, built.show) == (5, True, ("m1",), "flagged")
    assert (built.cases_format, built.simulate, built.full_record) == (None, False, False)


SAME_NAME_OTHER_FLAG = {"--json", "--skill", "--behavior", "file", "--cases", "--base"}
"""Names two different flags share (`detect --json` is a switch, `lint --behavior` a path,
`changed --base` a git ref, `sandbox build --base` an image), and `--cases`, whose
per-command meanings differ (a matrix, a skill's, one file to lint)."""


def test_each_flag_is_declared_once_and_its_variants_replace_only_what_differs() -> None:
    source = (PACKAGE / "commands" / "flags.py").read_text(encoding="utf-8")
    names = re.findall(r'(?:Flag|switch)\(\s*"([^"]+)"', source)
    again = sorted({name for name in names if names.count(name) > 1} - SAME_NAME_OTHER_FLAG)
    assert again == []
    assert len(names) == len(set(names)) + 6  # each name in SAME_NAME_OTHER_FLAG twice
