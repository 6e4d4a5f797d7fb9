"""Each agent of the registry as the end-to-end tests drive its real pinned CLI: one row of
`REAL_AGENTS` (which fixture gives the CLI, which stand-in API it talks to and through which
variables, the model flag it runs with, its own way to load the target skill). A test that
runs every agent's CLI reads this table; adding an agent is one row here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self

from tests.support import gemini_api, messages_api, responses_api
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.listing import sent_listing

Script = Callable[[Any], Any]


class StandIn(Protocol):
    """A scripted stand-in API (tests/support/local_server.py), as these tests use it."""

    base_url: str

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
    ),
    "opencode": RealAgent(
        "opencode_cli", messages_api.FakeMessagesAPI, anthropic,
        "sk-ant-test-opencode-SECRET-1", (),
        lambda skill: messages_api.ToolUse("skill", {"name": skill}),
        messages_api.Text, lambda message: messages_api.Error(400, message=message),
        lambda request: "skill" in request.tool_names, system_blocks,
    ),
    "codex": RealAgent(
        "codex_cli", responses_api.FakeResponsesAPI,
        lambda url, key: {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": f"{url}/v1"},
        "sk-test-codex-SECRET-22", (),
        lambda skill: responses_api.Shell(f"cat .agents/skills/{skill}/SKILL.md"),
        responses_api.Text, lambda message: responses_api.Error(400, message=message),
        lambda request: request.is_responses, lambda request: request.listing or "",
    ),
    "copilot": RealAgent(
        "copilot_cli", messages_api.FakeMessagesAPI,
        lambda url, key: {**anthropic(url, key), "COPILOT_PKG_CACHE_HOME": str(PACKAGE_CACHE)},
        "sk-ant-test-copilot-SECRET-333", ("--model", "anthropic:claude-sonnet-4.6"),
        lambda skill: messages_api.ToolUse("skill", {"skill": skill}),
        messages_api.Text, lambda message: messages_api.Error(400, message=message),
        lambda request: bool(request.tool_names), system_blocks,
    ),
    "gemini": RealAgent(
        "gemini_cli", gemini_api.FakeGeminiAPI,
        lambda url, key: {"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": url},
        "AIza-test-gemini-SECRET-333", ("--model", "google:gemini-3.1-pro-preview"),
        lambda skill: gemini_api.Call("activate_skill", {"name": skill}),
        gemini_api.Text, lambda message: gemini_api.Error(400, message, "BAD_REQUEST"),
        lambda request: bool(request.tool_names), lambda request: request.system,
    ),
}  # fmt: skip
