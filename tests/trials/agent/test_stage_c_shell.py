"""Stage C's shell, one setting of the run (`Run.shell`): in a sandbox each agent at work
gets its shell tool, on the host it stays denied, and a case whose graders read the shell
commands is refused on the host in one line naming the sandboxes to use."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._errors import InputError
from activation._models import AgentSettings, RunSpec
from activation.inputs.load import load_behavior_suite
from activation.trials.agent.adapter import Asked
from activation.trials.agents import agent_named
from activation.trials.agents.claude_code import adapter as claude_code
from activation.trials.agents.copilot import adapter as copilot
from activation.trials.agents.gemini import adapter as gemini
from activation.trials.agents.opencode import adapter as opencode
from activation.trials.behavior.stage import check_shell
from tests.trials.agent.test_work_mode import PROMPT, skill_set

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "behavior" / "trajectory"


def test_claude_code_at_work_in_a_sandbox_is_allowed_bash_and_still_denied_the_web() -> None:
    argv = claude_code.build_argv(AgentSettings(max_turns=7), None, "claude", "hi", work=True,
                                  shell=True)  # fmt: skip
    assert argv[argv.index("--allowedTools") + 1] == "Read,Glob,Grep,Skill,Edit(./**),Bash"
    assert argv[argv.index("--disallowedTools") + 1] == "WebFetch,WebSearch"
    looking = claude_code.build_argv(AgentSettings(), None, "claude", "hi", shell=True)
    assert looking == claude_code.build_argv(AgentSettings(), None, "claude", "hi")


def test_opencode_at_work_in_a_sandbox_allows_bash_only_beside_edits() -> None:
    config = opencode.config(AgentSettings(), None, work=True, shell=True)
    assert config["permission"] == {
        "edit": "allow", "bash": "allow", "webfetch": "deny", "websearch": "deny",
        "task": "deny", "external_directory": "deny", "skill": "allow",
    }  # fmt: skip


def test_copilot_at_work_in_a_sandbox_is_offered_its_bash_tool() -> None:
    argv = copilot.build_argv("copilot", "hi", work=True, shell=True)
    assert argv[argv.index("--available-tools") + 1 :] == [
        "skill", "view", "glob", "grep", "create", "edit", "bash"
    ]  # fmt: skip
    host = copilot.build_argv("copilot", "hi", work=True)
    assert "bash" not in host


def test_gemini_at_work_in_a_sandbox_allows_its_shell_and_excludes_the_web() -> None:
    settings = gemini.settings_file(AgentSettings(), work=True, shell=True)
    assert settings["tools"] == {"exclude": ["google_web_search", "web_fetch"]}
    host = gemini.settings_file(AgentSettings(), work=True)
    assert host["tools"] == {"exclude": ["google_web_search", "web_fetch", "run_shell_command"]}
    assert gemini.policy(work=True, shell=True).count('decision = "allow"') == 4
    assert 'toolName = "run_shell_command"' in gemini.policy(work=True, shell=True)
    assert "run_shell_command" not in gemini.policy(work=True)


@pytest.mark.parametrize("agent", ["claude-code", "opencode", "copilot", "gemini"])
def test_a_run_with_the_shell_never_shares_a_request_with_one_without(
    agent: str, tmp_path: Path
) -> None:
    adapter = agent_named(agent).adapter()
    skills = skill_set(tmp_path)
    model = "google:gemini-2.5-flash" if agent == "gemini" else None
    settings = AgentSettings()
    host = adapter.request(Asked(settings, adapter.model(model), PROMPT, skills, work=True))
    boxed = Asked(settings, adapter.model(model), PROMPT, skills, work=True, shell=True)
    assert adapter.request(boxed) != host
    assert adapter.own_shell is False


def test_only_codex_brings_a_shell_sandbox_of_its_own() -> None:
    owners = [a for a in ("claude-code", "opencode", "codex", "copilot", "gemini")
              if agent_named(a).adapter().own_shell]  # fmt: skip
    assert owners == ["codex"]


def cell(agent: str, sandbox: str) -> RunSpec:
    return RunSpec(stage="C", coding_agent=agent, agent=AgentSettings(sandbox=sandbox))


def test_a_case_that_reads_shell_commands_is_refused_on_the_host_naming_the_sandboxes() -> None:
    cases = {case.id: case for case in load_behavior_suite(EXAMPLE / "evals").cases}
    with pytest.raises(InputError) as refused:
        check_shell(cell("claude-code", "host"), tuple(cases.values()))
    assert str(refused.value) == (
        "case run_the_checker: its command_ran grader reads the agent's shell commands, and "
        "Claude Code at work on the host has no shell: pass --sandbox bwrap or --sandbox docker"
    )
    check_shell(cell("claude-code", "host"), (cases["read_the_format"],))
    check_shell(cell("claude-code", "bwrap"), tuple(cases.values()))
    check_shell(cell("opencode", "docker"), tuple(cases.values()))
    check_shell(cell("codex", "host"), tuple(cases.values()))
