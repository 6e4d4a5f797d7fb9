"""Stage B's runner against the real Claude Code CLI and the local fake Messages API.

The CLI is the real, pinned release (see tests/support/claude_cli.py); only the model is
scripted.
Outside CI these tests skip when the CLI cannot be had; in CI (`CI` set) they fail instead,
so a broken install can never turn the end-to-end check green.

The CLI retries 429/5xx/401 with exponential back-off for minutes (measured on 2.1.332:
0.5 s doubling, ten attempts, `retry-after: 0` not honoured), so the runs here pass
`CLAUDE_CODE_MAX_RETRIES=0` and use errors that fail fast.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from activation._errors import AuthError, InputError
from activation._models import (
    AgentSettings,
    Case,
    ErrorClass,
    Inputs,
    RunSpec,
    Target,
    Trial,
    TrialKey,
    Variant,
    VariantName,
)
from activation.trials.agent.backend import AgentBackend, transcript_path
from activation.trials.agent.env import REDACTED
from activation.trials.agents.claude_code.adapter import ALLOWED_TOOLS, build_argv, check_claude
from activation.trials.engine import execute_async
from tests.support.claude_cli import CLAUDE_VERSION, processes_mentioning
from tests.support.cli import wait_until
from tests.support.messages_api import (
    Error,
    FakeMessagesAPI,
    FakeRequest,
    Reply,
    Script,
    Text,
    ToolUse,
)
from tests.support.skill_repo import SkillRepos

SKILL_ID = "acme-tools:deploy"
SECRET = "sk-ant-test-0123456789abcdef"
BASELINE = "Use when deploying: the app, to prod # or staging."
CANDIDATE = 'Use for "releases" and rollbacks; not for local builds.'
SKILL_MD = f"""---
name: deploy
description: {BASELINE!r}
license: MIT
---
# Deploy helper

BODY-MARKER: run the deploy script.
"""
LEAKY = "leaky-user-skill"


# --- a plugin (not auth0), its copies, a planted user config, and a runner -------------


def deploy_target(skill_repo: SkillRepos) -> Target:
    """The acme-tools plugin's deploy skill, with a notes file beside it, in a git repo."""
    return skill_repo(
        plugin_dir="plugins/acme",
        plugin_name="acme-tools",
        skill_name="deploy",
        text=SKILL_MD,
        files={"plugins/acme/skills/deploy/notes.md": "Deploy notes.\n"},
    ).target


def plant_user_config(home: Path) -> None:
    """A user skill in the real HOME: it must never show up in a measured run."""
    skill = home / ".claude" / "skills" / LEAKY / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"---\nname: {LEAKY}\ndescription: Planted user skill.\n---\nbody\n")
    (home / ".claude" / "settings.json").write_text('{"env": {"LEAK": "1"}}')


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def main_loop(*replies: Reply) -> Script:
    """Script the agent loop by turn (the last reply repeats); side calls get text.

    Keyed on the conversation's own turn count, not on a shared counter, so concurrent runs
    and the CLI's own retries each see the same script.
    """

    def script(request: FakeRequest) -> Reply:
        if not request.is_main_loop:
            return Text("ok")
        return replies[min(request.turn, len(replies) - 1)]

    return script


def case(prompt: str = "Deploy the app to production", case_id: str = "deploy-prod") -> Case:
    return Case(case_id, prompt, True, "the deploy skill covers production deploys")


def inputs_for(target: Target, cases: tuple[Case, ...] = ()) -> Inputs:
    return Inputs(
        target,
        cases or (case(),),
        (),
        Variant("baseline", BASELINE, SKILL_MD, "baseline"),
        Variant("candidate", CANDIDATE, SKILL_MD, "candidate"),
    )


@dataclass
class Harness:
    claude: Path
    target: Target
    transcripts: Path
    systemp: Path
    home: Path
    entered: AgentBackend | None = None
    unanswered: int = 0
    """Requests the stand-in was still holding when the last run's trial came back."""

    @property
    def copies(self) -> dict[VariantName, Path]:
        """The plugin copies of the backend now running."""
        assert self.entered is not None
        return dict(self.entered.copies.sets)

    def parent_env(self, api: FakeMessagesAPI, **extra: str) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "ANTHROPIC_API_KEY": SECRET,
            "ANTHROPIC_BASE_URL": api.base_url,
            "CLAUDE_CODE_MAX_RETRIES": "0",
            **extra,
        }

    def spec(self, *, timeout: float = 60.0, max_turns: int = 3) -> RunSpec:
        return RunSpec(
            stage="B",
            agent=AgentSettings(max_turns, timeout, executables={"claude-code": str(self.claude)}),
        )

    def backend(
        self, api: FakeMessagesAPI, *, timeout: float = 60.0, max_turns: int = 3
    ) -> AgentBackend:
        self.entered = AgentBackend(
            self.spec(timeout=timeout, max_turns=max_turns),
            inputs_for(self.target),
            self.transcripts,
            env=self.parent_env(api),
        )
        return self.entered

    def run(
        self,
        script: Any,
        *,
        prompt: str = "Deploy the app to production",
        variant: VariantName = "candidate",
        timeout: float = 60.0,
        max_turns: int = 3,
        latency: float = 0.0,
    ) -> tuple[Trial, list[FakeRequest]]:
        with FakeMessagesAPI(script, latency=latency) as api:
            backend = self.backend(api, timeout=timeout, max_turns=max_turns)

            async def one() -> Trial:
                async with backend:
                    return await backend.run(TrialKey(case(prompt), variant, 0))

            trial = anyio.run(one)
            requests = api.message_requests
            self.unanswered = api.in_flight
        self.assert_clean()
        return trial, requests

    def assert_clean(self) -> None:
        """No copy or run dir left in the temp folder, no process still holding one."""
        assert list(self.systemp.iterdir()) == []
        assert processes_mentioning(str(self.systemp)) == []

    def events(self, trial: Trial) -> list[dict[str, Any]]:
        assert trial.transcript is not None
        return [orjson.loads(line) for line in Path(trial.transcript).read_bytes().splitlines()]


@pytest.fixture
def harness(
    claude: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Harness]:
    systemp = tmp_path / "systemp"
    systemp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systemp))
    target = deploy_target(skill_repo)
    home = tmp_path / "real-home"
    plant_user_config(home)
    repo_before = snapshot(target.repo)
    yield Harness(claude, target, tmp_path / "transcripts", systemp, home)
    assert list(systemp.iterdir()) == []  # copies and run dirs all gone
    assert snapshot(target.repo) == repo_before  # the user's working tree is untouched


# --- end to end with the real CLI ------------------------------------------------------


def test_skill_call_activates_and_stops_early(harness: Harness) -> None:
    script = main_loop(
        ToolUse("Skill", {"skill": SKILL_ID}, text="I'll use the deploy skill."),
        Text("AFTER-THE-SKILL: this turn should never be reached."),
    )
    trial, _ = harness.run(script)
    assert trial.activated is True, trial.error
    assert trial.error is None
    assert "stopped early" in trial.evidence
    assert trial.usage.requests == 1
    events = harness.events(trial)
    assert events[0]["subtype"] == "init"
    assert not any(event["type"] == "result" for event in events)  # killed before the end
    assert events[-1]["tool_use_result"] == {"success": True, "commandName": SKILL_ID}
    assert b"AFTER-THE-SKILL" not in Path(str(trial.transcript)).read_bytes()
    assert trial.transcript == str(harness.transcripts / "deploy-prod" / "candidate-0.jsonl")


def test_bare_skill_name_activates(harness: Harness) -> None:
    trial, _ = harness.run(main_loop(ToolUse("Skill", {"skill": "deploy"}), Text("done")))
    assert trial.activated is True, trial.error


def test_prose_only_is_not_activated(harness: Harness) -> None:
    trial, _ = harness.run(main_loop(Text(f"I would use the {SKILL_ID} skill for this.")))
    assert trial.activated is False, trial.error
    assert trial.error is None
    assert "completed without a successful Skill call" in trial.evidence
    assert harness.events(trial)[-1]["type"] == "result"
    assert trial.usage.cost_usd is not None
    assert trial.usage.cost_usd > 0  # the CLI's total_cost_usd


def test_read_of_the_skill_file_is_not_activated(harness: Harness) -> None:
    def script(request: FakeRequest) -> Reply:
        if not request.is_main_loop or request.turn > 0:
            return Text("I used the skill.")
        skill_file = harness.copies["candidate"] / "skills" / "deploy" / "SKILL.md"
        return ToolUse("Read", {"file_path": str(skill_file)})

    trial, requests = harness.run(script)
    assert trial.activated is False, trial.error
    assert len(requests) == 2
    assert any(
        block.get("name") == "Read"
        for event in harness.events(trial)
        if event["type"] == "assistant"
        for block in event["message"]["content"]
    )


def test_another_skills_name_is_not_activated(harness: Harness) -> None:
    script = main_loop(ToolUse("Skill", {"skill": "other-plugin:deploy"}), Text("done"))
    trial, _ = harness.run(script)
    assert trial.activated is False, trial.error


def test_wrong_case_name_is_not_activated(harness: Harness) -> None:
    script = main_loop(ToolUse("Skill", {"skill": "Acme-Tools:deploy"}), Text("done"))
    trial, _ = harness.run(script)
    assert trial.activated is False, trial.error


def test_max_turns_without_a_call_is_not_activated(harness: Harness) -> None:
    trial, _ = harness.run(main_loop(ToolUse("Glob", {"pattern": "**/*"})), max_turns=1)
    assert trial.activated is False, trial.error
    assert "max turns" in trial.evidence


@pytest.mark.parametrize(
    ("status", "says"),
    [(400, "API Error: 400"), (429, "API Error: Request rejected (429)"), (500, "API Error: 500")],
)
def test_api_error_is_an_error_not_a_miss(harness: Harness, status: int, says: str) -> None:
    """An API failing after the CLI's retries is the model's error, whatever its status."""
    trial, _ = harness.run(main_loop(Error(status, message=f"fake failure {SECRET}")))
    assert trial.activated is None
    assert trial.error_class is ErrorClass.MODEL
    assert trial.error is not None
    assert trial.error.startswith(f"API error {status}: {says}")
    assert "exit code 1" in trial.error
    assert SECRET not in trial.error
    assert REDACTED in trial.error  # the echoed key was scrubbed
    assert SECRET.encode() not in Path(str(trial.transcript)).read_bytes()


def test_refused_credentials_abort_the_run(harness: Harness) -> None:
    """The CLI retries a 401 ten times over about three minutes; the run stops at the first
    retry the stream shows, so the stand-in sees the first request and at most one retry."""
    with FakeMessagesAPI(main_loop(Error(401))) as api:
        backend = harness.backend(api)

        async def one() -> Trial:
            async with backend:
                return await backend.run(TrialKey(case(), "candidate", 0))

        with pytest.raises(AuthError, match="HTTP 401"):
            anyio.run(one)
        assert 1 <= len(api.message_requests) <= 2
    harness.assert_clean()


def test_time_out_kills_the_run(harness: Harness) -> None:
    """The stand-in holds its answer for 30 s; the trial comes back at the 3 s time-out with
    the request still unanswered, and the process is gone (`assert_clean`)."""
    trial, requests = harness.run(main_loop(Text("too late")), timeout=3, latency=30)
    assert harness.unanswered == 1
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.startswith("time budget: timed out after 3s")
    assert trial.error_class is ErrorClass.BUDGET
    assert len(requests) >= 1


def test_cancellation_kills_the_process_and_removes_dirs(harness: Harness) -> None:
    def wait_for_a_request(api: FakeMessagesAPI) -> None:
        """The fake records a request before its latency: then the CLI is up and waiting."""
        wait_until(lambda: bool(api.message_requests), 30, "the CLI's first request")

    async def main(api: FakeMessagesAPI) -> None:
        async with harness.backend(api) as backend, anyio.create_task_group() as group:
            group.start_soon(backend.run, TrialKey(case(), "baseline", 0))
            await anyio.to_thread.run_sync(wait_for_a_request, api)
            assert processes_mentioning(str(harness.copies["baseline"]))
            group.cancel_scope.cancel()

    with FakeMessagesAPI(main_loop(Text("never")), latency=30) as api:
        anyio.run(main, api)
    harness.assert_clean()


def test_a_cli_killed_by_a_signal_is_an_infrastructure_error(harness: Harness) -> None:
    """Something else (the machine, a lost worker) SIGKILLs the CLI while the stand-in holds
    its answer: the trial is an infrastructure error (retried by the run), not the agent's."""

    async def main(api: FakeMessagesAPI) -> Trial:
        async with harness.backend(api) as backend, anyio.create_task_group() as group:
            trials: list[Trial] = []

            async def one() -> None:
                trials.append(await backend.run(TrialKey(case(), "baseline", 0)))

            group.start_soon(one)
            await anyio.to_thread.run_sync(
                lambda: wait_until(lambda: bool(api.message_requests), 30, "a request")
            )
            for pid in processes_mentioning(str(harness.copies["baseline"])):
                os.kill(pid, signal.SIGKILL)
        return trials[0]

    with FakeMessagesAPI(main_loop(Text("never")), latency=30) as api:
        trial = anyio.run(main, api)
    harness.assert_clean()
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.endswith("(exit code -9)")
    assert trial.error_class is ErrorClass.INFRASTRUCTURE


def test_user_config_and_plugins_do_not_leak(harness: Harness, claude: Path) -> None:
    # Control: the planted skill is real, the CLI does load it from that HOME.
    with FakeMessagesAPI(main_loop(Text("hi"))) as api:
        env = harness.parent_env(api, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        completed = subprocess.run(
            [str(claude), "-p", "--output-format", "stream-json", "--verbose", "--", "hi"],
            cwd=harness.systemp,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
    control = orjson.loads(completed.stdout.splitlines()[0])
    assert LEAKY in control["skills"]

    trial, requests = harness.run(main_loop(Text("hi")))
    init = harness.events(trial)[0]
    assert LEAKY not in init["skills"]
    assert SKILL_ID in init["skills"]
    assert [p["name"] for p in init["plugins"] if p["path"] != "builtin"] == ["acme-tools"]
    assert init["mcp_servers"] == []
    assert not init["cwd"].startswith(str(harness.target.repo))
    assert requests[0].headers["x-api-key"] == SECRET  # credentials pass through


def test_prompt_reaches_the_model_verbatim(harness: Harness) -> None:
    prompt = '--deploy: "now" $HOME `whoami` ; rm -rf x\nsecond line -p'
    trial, requests = harness.run(main_loop(Text("ok")), prompt=prompt)
    assert trial.activated is False, trial.error
    assert requests[0].prompt == prompt


def test_each_variant_shows_the_agent_its_own_description(harness: Harness) -> None:
    seen = {}
    for variant in ("baseline", "candidate"):
        trial, requests = harness.run(main_loop(Text("ok")), variant=variant)
        assert trial.error is None, trial.error
        seen[variant] = requests[0].menu[SKILL_ID]
    assert seen == {"baseline": BASELINE, "candidate": CANDIDATE}


def test_concurrent_trials_are_isolated(harness: Harness) -> None:
    with FakeMessagesAPI(main_loop(ToolUse("Skill", {"skill": SKILL_ID}), Text("done"))) as api:
        backend = harness.backend(api)
        spec = RunSpec(stage="B", trials=2, concurrency=4, agent=backend.settings)
        outcome = anyio.run(execute_async, spec, inputs_for(harness.target), backend)
        assert api.max_in_flight >= 1
    assert [trial.activated for trial in outcome.trials] == [True] * 4
    assert len({trial.transcript for trial in outcome.trials}) == 4
    harness.assert_clean()


def test_check_claude_reports_the_version(claude: Path) -> None:
    assert check_claude(str(claude)).startswith(CLAUDE_VERSION)


# --- without the CLI -------------------------------------------------------------------


def test_check_claude_accepts_a_relative_path(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").symlink_to(claude)
    monkeypatch.chdir(tmp_path / "bin")
    assert check_claude("./claude").startswith(CLAUDE_VERSION)


def test_check_claude_missing_names_the_package() -> None:
    with pytest.raises(InputError, match=r"@anthropic-ai/claude-code@2\.1\.332"):
        check_claude("/nonexistent/claude")


def test_check_claude_failing_executable(tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(InputError, match=r"exit 3: broken.*npm install"):
        check_claude(str(fake))


def test_missing_executable_is_an_error_trial(tmp_path: Path, skill_repo: SkillRepos) -> None:
    target = deploy_target(skill_repo)
    spec = RunSpec(
        stage="B", agent=AgentSettings(executables={"claude-code": str(tmp_path / "no-claude")})
    )
    backend = AgentBackend(spec, inputs_for(target), tmp_path / "t", env={})

    async def one() -> Trial:
        async with backend:
            return await backend.run(TrialKey(case(), "baseline", 0))

    trial = anyio.run(one)
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.startswith("could not run claude")
    assert trial.error_class is ErrorClass.AGENT_SETUP


def test_the_cache_key_changes_with_every_part_of_the_run(
    tmp_path: Path, skill_repo: SkillRepos
) -> None:
    """Stage B's key: the CLI version, the plugin copy's content, the command line, the
    sandbox and the trial. An A/A run's two sides share a plugin's content but never a key."""
    target = deploy_target(skill_repo)

    def keys(
        *, version: str = CLAUDE_VERSION, model: str | None = None, max_turns: int = 3,
        candidate: str = CANDIDATE, prompt: str = "Deploy the app to production",
        sandbox: str = "host",
    ) -> dict[tuple[VariantName, int], str]:  # fmt: skip
        agent = AgentSettings(max_turns, 60.0, version, sandbox=sandbox)
        inputs = replace(
            inputs_for(target, (case(prompt),)),
            candidate=Variant("candidate", candidate, SKILL_MD, "candidate"),
        )
        backend = AgentBackend(RunSpec(stage="B", model=model, agent=agent), inputs, tmp_path)

        async def all_keys() -> dict[tuple[VariantName, int], str]:
            async with backend:
                return {
                    (variant, index): backend.cache_key(TrialKey(inputs.cases[0], variant, index))
                    for variant in ("baseline", "candidate")
                    for index in (0, 1)
                }

        return anyio.run(all_keys)

    reference = keys()
    assert reference == keys()  # stable, wherever the copies live
    assert len(set(reference.values())) == 4  # every trial its own sample
    changed = [
        keys(version="2.1.333"),
        keys(model="claude-haiku-4-5"),
        keys(max_turns=4),
        keys(prompt="Ship it"),
        keys(sandbox="bwrap"),  # what the agent could read differs
    ]
    for other in changed:
        assert set(other.values()).isdisjoint(reference.values())
    same_description = keys(candidate=BASELINE)
    assert same_description["baseline", 0] == reference["baseline", 0]
    a_a = same_description["candidate", 0]
    assert a_a not in {reference["candidate", 0], reference["baseline", 0]}


def test_argv_shape(tmp_path: Path) -> None:
    settings = AgentSettings(max_turns=5)
    argv = build_argv(settings, "m-1", "/bin/claude", "-x prompt", [tmp_path / "copy"])
    assert argv == [
        "/bin/claude",
        "-p",
        "--plugin-dir",
        str(tmp_path / "copy"),
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        "5",
        "--no-session-persistence",
        "--permission-mode",
        "dontAsk",
        "--allowedTools",
        ALLOWED_TOOLS,
        "--model",
        "m-1",
        "--",
        "-x prompt",
    ]
    assert "--bare" not in argv
    several = build_argv(settings, None, "claude", "p", [tmp_path / "a", tmp_path / "b"])
    assert several[:6] == ["claude", "-p", "--plugin-dir", str(tmp_path / "a"), "--plugin-dir",
                           str(tmp_path / "b")]  # fmt: skip
    assert build_argv(settings, None, "claude", "p")[:3] == ["claude", "-p", "--output-format"]


def test_transcript_path_is_safe(tmp_path: Path) -> None:
    key = TrialKey(case(case_id="../weird id/x"), "baseline", 2)
    path = transcript_path(tmp_path, key)
    assert path.parent.parent == tmp_path
    assert path.name == "baseline-2.jsonl"
    assert "/" not in path.parent.name


def test_transcripts_of_ids_that_read_alike_when_made_safe_do_not_collide(
    tmp_path: Path,
) -> None:
    paths = {
        transcript_path(tmp_path, TrialKey(case(case_id=case_id), "baseline", 0))
        for case_id in ("x/y", "x_y", "x y")
    }
    assert len(paths) == 3
    plain = transcript_path(tmp_path, TrialKey(case(case_id="kw-passkeys"), "candidate", 1))
    assert plain == tmp_path / "kw-passkeys" / "candidate-1.jsonl"


# --- a set of several skills, a skills folder, the catalog: what the real CLI lists -----

ROLLBACK_MD = "---\nname: rollback\ndescription: Roll a bad deploy back.\n---\nRollback body\n"


def run_inputs(
    harness: Harness, inputs: Inputs, script: Script, key: TrialKey
) -> tuple[Trial, FakeRequest]:
    """One trial of `inputs` through a fresh backend; the trial and the CLI's first request."""
    with FakeMessagesAPI(script) as api:
        backend = AgentBackend(
            harness.spec(), inputs, harness.transcripts, env=harness.parent_env(api)
        )

        async def one() -> Trial:
            async with backend:
                return await backend.run(key)

        trial = anyio.run(one)
        first = api.message_requests[0]
    harness.assert_clean()
    return trial, first


def test_a_sibling_that_fires_first_is_where_the_prompt_went(
    harness: Harness, skill_repo: SkillRepos, tmp_path: Path
) -> None:
    from activation.inputs.load import load_inputs

    made = skill_repo(
        root=tmp_path / "routing",
        plugin_dir="plugins/acme",
        plugin_name="acme-tools",
        skill_name="deploy",
        text=SKILL_MD,
        files={"plugins/acme/skills/rollback/SKILL.md": ROLLBACK_MD},
    )
    made.write("plugins/acme/skills/rollback/SKILL.md", ROLLBACK_MD.replace("Roll", "Undo"))
    cases = tmp_path / "cases.json"
    cases.write_text(orjson.dumps([{"id": "undo", "prompt": "Undo the release", "why": "its",
                                    "expect": "rollback"}]).decode())  # fmt: skip
    inputs = load_inputs(made.root, repo=made.root, skill_path=made.skill_path, cases=cases)
    (routed,) = inputs.cases
    assert routed.expect == ("acme-tools:rollback",)
    script = main_loop(ToolUse("Skill", {"skill": "acme-tools:rollback"}), Text("DONE-MARKER"))

    sides: tuple[tuple[VariantName, str], ...] = (
        ("baseline", "Roll a bad"),
        ("candidate", "Undo a bad"),
    )
    for variant, listed in sides:
        trial, first = run_inputs(harness, inputs, script, TrialKey(routed, variant, 0))
        assert (trial.chose, trial.activated, trial.correct) == (
            ("acme-tools:rollback",), False, True,
        ), trial.error  # fmt: skip
        assert "stopped early" in trial.evidence  # the first skill that fired decides
        assert first.menu["acme-tools:rollback"] == f"{listed} deploy back."
        assert first.menu["acme-tools:deploy"] == BASELINE


def test_a_skills_folder_is_installed_as_the_workspaces_project_skills(
    harness: Harness, tmp_path: Path
) -> None:
    repo = tmp_path / "standalone"
    for name, description in (("notes", "Take meeting notes."), ("todo", "Keep a todo list.")):
        (repo / ".claude" / "skills" / name).mkdir(parents=True)
        text = f"---\ndescription: {description}\n---\n{name} body\n"
        (repo / ".claude" / "skills" / name / "SKILL.md").write_text(text)
    from activation.inputs.load import load_inputs

    cases = tmp_path / "cases.json"
    cases.write_text('[{"id": "n", "prompt": "Note this", "should_activate": true, "why": "w"}]')
    inputs = load_inputs(
        repo,
        repo=repo,
        skill_path=".claude/skills/notes/SKILL.md",
        cases=cases,
        baseline=".claude/skills/notes/SKILL.md",
    )
    assert inputs.target.skill_id == "notes"
    before = snapshot(repo)
    trial, first = run_inputs(
        harness,
        inputs,
        main_loop(ToolUse("Skill", {"skill": "notes"}), Text("done")),
        TrialKey(inputs.cases[0], "candidate", 0),
    )
    assert (trial.activated, trial.chose, trial.correct) == (True, ("notes",), True), trial.error
    assert first.menu["notes"] == "Take meeting notes."
    assert first.menu["todo"] == "Keep a todo list."
    assert LEAKY not in first.menu
    assert snapshot(repo) == before


def test_the_catalog_is_installed_for_the_agent_to_list(harness: Harness, tmp_path: Path) -> None:
    from activation.inputs.load import load_catalog

    catalog = tmp_path / "catalog"
    for relative, text in {
        "mine/SKILL.md": "---\ndescription: My own widget skill.\n---\n",
        "shop/.claude-plugin/plugin.json": '{"name": "shop"}',
        "shop/skills/cart/SKILL.md": "---\ndescription: Fill a shopping cart.\n---\n",
    }.items():
        (catalog / relative).parent.mkdir(parents=True, exist_ok=True)
        (catalog / relative).write_text(text)
    inputs = replace(inputs_for(harness.target), catalog=load_catalog(catalog))
    before = snapshot(catalog)
    trial, first = run_inputs(
        harness, inputs, main_loop(Text("nothing fits")), TrialKey(case(), "baseline", 0)
    )
    assert (trial.activated, trial.chose) == (False, ()), trial.error
    assert first.menu["mine"] == "My own widget skill."
    assert first.menu["shop:cart"] == "Fill a shopping cart."
    assert first.menu[SKILL_ID] == BASELINE
    assert snapshot(catalog) == before
