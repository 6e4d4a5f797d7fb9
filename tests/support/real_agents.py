"""Each agent of the registry as the end-to-end tests drive its real pinned CLI: one row of
`REAL_AGENTS` (which fixture gives the CLI, which stand-in API it talks to and through which
variables, the model flag it runs with, its own way to load the target skill). A test that
runs every agent's CLI reads this table; adding an agent is one row here. Its `at_work` is
how the agent does the bundled behavior example's task (Stage C, tests/support/behavior_repo.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Any, Protocol, Self

from tests.support import behavior_repo, gemini_api, messages_api, responses_api
from tests.support.agent_writes import update_file
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.listing import sent_listing

Script = Callable[[Any], Any]


class StandIn(Protocol):
    """A scripted stand-in API (tests/support/local_server.py), as these tests use it."""

    base_url: str
    answers_canary: bool
    canary_requests: list[object]

    @property
    def requests(self) -> Sequence[Any]: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


@dataclass(frozen=True)
class AtWork:
    """The agent at work on the bundled behavior example (Stage C), at its stand-in."""

    task: Script
    """The model that does the task the way the loaded body teaches, and answers the judge
    and the `llm` arm."""
    load: Any
    """Its reply that loads greetlib."""
    instead: Script
    """What it does instead of loading greetlib, when a run skips the skill."""
    judge: tuple[str, ...]
    """The `--judge-model` flag it runs with (none: the default judge)."""
    judged_by: str
    """The model every judge request names."""
    judge_model: Callable[[Any], str | None]
    """The model a request names if it is the judge's (None: it is not)."""
    version: str
    """The version the report gives its CLI."""
    skills: str | None
    """Where a run installs the skill in the workspace (None: outside it, a plugin copy the
    CLI is pointed at)."""
    tools: frozenset[str]
    """The tools every request of its loop offers (measured with its pinned CLI)."""
    builtin: str | None
    """A skill of its own that even the `none` arm's listing holds."""


GEMINI_KEY = "AIza-test-gemini-SECRET-333"
"""The key Gemini's stand-in asks every request for (the CLI's and the judge's)."""


def messages_judge(request: messages_api.FakeRequest) -> str | None:
    """The model of a judge request at the Messages API (one that asks for a schema)."""
    return request.model if request.schema is not None else None


@dataclass(frozen=True)
class RealAgent:
    fixture: str
    """The pytest fixture that gives the pinned CLI (tests/conftest.py)."""
    api: Callable[..., StandIn]
    """The stand-in it talks to: made with a script and a `latency`."""
    variables: Callable[[str, str], dict[str, str]]
    """The environment that points it at the stand-in (its address, a key)."""
    key: str
    """A key that must never show in an output or transcript."""
    model: tuple[str, ...]
    """The `--model` flag it runs with (none: the agent's default)."""
    load: Callable[[str], Any]
    """The model's reply that loads the `billing` plugin's skill of this name the agent's
    own way."""
    text: Callable[[str], Any]
    """A plain text reply of its stand-in."""
    error: Callable[[str], Any]
    """Its stand-in's HTTP 400 with this message."""
    in_loop: Callable[[Any], bool]
    """Whether a request is of the agent's loop (not a side call such as a title)."""
    system: Callable[[Any], str]
    """The text of a request's instructions, where the agent sends its listing."""
    at_work: AtWork
    """How it does the behavior example's task (Stage C)."""

    def script(self, first_turn: Callable[[Any], str | None]) -> Script:
        """The model of the agent's loop: on its first turn the load of the skill
        `first_turn` names (None: prose; `ERROR`: the API refuses the request), plain text
        everywhere else."""

        def answer(request: Any) -> Any:
            if self.in_loop(request) and request.turn == 0:
                skill = first_turn(request)
                if skill == ERROR:
                    return self.error("scripted bad request")
                if skill is not None:
                    return self.load(skill)
            return self.text("Done.")

        return answer


ERROR = "<the API refuses the request>"


def system_blocks(request: messages_api.FakeRequest) -> str:
    """A Messages API request's system text: its blocks, one after another."""
    system = request.body.get("system") or ""
    return system if isinstance(system, str) else "".join(block["text"] for block in system)


def anthropic(base_url: str, key: str) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": base_url}


REAL_AGENTS: Mapping[str, RealAgent] = {
    "claude-code": RealAgent(
        "claude", messages_api.FakeMessagesAPI,
        lambda url, key: {**anthropic(url, key), "CLAUDE_CODE_MAX_RETRIES": "0"},
        "sk-ant-test-claude-code-SECRET-42", (),
        lambda skill: messages_api.ToolUse("Skill", {"skill": f"billing:{skill}"}),
        messages_api.Text, lambda message: messages_api.Error(400, message=message),
        lambda request: request.is_main_loop, lambda request: sent_listing(request.body)[1],
        AtWork(
            behavior_repo.does_the_task,
            messages_api.ToolUse("Skill", {"skill": behavior_repo.SKILL_ID}),
            lambda request: messages_api.ToolUse(
                "Read", {"file_path": f"{behavior_repo.workdir(request)}/app.py"}
            ),
            (), "claude-haiku-5-5", messages_judge, "2.1.332 (Claude Code)", None,
            frozenset({
                "Agent", "DeferredToolPlaceholder", "Edit", "Glob", "Grep", "ListAgents", "Read",
                "ReportFindings", "ScheduleWakeup", "Skill", "ToolSearch", "Workflow", "Write",
            }),
            None,
        ),
    ),
    "opencode": RealAgent(
        "opencode_cli", messages_api.FakeMessagesAPI, anthropic,
        "sk-ant-test-opencode-SECRET-1", (),
        lambda skill: messages_api.ToolUse("skill", {"name": skill}),
        messages_api.Text, lambda message: messages_api.Error(400, message=message),
        lambda request: "skill" in request.tool_names, system_blocks,
        AtWork(
            behavior_repo.opencode_does_the_task,
            messages_api.ToolUse("skill", {"name": "greetlib"}),
            lambda _request: messages_api.ToolUse("read", {"filePath": "app.py"}),
            (), "claude-haiku-5-5", messages_judge, "1.18.33", ".agents/skills",
            frozenset({"edit", "glob", "grep", "read", "skill", "todowrite", "write"}), None,
        ),
    ),
    "codex": RealAgent(
        "codex_cli", responses_api.FakeResponsesAPI,
        lambda url, key: {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": f"{url}/v1"},
        "sk-test-codex-SECRET-22", (),
        lambda skill: responses_api.Shell(f"cat .agents/skills/{skill}/SKILL.md"),
        responses_api.Text, lambda message: responses_api.Error(400, message=message),
        lambda request: request.is_responses, lambda request: request.listing or "",
        AtWork(
            behavior_repo.codex_does_the_task,
            responses_api.Shell(behavior_repo.CODEX_LOAD),
            lambda _request: responses_api.Patch(
                update_file("app.py", behavior_repo.scaffold("welcome_banner"), behavior_repo.GUESS)
            ),
            ("--judge-model", "openai:gpt-5.4-mini"), "gpt-5.4-mini",
            lambda request: (
                str(request.body.get("model"))
                if (request.body.get("text") or {}).get("format") else None
            ),
            "0.171.0", ".agents/skills", frozenset({
                "exec", "followup_task", "interrupt_agent", "list_agents", "request_user_input",
                "request_user_input_async", "send_message", "send_message_to_user_async",
                "sleep", "spawn_agent", "wait", "wait_agent",
            }),
            None,
        ),
    ),
    "copilot": RealAgent(
        "copilot_cli", messages_api.FakeMessagesAPI,
        lambda url, key: {**anthropic(url, key), "COPILOT_PKG_CACHE_HOME": str(PACKAGE_CACHE)},
        "sk-ant-test-copilot-SECRET-333", ("--model", "anthropic:claude-sonnet-4.6"),
        lambda skill: messages_api.ToolUse("skill", {"skill": skill}),
        messages_api.Text, lambda message: messages_api.Error(400, message=message),
        lambda request: bool(request.tool_names), system_blocks,
        AtWork(
            behavior_repo.copilot_does_the_task,
            messages_api.ToolUse("skill", {"skill": "greetlib"}),
            lambda request: messages_api.ToolUse("view", {
                "path": f"{behavior_repo.workdir(request, behavior_repo.COPILOT_WORKDIR)}/app.py"
            }),
            (), "claude-haiku-5-5", messages_judge, "1.0.102", ".agents/skills",
            frozenset({"create", "edit", "glob", "grep", "skill", "view"}), None,
        ),
    ),
    "gemini": RealAgent(
        "gemini_cli", partial(gemini_api.FakeGeminiAPI, key=GEMINI_KEY),
        lambda url, key: {"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": url},
        GEMINI_KEY, ("--model", "google:gemini-3.1-pro-preview"),
        lambda skill: gemini_api.Call("activate_skill", {"name": skill}),
        gemini_api.Text, lambda message: gemini_api.Error(400, message, "BAD_REQUEST"),
        lambda request: bool(request.tool_names), lambda request: request.system,
        AtWork(
            behavior_repo.gemini_does_the_task,
            gemini_api.Call("activate_skill", {"name": "greetlib"}),
            lambda _request: gemini_api.Call("read_file", {"file_path": "app.py"}),
            ("--judge-model", "google:gemini-3.1-pro-preview"), "gemini-3.1-pro-preview",
            lambda request: request.model if behavior_repo.gemini_judge(request) else None,
            "0.61.0", ".agents/skills",
            frozenset({
                "activate_skill", "enter_plan_mode", "glob", "grep_search", "invoke_agent",
                "list_directory", "read_file", "replace", "update_topic", "write_file",
            }),
            "skill-creator",
        ),
    ),
}  # fmt: skip
