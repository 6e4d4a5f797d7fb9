"""A behavior case of several prompts (`turns`): read from both case shapes, linted, its
trial's trajectory joined turn by turn and graded by turn; refused in one line on an agent
that cannot resume a session; and end to end through each real pinned CLI that can, its
second prompt sent in the same session (examples/behavior/turns)."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import anyio
import pytest

from activation._behavior import BehaviorCase
from activation._errors import InputError
from activation._models import (
    AgentSettings,
    ErrorClass,
    RunSpec,
    ToolCall,
    Trajectory,
    TrialKey,
    Usage,
)
from activation.commands.main import main
from activation.graders.base import TRACE
from activation.inputs.behavior_cases import parse_case_file
from activation.inputs.behavior_evals import parse_prompt
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.lint import lint_behavior
from activation.trials.agent.backend import NO_SESSION, AgentBackend, Turn, joined
from activation.trials.agent.kit import CliAdapter
from activation.trials.agents import agent_named, known
from tests.support import responses_api
from tests.support.behavior_repo import EXAMPLE
from tests.support.claude_cli import CLAUDE_VERSION
from tests.support.cli import read_report
from tests.support.fake_agent_runs import fake_agent_on_path
from tests.support.real_agents import REAL_AGENTS
from tests.support.second_turn import SECOND, TURNS_EXAMPLE, answers_second, replies_since_second
from tests.support.skill_repo import SkillRepos, commit_all
from tests.trials.agent.test_backend import case, deploy_target, inputs_for
from tests.trials.agents.conftest import agent_cli, real_agent, under_bwrap  # noqa: F401
from tests.trials.agents.test_conformance import CAPTURES, PROVIDER_VARIABLES, asked_sandbox, read

FIRST, THEN = "Write app.py.", "Now test it."
EVAL = TURNS_EXAMPLE / "evals" / "review-banner"
TURN_GRADER = "Read app.py again after the second prompt"


def test_a_case_files_eval_holds_its_turns() -> None:
    data = {"slug": "banner", "evals": [{"prompt": FIRST, "turns": [THEN, "Commit."]},
                                        {"prompt": "Only one."}]}  # fmt: skip
    first, second = parse_case_file(data, "cases/banner.json")
    assert (first.prompts, first.turns, first.unread) == (
        (FIRST, THEN, "Commit."), (THEN, "Commit."), ()
    )  # fmt: skip
    assert (second.prompts, second.turns) == (("Only one.",), ())


@pytest.mark.parametrize("turns", ["Now test it.", ["ok", "  "], ["ok", 3]])
def test_turns_that_are_not_a_list_of_prompts_are_refused_naming_the_case(turns: object) -> None:
    data = {"slug": "banner", "evals": [{"prompt": FIRST, "turns": turns}]}
    with pytest.raises(InputError) as caught:
        parse_case_file(data, "cases/banner.json")
    assert str(caught.value) == (
        "cases/banner.json: case 'banner': 'turns' must be a list of non-empty prompts, sent "
        "after the first in order"
    )


def test_an_eval_folders_frontmatter_holds_its_turns() -> None:
    case = parse_prompt((EVAL / "PROMPT.md").read_text(), "PROMPT.md")
    assert case.id == "review_banner" and case.unread == ()
    assert case.prompts[0].startswith("Our app greets users with the greetlib library")
    assert case.turns == (
        "Read app.py once more and check that welcome_banner() escapes the display name; fix "
        "it if it does not.",
    )
    assert case.turns[0].startswith(SECOND)


def case_with(graders: list[dict[str, object]], turns: tuple[str, ...] = ()) -> BehaviorCase:
    return BehaviorCase("banner", "banner", FIRST, "cases/banner.json",
                        graders=parse_graders(graders, "test"), turns=turns)  # fmt: skip


def test_lint_refuses_a_trajectory_grader_whose_turn_no_prompt_reaches() -> None:
    graders: list[dict[str, object]] = [
        {"type": "file_read", "file_pattern": "app.py", "turn": 3, "level": "L1"},
        {"type": "command_ran", "pattern": "pytest", "turn": 2, "level": "L4"},
        {"type": "judge", "question": "Is app.py written?"},
    ]
    two = [(f.level, f.message) for f in lint_behavior([case_with(graders, (THEN,))])]
    assert two == [
        ("error", "grader 1 (file_read app.py) looks at turn 3, and the case sends 2 prompts: "
                  "it can never pass"),
    ]  # fmt: skip
    one = [(f.level, f.message) for f in lint_behavior([case_with(graders)])]
    assert one == [
        ("error", "grader 1 (file_read app.py) looks at turn 3, and the case sends one prompt: "
                  "it can never pass"),
        ("error", "grader 2 (command_ran /pytest/) looks at turn 2, and the case sends one "
                  "prompt: it can never pass"),
    ]  # fmt: skip


MEASURED = frozenset({"turns", "tool_calls"})
FIRST_TURN = Trajectory((ToolCall("Read", "{}"), ToolCall("Write", "{}")), ("ls",), ("app.py",),
                        ("app.py",), 3, MEASURED)  # fmt: skip
SECOND_TURN = Trajectory((ToolCall("Bash", "{}"),), ("pytest",), (), (), 2, MEASURED | {"seconds"})


def test_the_trajectory_of_two_turns_is_both_end_to_end_and_each_one_by_its_turn() -> None:
    did = Trajectory.joined([FIRST_TURN, SECOND_TURN])
    assert did.tool_calls == (ToolCall("Read", "{}", 1), ToolCall("Write", "{}", 1),
                              ToolCall("Bash", "{}", 2))  # fmt: skip
    assert (did.commands, did.files_read, did.files_written) == (
        ("ls", "pytest"), ("app.py",), ("app.py",)
    )  # fmt: skip
    assert (did.turns, did.measured) == (5, MEASURED)
    assert did.in_turn(1) == FIRST_TURN
    assert did.in_turn(2).tool_calls == (ToolCall("Bash", "{}", 2),)
    assert did.in_turn(2).commands == ("pytest",)
    assert did.in_turn(3) == Trajectory()
    assert Trajectory.joined([FIRST_TURN]) is FIRST_TURN
    assert FIRST_TURN.in_turn(1) is FIRST_TURN and FIRST_TURN.in_turn(2) == Trajectory()
    unknown = Trajectory.joined([FIRST_TURN, Trajectory(turns=None)])
    assert (unknown.turns, unknown.measured) == (None, frozenset())


@pytest.mark.parametrize(
    ("raw", "checked"),
    [
        ({"type": "command_ran", "pattern": "pytest", "turn": 2}, ("passed", "ran 'pytest'")),
        ({"type": "command_ran", "pattern": "pytest", "turn": 1},
         ("failed", "none of the 1 commands it ran matches")),
        ({"type": "file_read", "file_pattern": "app.py", "turn": 2},
         ("failed", "it read no file")),
        ({"type": "tool_used", "name": "Bash", "turn": 2},
         ("passed", "Bash called once in turn 2")),
        ({"type": "tool_not_used", "name": "Bash", "turn": 1},
         ("passed", "Bash never called in turn 1")),
        ({"type": "max_tool_calls", "max": 1, "turn": 2}, ("passed", "1 tool calls")),
        ({"type": "max_turns", "max": 2, "turn": 1}, ("failed", "3 turns, over 2")),
        ({"type": "max_turns", "max": 5}, ("passed", "5 turns")),
    ],
)  # fmt: skip
def test_a_trajectory_grader_with_a_turn_checks_that_turn_alone(
    raw: dict[str, object], checked: tuple[str, str]
) -> None:
    (grader,) = parse_graders([raw], "test")
    assert grader.check((), {TRACE: Trajectory.joined([FIRST_TURN, SECOND_TURN])}) == checked


KEY = TrialKey(case_with([{"type": "judge", "question": "ok?"}], (THEN,)), "candidate", 0)
TARGET = "greetlib:greetlib"


def test_a_trial_of_two_turns_sums_their_usage_and_fires_what_each_fired() -> None:
    first = KEY.fired((TARGET,), TARGET, "loaded", Usage(2, 10, 5, 0.25), "t.jsonl")
    second = KEY.fired((), TARGET, "no load", Usage(1, 4, 1, 0.5), "t.jsonl")
    turns = [Turn(replace(first, trajectory=FIRST_TURN), "session-1"),
             Turn(replace(second, trajectory=SECOND_TURN))]  # fmt: skip
    trial = joined(KEY, TARGET, turns, "t.jsonl")
    assert (trial.activated, trial.chose, trial.error) == (True, (TARGET,), None)
    assert trial.evidence == "turn 1: loaded; turn 2: no load"
    assert trial.usage == Usage(3, 14, 6, 0.75)
    assert trial.trajectory == Trajectory.joined([FIRST_TURN, SECOND_TURN])
    assert trial.transcript == "t.jsonl"


def test_an_agent_whose_resumed_turn_reports_the_sessions_cost_is_not_counted_twice() -> None:
    """Claude Code's second turn says the session's cost so far (0.38 after the first's
    0.25): the trial costs 0.38, its tokens still each turn's, summed."""
    first = KEY.fired((TARGET,), TARGET, "loaded", Usage(2, 10, 5, 0.25), "t.jsonl")
    second = KEY.fired((), TARGET, "no load", Usage(1, 4, 1, 0.38), "t.jsonl")
    trial = joined(KEY, TARGET, [Turn(first, "session-1"), Turn(second)], "t.jsonl", True)
    assert trial.usage == Usage(3, 14, 6, 0.38)
    assert agent_named("claude-code").adapter().session_cost is True
    unknown = KEY.fired((), TARGET, "no load", Usage(1, 4, 1, None), "t.jsonl")
    trial = joined(KEY, TARGET, [Turn(first, "session-1"), Turn(unknown)], "t.jsonl", True)
    assert trial.usage == Usage(3, 14, 6, None)


def test_an_error_in_any_turn_is_the_trials_error_said_with_its_turn() -> None:
    first = KEY.fired((TARGET,), TARGET, "loaded", Usage(2, 10, 5, 0.25), "t.jsonl")
    unnamed = NO_SESSION.format(agent="Claude Code")
    failed = KEY.failed(unnamed, kind=ErrorClass.AGENT_SETUP)
    trial = joined(KEY, TARGET, [Turn(first), Turn(failed)], "t.jsonl")
    assert (trial.activated, trial.is_error, trial.error_class) == (
        None,
        True,
        ErrorClass.AGENT_SETUP,
    )
    assert trial.error == (
        "turn 2: Claude Code's stream named no session, so the case's next prompt cannot "
        "continue it"
    )
    assert trial.usage == Usage(2, 10, 5, 0.25)


@pytest.mark.parametrize("agent", known())
def test_each_agents_stream_names_its_session(agent: str) -> None:
    """Every capture of a run that loaded the skill gives the session its stream named
    first, under the key the agent's reader reads it from (what `resume` continues)."""
    captured = CAPTURES[agent]
    key = captured.reader().SESSION  # type: ignore[attr-defined]
    loaded = [name for name, (outcome, _) in captured.readings.items() if outcome == "activated"]
    assert loaded
    for name in loaded:
        session = read(agent, name).session
        assert session is not None
        raw = (captured.folder / name).read_text()
        first = re.search(rf'"{key}":"([^"]+)"', raw)
        assert first is not None and first.group(1) == session


def test_the_kits_default_is_an_agent_that_cannot_resume_in_one_line() -> None:
    adapter = CliAdapter(agent_named("claude-code"))
    assert adapter.resumes is False
    with pytest.raises(InputError) as caught:
        adapter.resume(cast(Any, None), "session-1", {})
    assert str(caught.value) == (
        "Claude Code cannot continue a session headless, so it cannot send a case's 'turns' "
        "(its prompts after the first): run the case on an agent that can (docs/behavior.md)"
    )


def test_a_case_with_turns_on_an_agent_that_cannot_resume_is_refused_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_agent_on_path(tmp_path / "bin", monkeypatch)
    repo = turns_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    code = main(["behavior", "--agent", "fake", "--baseline", "git:HEAD", "--no-control",
                 "--judge-model", "mock"])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "activation behavior: error: case review_banner: Fake Agent cannot continue a session "
        "headless, so it cannot send a case's 'turns' (its prompts after the first): run the "
        "case on an agent that can (docs/behavior.md)"
    )
    assert not (repo / ".activation" / "runs").exists()


def turns_repo(root: Path) -> Path:
    """The greetlib plugin and the two-prompt case, committed at `root`."""
    root.mkdir(parents=True)
    shutil.copytree(EXAMPLE / "plugins", root / "plugins")
    shutil.copytree(TURNS_EXAMPLE / "evals", root / "evals")
    commit_all(root, "greetlib and a case of two prompts").close()
    return root


def test_a_case_of_two_prompts_runs_its_second_in_the_agents_own_session(
    real_agent: str,  # noqa: F811
    agent_cli: Path,  # noqa: F811
    under_bwrap: None,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One trial per arm (baseline and candidate, no control), in a sandbox (bubblewrap, or
    the one a caller puts in ACTIVATION_SANDBOX: tests/trials/sandbox/test_docker_turns.py),
    each turn a new process of it: the agent does the task, its turn ends, the second prompt
    goes to the same session (the stand-in gets it with the whole first turn before it), the
    agent reads app.py again, and the `turn: 2` grader passes on that read alone. An agent
    that cannot resume refuses the case in one line."""
    row = REAL_AGENTS[real_agent]
    agent = agent_named(real_agent)
    for variable in PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(turns_repo(tmp_path / "repo"))
    reads = reads_app(row)
    script = answers_second(row.at_work.task, reads, row.text)
    report = tmp_path / "behavior.json"
    with row.api(script) as api:
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        code = main([
            "behavior", "--agent", real_agent, f"--{agent.command}", str(agent_cli), *row.model,
            *row.at_work.judge, "--baseline", "git:HEAD", "--timeout", "120", "--json",
            str(report), "--full-record", "--no-control", "--trials", "1", "--max-trials", "1",
            "--no-canary",
        ])  # fmt: skip
        requests = list(api.requests)
    if not agent.adapter().resumes:
        assert (code, report.exists()) == (2, False)
        return
    assert code == 0
    assert read_report(report)["agent"]["sandbox"] == asked_sandbox()
    (entry,) = read_report(report)["cases"]
    assert (entry["id"], entry["status"]) == ("review_banner", "PASS")
    trials = entry["trials"]
    assert [trial["variant"] for trial in trials] == ["baseline", "candidate"]
    for trial in trials:
        grades = {grade["grader"]: (grade["outcome"], grade["why"]) for grade in trial["grades"]}
        assert grades[TURN_GRADER] == ("passed", "read 'app.py'")
        _, second = trial["trajectory"]["parts"]
        assert second["files_read"] == ["app.py"]
        assert [call["turn"] for call in second["tool_calls"]] == [2]
        assert trial["evidence"].startswith("turn 1: ")
        assert "; turn 2: " in trial["evidence"]
    # Each arm's second prompt reached the model in the session of its first: the whole
    # first turn (its task and the answer it wrote) comes before it.
    opened = [r for r in requests if replies_since_second(r) == 0]
    assert len(opened) == 2
    for request in opened:
        body = str(request.body)
        assert "Finish `welcome_banner()` in app.py" in body
        assert "formal=True" in body
    assert sum(1 for r in requests if replies_since_second(r) == 1) == 2


def reads_app(row: Any) -> Any:
    """The agent's own read of app.py: its reply that reads the file instead of loading the
    skill; Codex's is a `cat` (its `instead` patches the file)."""
    if row.api is responses_api.FakeResponsesAPI:
        return lambda _request: responses_api.Shell("cat app.py")
    return row.at_work.instead


class Turned(AgentBackend):
    """A backend whose cases carry `turns` (Stage C's takes them from its cases)."""

    turns: tuple[str, ...] = ()

    def _turns(self, key: TrialKey) -> tuple[str, ...]:
        return self.turns


def test_every_prompt_is_in_the_cache_key_and_one_prompts_key_is_as_before(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    inputs = inputs_for(deploy_target(skill_repo), (case(),))
    spec = RunSpec(stage="B", agent=AgentSettings(3, 60.0, CLAUDE_VERSION))

    def key_of(backend: AgentBackend) -> str:
        async def entered() -> str:
            async with backend:
                return backend.cache_key(TrialKey(inputs.cases[0], "candidate", 0))

        return anyio.run(entered)

    plain = key_of(AgentBackend(spec, inputs, tmp_path / "a"))
    keys: list[str] = []
    for turns in ((), (THEN,), (THEN, "Commit."), ("Commit.", THEN)):
        backend = Turned(spec, inputs, tmp_path / f"t{len(keys)}")
        backend.turns = turns
        keys.append(key_of(backend))
    assert keys[0] == plain
    assert len(set(keys)) == 4
