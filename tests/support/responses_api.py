"""A local stand-in for the OpenAI Responses API, served over real HTTP on 127.0.0.1.

Why real HTTP: the Codex CLI is a native binary that only talks to a model provider's
`base_url` (config.toml `[model_providers.<id>]`, `wire_api = "responses"`). The server runs
uvicorn in a background thread with its own event loop, as `messages_api` does; a *script*
(a callable `ResponsesRequest -> Reply`) decides every answer: streamed as the real API
streams it when the request asks for a stream (Codex), else one JSON Response object (the
`openai` SDK's `responses.create`, as Stage A's `openai:` models use it), or an error.

What Codex CLI 0.171.0 sends (measured against the research stand-in with `codex exec --json`,
research/agents/NOTES.md section 2): only `POST /v1/responses` with SSE, plain JSON bodies
(no compression), one request per model step, `authorization: Bearer <env_key's value>`,
`originator: codex_exec`. The skill listing is the first `input_text` of a developer message
(`ResponsesRequest.listing`). Its shell is a top-level function tool `exec_command` for
gpt-5.5 and unknown models, and only the nested `exec_command` of the code-mode custom tool
`exec` (in an `additional_tools` input item) for its default gpt-6.2-sol: `Shell` answers
with whichever the request offers, and the command's output comes back in the next
request's `*_call_output` item (`ResponsesRequest.tool_outputs`). Its file edits go through
`apply_patch` (`Patch`), the freeform custom tool `apply_patch` for gpt-5.5 and the nested
`tools.apply_patch` of code mode's `exec` for its default model, offered in a sandbox that
lets it write (Stage C's `workspace-write`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.support.canary_agent import canary_file
from tests.support.local_server import StandIn

__all__ = [
    "Error",
    "FakeResponsesAPI",
    "Incomplete",
    "Patch",
    "Refusal",
    "Reply",
    "ResponsesRequest",
    "Script",
    "Shell",
    "Text",
    "Tokens",
    "Tool",
]

LISTING_START = "<skills_instructions>"
ENVIRONMENT_CONTEXT = "<environment_context>"
"""How the user message Codex adds before the prompt (cwd, shell, date, sandbox) begins."""
_CHUNK = 16  # characters per streamed delta: small, so clients must really accumulate


@dataclass(frozen=True)
class ResponsesRequest:
    """One request the fake received."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    path: str = "/v1/responses"
    method: str = "POST"

    @property
    def input(self) -> list[dict[str, Any]]:
        """The `input` items, ignoring anything that is not an object."""
        items = self.body.get("input")
        return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []

    @property
    def instructions(self) -> str:
        """The system prompt, when the request has one."""
        instructions = self.body.get("instructions")
        return instructions if isinstance(instructions, str) else ""

    @property
    def prompt(self) -> str:
        """The user's prompt: `input` when it is one plain string (the SDK), else the last
        user message's text that is not Codex's `<environment_context>` block."""
        items = self.body.get("input")
        if isinstance(items, str):
            return items
        texts = [
            str(part.get("text", ""))
            for item in self.input
            if item.get("role") == "user" and isinstance(item.get("content"), list)
            for part in item["content"]
            if isinstance(part, dict) and part.get("type") == "input_text"
        ]
        typed = [text for text in texts if not text.startswith(ENVIRONMENT_CONTEXT)]
        return typed[-1] if typed else ""

    @property
    def listing(self) -> str | None:
        """The skill listing: a developer message's first `input_text`, when it is one."""
        for item in self.input:
            content = item.get("content")
            if item.get("role") != "developer" or not isinstance(content, list) or not content:
                continue
            first = content[0] if isinstance(content[0], dict) else {}
            text = first.get("text")
            if (
                first.get("type") == "input_text"
                and isinstance(text, str)
                and text.startswith(LISTING_START)
            ):
                return text
        return None

    @property
    def is_responses(self) -> bool:
        return self.method == "POST" and self.path == "/v1/responses"

    @property
    def tools(self) -> list[dict[str, Any]]:
        """Every tool offered: the top-level `tools` and those of `additional_tools` input
        items, namespaces flattened."""
        found: list[dict[str, Any]] = []

        def add(tools: object) -> None:
            for tool in tools if isinstance(tools, list) else []:
                if isinstance(tool, dict) and tool.get("type") == "namespace":
                    add(tool.get("tools"))
                elif isinstance(tool, dict):
                    found.append(tool)

        add(self.body.get("tools"))
        for item in self.input:
            if item.get("type") == "additional_tools":
                add(item.get("tools"))
        return found

    @property
    def tool_names(self) -> list[str]:
        return [str(tool.get("name") or tool.get("type")) for tool in self.tools]

    @property
    def tool_outputs(self) -> list[str]:
        """The text of every tool call's output in the history, oldest first."""
        outputs = []
        for item in self.input:
            if not str(item.get("type", "")).endswith("call_output"):
                continue
            output = item.get("output")
            if isinstance(output, list):
                output = "".join(
                    str(part.get("text", "")) for part in output if isinstance(part, dict)
                )
            outputs.append(str(output))
        return outputs

    @property
    def turn(self) -> int:
        """How many tool calls the history already answered (0 on a turn's first call)."""
        return len(self.tool_outputs)


@dataclass(frozen=True)
class Text:
    """An assistant message with one `output_text` part."""

    text: str


@dataclass(frozen=True)
class Refusal:
    """The model refused: a `refusal` content part instead of text."""

    refusal: str = "I can't help with that."


@dataclass(frozen=True)
class Incomplete:
    """Output cut off at `max_output_tokens`: status incomplete, `text` as far as it got."""

    text: str


@dataclass(frozen=True)
class Error:
    """An HTTP error with the API's error body; `retry_after_ms` sets `retry-after-ms`."""

    status: int
    message: str = "error"
    kind: str = "invalid_request_error"
    retry_after_ms: int | None = None


@dataclass(frozen=True)
class Shell:
    """A shell command, called with the shell tool the request offers: the function
    `exec_command` (`{"cmd": ...}`), or code mode's custom tool `exec`, whose JavaScript runs
    it through the nested `tools.exec_command` and prints what it returned."""

    command: str


@dataclass(frozen=True)
class Patch:
    """A call of `apply_patch` with `patch` (`*** Begin Patch` ... `*** End Patch`), with the
    tool the request offers: the freeform custom tool `apply_patch`, or code mode's custom
    tool `exec`, whose JavaScript calls the nested `tools.apply_patch` and prints what it
    returned."""

    patch: str


@dataclass(frozen=True)
class Tool:
    """A call of the function tool `name` (an MCP server's tool, `mcp__<server>__<tool>`)
    with `arguments`: at the top level when the request offers it there, else through code
    mode's custom tool `exec`, whose JavaScript calls the nested `tools.<name>` and prints
    what it returned."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Tokens:
    """The usage every completed response reports: `cached` of the `input` tokens were
    read from OpenAI's prompt cache."""

    input: int
    cached: int
    output: int


Reply: TypeAlias = Text | Refusal | Incomplete | Error | Shell | Patch | Tool
Call: TypeAlias = Shell | Patch | Tool
Script: TypeAlias = Callable[[ResponsesRequest], Reply]


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def _response(
    request: ResponsesRequest,
    response_id: str,
    output: list[Any],
    tokens: Tokens | None = None,
    incomplete: bool = False,
) -> dict[str, Any]:
    """The Response object: in progress with no output, or done (completed, or incomplete
    at `max_output_tokens`) with its usage: `tokens`, else a figure from the body's size."""
    done = bool(output)
    tokens = tokens or Tokens(max(1, len(json.dumps(request.body)) // 4), 0, 10)
    usage = {
        "input_tokens": tokens.input,
        "input_tokens_details": {"cached_tokens": tokens.cached},
        "output_tokens": tokens.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens.input + tokens.output,
    }
    status = "incomplete" if incomplete else "completed" if done else "in_progress"
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": request.body.get("model", "fake"),
        "output": output,
        "usage": usage if done else None,
        "error": None,
    }


def _message(part: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {
        "type": "message",
        "id": _new_id("msg"),
        "role": "assistant",
        "status": status,
        "content": [part],
    }


def _answer(
    request: ResponsesRequest, reply: Text | Refusal | Incomplete, tokens: Tokens | None
) -> dict[str, Any]:
    """The whole Response object of a non-streamed answer, as `responses.create` gets it."""
    response_id = _new_id("resp")
    if isinstance(reply, Refusal):
        item = _message({"type": "refusal", "refusal": reply.refusal})
        return _response(request, response_id, [item], tokens)
    part = {"type": "output_text", "text": reply.text, "annotations": []}
    if isinstance(reply, Incomplete):
        item = _message(part, "incomplete")
        return _response(request, response_id, [item], tokens, incomplete=True)
    return _response(request, response_id, [_message(part)], tokens)


def _function_call(name: str, arguments: str) -> dict[str, Any]:
    """The output item that calls the function tool `name` with `arguments` (JSON)."""
    return {"type": "function_call", "id": _new_id("fc"), "call_id": _new_id("call"),
            "name": name, "arguments": arguments, "status": "completed"}  # fmt: skip


def _in_code_mode(tool: str, argument: str) -> dict[str, Any]:
    """The output item that calls code mode's custom tool `exec` with JavaScript that calls
    the nested `tools.<tool>` with `argument` (JSON) and prints what it returned."""
    script = (
        f"const r = await tools.{tool}({argument});\n"
        "text(typeof r === 'string' ? r : JSON.stringify(r));\n"
    )
    return {"type": "custom_tool_call", "id": _new_id("ctc"), "call_id": _new_id("call"),
            "name": "exec", "input": script, "status": "completed"}  # fmt: skip


def _shell_call(request: ResponsesRequest, reply: Shell) -> dict[str, Any]:
    """The output item that calls the request's shell tool with `reply.command`."""
    names = request.tool_names
    arguments = json.dumps({"cmd": reply.command})
    if "exec_command" in names:
        return _function_call("exec_command", arguments)
    if "exec" in names:
        return _in_code_mode("exec_command", arguments)
    raise ValueError(f"no shell tool offered: {names}")


def _patch_call(request: ResponsesRequest, reply: Patch) -> dict[str, Any]:
    """The output item that calls the request's `apply_patch` with `reply.patch`."""
    names = request.tool_names
    if "apply_patch" in names:
        return {"type": "custom_tool_call", "id": _new_id("ctc"), "call_id": _new_id("call"),
                "name": "apply_patch", "input": reply.patch, "status": "completed"}  # fmt: skip
    if "exec" in names:
        return _in_code_mode("apply_patch", json.dumps(reply.patch))
    raise ValueError(f"no apply_patch tool offered: {names}")


def _tool_call(request: ResponsesRequest, reply: Tool) -> dict[str, Any]:
    """The output item that calls the function tool `reply.name` with its arguments."""
    names = request.tool_names
    arguments = json.dumps(reply.arguments)
    if reply.name in names:
        return _function_call(reply.name, arguments)
    if "exec" in names:
        return _in_code_mode(reply.name, arguments)
    raise ValueError(f"no tool {reply.name} offered: {names}")


def _call_events(request: ResponsesRequest, reply: Call) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of one tool call, in the real API's order."""
    response_id = _new_id("resp")
    if isinstance(reply, Shell):
        item = _shell_call(request, reply)
    elif isinstance(reply, Patch):
        item = _patch_call(request, reply)
    else:
        item = _tool_call(request, reply)
    return [
        (
            "response.created",
            {"type": "response.created", "response": _response(request, response_id, [])},
        ),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        ),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        (
            "response.completed",
            {"type": "response.completed", "response": _response(request, response_id, [item])},
        ),
    ]


def _stream_events(request: ResponsesRequest, reply: Text) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of one text answer, in the real API's order."""
    response_id, item_id = _new_id("resp"), _new_id("msg")
    part = {"type": "output_text", "text": reply.text, "annotations": []}
    item = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [part],
    }
    chunks = [reply.text[i : i + _CHUNK] for i in range(0, len(reply.text), _CHUNK)] or [""]
    base = {"output_index": 0, "item_id": item_id, "content_index": 0}
    return [
        (
            "response.created",
            {"type": "response.created", "response": _response(request, response_id, [])},
        ),
        (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress", "content": []},
            },
        ),
        *(
            (
                "response.output_text.delta",
                {"type": "response.output_text.delta", **base, "delta": c},
            )
            for c in chunks
        ),
        (
            "response.output_text.done",
            {"type": "response.output_text.done", **base, "text": reply.text},
        ),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        (
            "response.completed",
            {"type": "response.completed", "response": _response(request, response_id, [item])},
        ),
    ]


class FakeResponsesAPI(StandIn):
    """A scripted Responses API on `127.0.0.1:<free port>`; use it as a context manager.

    Unset, the script answers every request `Text("ok")`. A script that raises answers 500
    and makes `__exit__` raise, so a broken script cannot pass for an API error; so does a
    stream the script answers with anything but `Text`, `Shell`, `Patch` or `Error`, or a
    `Shell` or `Patch` for a request that is no stream or offers no such tool. `tokens`,
    when set, is the usage every response reports."""

    def __init__(
        self,
        script: Script | None = None,
        tokens: Tokens | None = None,
        *,
        latency: float | Callable[[ResponsesRequest], float] = 0.0,
    ) -> None:
        super().__init__("fake-responses-api")
        self.script: Script = script or (lambda _request: Text("ok"))
        self.tokens = tokens
        self.latency = latency
        """Seconds (or a function of the request) each answer waits, without blocking
        others; the request is recorded before it."""
        self._requests: list[ResponsesRequest] = []
        self._lock = threading.Lock()

    @property
    def requests(self) -> list[ResponsesRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    async def _handle(self, http: Request) -> Response:
        """Record the request; answer `POST /v1/responses` by the script, else 404."""
        raw = await http.body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        request = ResponsesRequest(
            body=body if isinstance(body, dict) else {},
            headers=dict(http.headers),
            path=http.url.path,
            method=http.method,
        )
        with self._lock:
            canary = canary_file(self, request.prompt) is not None
            (self.canary_requests if canary else self._requests).append(request)
        if not request.is_responses:
            return _error(404, f"not found: {request.path}", "invalid_request_error")
        delay = self.latency(request) if callable(self.latency) else self.latency
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            reply = self._canary(request) or self.script(request)
        except Exception as exc:
            return self._broken(exc)
        if isinstance(reply, Error):
            return _error(reply.status, reply.message, reply.kind, reply.retry_after_ms)
        if request.body.get("stream") is not True:
            if isinstance(reply, Shell | Patch | Tool):
                return self._broken(TypeError(f"a tool call answers a stream only: {reply!r}"))
            return JSONResponse(_answer(request, reply, self.tokens))
        if isinstance(reply, Shell | Patch | Tool):
            try:
                events = _call_events(request, reply)
            except ValueError as exc:
                return self._broken(exc)
            return EventSourceResponse(_sse(events), sep="\n", ping=0)
        if not isinstance(reply, Text):
            return self._broken(
                TypeError(f"a stream answers Text, Shell, Patch, Tool or Error only: {reply!r}")
            )
        return EventSourceResponse(_sse(_stream_events(request, reply)), sep="\n", ping=0)

    def _canary(self, request: ResponsesRequest) -> Text | Shell | None:
        """The agent canary's answer: its file read with the shell (`cat`), then a text
        (None: not the canary's prompt)."""
        path = canary_file(self, request.prompt)
        if path is None:
            return None
        return Text("Done.") if request.tool_outputs else Shell(f"cat {path}")

    def _broken(self, exc: Exception) -> Response:
        """A broken script: 500 now, and `__exit__` raises."""
        self._script_errors.append(exc)
        return _error(500, f"fake script raised: {exc!r}", "server_error")


def _error(status: int, message: str, kind: str, retry_after_ms: int | None = None) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    headers = {"x-request-id": _new_id("req")}
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return JSONResponse(body, status_code=status, headers=headers)


async def _sse(events: list[tuple[str, dict[str, Any]]]) -> AsyncIterator[ServerSentEvent]:
    for name, data in events:
        yield ServerSentEvent(data=json.dumps(data, separators=(",", ":")), event=name, sep="\n")
        await asyncio.sleep(0)
