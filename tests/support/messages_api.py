"""A local stand-in for the Anthropic Messages API, served over real HTTP on 127.0.0.1.

Why real HTTP: SDK 2.x talks through ``httpx2``, so httpx mocking libraries cannot intercept
it, and the Claude Code CLI is a native binary that only honours ``ANTHROPIC_BASE_URL``. The
server runs uvicorn in a background thread with its own event loop; a *script* (a callable
``FakeRequest -> Reply``) decides every answer, so tests say what the model "does" and the
fake renders it exactly as the real API would (JSON message or SSE stream, error bodies).

What the real Claude Code CLI 2.1.332 sends (measured against this fake with ``claude -p
<prompt> --plugin-dir P --output-format stream-json --verbose --max-turns N
--no-session-persistence --permission-mode dontAsk --allowedTools Read,Glob,Grep,Skill``,
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` and a fresh HOME/CLAUDE_CONFIG_DIR/TMPDIR):

- Only ``POST /v1/messages?beta=true`` with ``stream: true``: no count_tokens, no other
  path, no title or haiku side call. One request per agent turn (``turn`` 0, 1, ...), model
  ``claude-opus-5-5``, ``max_tokens`` 128000, ``thinking: {"type": "adaptive"}``. After a
  stream breaks mid-way (``Error(mid_stream=True)``) it falls back to one ``stream: false``
  request, so scripts must not assume streaming.
- Every agent loop offers the ``Skill`` tool (``is_main_loop``). A subagent (``Agent``
  tool) runs its own loop, also offering ``Skill``; its first user text is the ``prompt``
  the parent gave it and its system billing line says ``cc_is_subagent=true``
  (``is_subagent``). Subagents run in the background: the parent gets "Async agent
  launched", and the stream can hold two ``result`` events (the parent's answer, then its
  follow-up turn once the subagent is done).
- Messages: the first user message is ``[<system-reminder> block, the typed prompt]``, then
  a ``role: "system"`` message holding the skill listing (heading, a blank line, ``- name:
  description`` lines, some descriptions wrapping onto more lines); on later turns that
  message's content is a plain string. ``prompt`` and ``menu`` read both shapes.
- Headers: ``x-api-key`` (the SDK 2.x sends ``authorization: Bearer`` instead),
  ``anthropic-version: 2023-06-01``, ``anthropic-beta`` (a comma list), ``x-app: cli``,
  ``user-agent: claude-cli/2.1.332 (external, sdk-cli)``, ``x-claude-code-session-id``,
  ``x-stainless-retry-count`` (always 0: the CLI retries in its own loop).
- Errors. 429, 500 *and 401* are retried 10 times (``api_retry`` system events carry
  ``error_status``), back-off 0.5 s doubling to ~40 s: about 3 minutes before giving up.
  ``retry-after`` counts only in whole seconds (0 or fractions fall back to the back-off).
  403 is final at once; 529 gives up after 3 tries ("Repeated 529 Overloaded errors"); a
  400 is re-sent up to 5 times with fewer betas/tools. ``CLAUDE_CODE_MAX_RETRIES=0`` makes
  every error final at once. A refusal is retried once with a synthetic user note;
  ``max_tokens`` makes it ask the model to resume (each such reply is a new ``turn``). When
  it gives up, the stream ends with a synthetic assistant text ("API Error: ...", "Invalid
  API key ...") and a ``result`` event with ``is_error: true``, ``subtype: "success"`` and
  ``api_error_status``; exit code 1. ``--max-turns`` exhaustion: ``subtype:
  "error_max_turns"``, ``is_error: true``, exit 1.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.support.canary_agent import canary_file, reading_call
from tests.support.local_server import StandIn

__all__ = [
    "MENU_HEADING",
    "Answer",
    "Error",
    "Expired",
    "FakeMessagesAPI",
    "FakeRequest",
    "MaxTokens",
    "PromptCache",
    "Raw",
    "Refusal",
    "Reply",
    "Script",
    "Sequence",
    "Text",
    "Tokens",
    "ToolUse",
    "estimate_tokens",
]

MENU_HEADING = "The following skills are available for use with the Skill tool:"
"""The line the agent (and Stage A) puts above the skill listing."""

_MENU_ITEM = re.compile(r"^- (\S+?)(?: \([^()]*\))?(?::(?:\s(.*))?)?$")
"""`- <id>: <text>`, `- <id> (<display name>): <text>`, or a collapsed `- <id>`."""
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_CHUNK = 16  # characters per streamed delta: small, so clients must really accumulate


# --------------------------------------------------------------------------- requests


def _texts(content: object) -> list[str]:
    """Text pieces of a message's or system param's content (string or list of blocks)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
    return []


def _parse_menu(text: str, into: dict[str, str]) -> None:
    """Add every skill listed under each menu heading in ``text`` (first listing wins).

    After the heading come optional blank lines, then ``- <name>: <description>`` items (with
    a display name in parentheses, or the name alone when the listing is over budget); a
    non-blank line that is not an item continues the previous description (the agent wraps
    long ones), and a blank line ends the listing.
    """
    lines = [line.strip() for line in text.splitlines()]
    for start, line in enumerate(lines):
        if line != MENU_HEADING:
            continue
        current: str | None = None  # the item being read, None if it was listed before
        seen_item = False
        for line in lines[start + 1 :]:
            item = _MENU_ITEM.match(line)
            if not line:
                if seen_item:
                    break
            elif item:
                seen_item = True
                current = item.group(1) if item.group(1) not in into else None
                if current is not None:
                    into[current] = (item.group(2) or "").strip()
            elif not seen_item:
                break
            elif current is not None:
                into[current] = f"{into[current]}\n{line}"


@dataclass(frozen=True)
class FakeRequest:
    """One request the fake received, with the fields a script needs already parsed."""

    body: dict[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)
    path: str = "/v1/messages"
    query: str = ""
    method: str = "POST"
    arrived: float = field(default_factory=time.monotonic)
    """When it arrived (`time.monotonic`): a cache entry written later cannot serve it."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` param, ignoring anything that is not a message object."""
        messages = self.body.get("messages")
        if not isinstance(messages, list):
            return []
        return [m for m in messages if isinstance(m, dict)]

    @property
    def prompt(self) -> str:
        """The user's typed prompt: the first user text that is not a system reminder."""
        for message in self.messages:
            if message.get("role") != "user":
                continue
            pieces = [_REMINDER.sub("", text).strip() for text in _texts(message.get("content"))]
            pieces = [piece for piece in pieces if piece]
            if pieces:
                return "\n".join(pieces)
        return ""

    @property
    def menu(self) -> dict[str, str]:
        """Skill name -> description, from every listing in the system param or messages."""
        menu: dict[str, str] = {}
        for text in _texts(self.body.get("system")):
            _parse_menu(text, menu)
        for message in self.messages:
            for text in _texts(message.get("content")):
                _parse_menu(text, menu)
        return menu

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered, in request order."""
        tools = self.body.get("tools")
        if not isinstance(tools, list):
            return []
        return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``tool_result`` block in the history, oldest first."""
        return [
            block
            for message in self.messages
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]

    @property
    def turn(self) -> int:
        """How many assistant messages the history already holds (0 on the first call)."""
        return sum(1 for message in self.messages if message.get("role") == "assistant")

    @property
    def stream(self) -> bool:
        """Whether the client asked for SSE."""
        return bool(self.body.get("stream", False))

    @property
    def schema(self) -> dict[str, Any] | None:
        """The structured-output JSON schema (``output_config.format.schema``), if any."""
        for holder in (self.body.get("output_config"), {"format": self.body.get("output_format")}):
            fmt = holder.get("format") if isinstance(holder, dict) else None
            if isinstance(fmt, dict) and isinstance(fmt.get("schema"), dict):
                return fmt["schema"]
        return None

    @property
    def model(self) -> str:
        """The requested model id, echoed back in replies."""
        model = self.body.get("model")
        return model if isinstance(model, str) else ""

    @property
    def is_main_loop(self) -> bool:
        """True for the CLI's agent loop (it offers ``Skill``), False for its side calls."""
        return "Skill" in self.tool_names

    @property
    def is_subagent(self) -> bool:
        """True when the CLI marks the request as a subagent's (``cc_is_subagent=true``)."""
        return any("cc_is_subagent=true" in text for text in _texts(self.body.get("system")))

    @property
    def is_messages(self) -> bool:
        """True for a ``POST /v1/messages`` (the only path a script answers)."""
        return self.method == "POST" and self.path == "/v1/messages"


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Answer:
    """The structured-output answer: text ``{"skills": [...]}``, optionally after thinking."""

    skills: list[str]
    thinking: str | None = None


@dataclass(frozen=True)
class Text:
    """A plain text answer (stop ``end_turn``)."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """A tool call (stop ``tool_use``), optionally after some prose."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    text: str | None = None


@dataclass(frozen=True)
class Refusal:
    """A refusal (stop ``refusal`` with ``stop_details``), with optional partial text."""

    text: str = ""


@dataclass(frozen=True)
class MaxTokens:
    """Output cut off at ``max_tokens``; ``text`` is the truncated text as sent."""

    text: str


@dataclass(frozen=True)
class Raw:
    """A text block with arbitrary (e.g. unparseable) text, stop ``end_turn``."""

    text: str


_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Error:
    """An HTTP error with the real API's body; ``retry_after`` (seconds) sets the header.

    With ``mid_stream`` a streaming request gets HTTP 200, ``message_start`` and then an SSE
    ``error`` event (how the real API reports e.g. overload during generation).
    """

    status: int
    retry_after: float | None = None
    message: str = "Error from the fake Messages API"
    type: str | None = None
    mid_stream: bool = False

    @property
    def error_type(self) -> str:
        """The ``error.type`` the real API uses for this status."""
        if self.type is not None:
            return self.type
        return _ERROR_TYPES.get(
            self.status, "api_error" if self.status >= 500 else "invalid_request_error"
        )

    def payload(self, request_id: str) -> dict[str, Any]:
        """The JSON error body."""
        return {
            "type": "error",
            "error": {"type": self.error_type, "message": self.message},
            "request_id": request_id,
        }


@dataclass(frozen=True)
class Expired:
    """In a Message Batch: the request expired before it was processed (``expired``)."""


Reply: TypeAlias = Answer | Text | ToolUse | Refusal | MaxTokens | Raw | Error | Expired
Script: TypeAlias = Callable[[FakeRequest], Reply]
_REPLY_TYPES = (Answer, Text, ToolUse, Refusal, MaxTokens, Raw, Error, Expired)


class Sequence:
    """A script that returns its replies in order, then repeats the last one.

    An item may itself be a script (a callable), which is called with the request.
    """

    def __init__(self, *replies: Reply | Script) -> None:
        if not replies:
            raise ValueError("Sequence needs at least one reply")
        self._replies = replies
        self._next = 0
        self._lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> Reply:
        with self._lock:
            item = self._replies[min(self._next, len(self._replies) - 1)]
            self._next += 1
        return item if isinstance(item, _REPLY_TYPES) else item(request)


def _constant(reply: Reply) -> Script:
    """A script that always gives ``reply``."""
    return lambda _request: reply


def estimate_tokens(value: object) -> int:
    """A rough, deterministic token count (4 characters a token) for ``usage`` figures."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return max(1, len(text) // 4)


def _input_tokens(body: Mapping[str, Any]) -> int:
    """What the fake reports as ``input_tokens`` for a request body."""
    return estimate_tokens({k: body.get(k) for k in ("system", "messages", "tools")})


@dataclass(frozen=True)
class Tokens:
    """A request's input as the API bills it: uncached, written to and read from the cache."""

    input: int
    cache_write: int = 0
    cache_read: int = 0


def cached_prefix(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The request up to and including its last `cache_control` block (tools, then system,
    then messages, as the API reads a prompt), or None when nothing is marked."""
    prefix: dict[str, Any] = {"model": body.get("model"), "tools": [], "system": [], "messages": []}
    found: dict[str, Any] | None = None
    for tool in body.get("tools") or ():
        prefix["tools"].append(tool)
        if isinstance(tool, dict) and "cache_control" in tool:
            found = json.loads(json.dumps(prefix))
    system = body.get("system")
    for block in system if isinstance(system, list) else ():
        prefix["system"].append(block)
        if isinstance(block, dict) and "cache_control" in block:
            found = json.loads(json.dumps(prefix))
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, dict) else None
        blocks: list[Any] = []
        prefix["messages"].append(
            {**message, "content": blocks} if isinstance(message, dict) else message
        )
        for block in content if isinstance(content, list) else ():
            blocks.append(block)
            if isinstance(block, dict) and "cache_control" in block:
                found = json.loads(json.dumps(prefix))
    return found


class PromptCache:
    """Anthropic's prompt caching, as the stand-in bills it: a marked prefix of at least
    `min_tokens` is written by the first request that sends it and read by every request
    that arrives after that one was answered (requests sent at the same moment each write
    it, as they do on the real API). Entries do not expire."""

    def __init__(self, min_tokens: int = 1024) -> None:
        self.min_tokens = min_tokens
        self._ready: dict[str, float] = {}
        self._lock = threading.Lock()

    def bill(self, body: Mapping[str, Any], arrived: float) -> Tokens:
        total = _input_tokens(body)
        prefix = cached_prefix(body)
        if prefix is None:
            return Tokens(total)
        size = estimate_tokens({k: prefix[k] for k in ("system", "messages", "tools")})
        if size < self.min_tokens:
            return Tokens(total)
        key = json.dumps(prefix, sort_keys=True)
        with self._lock:
            ready = self._ready.get(key)
            if ready is not None and ready <= arrived:
                return Tokens(max(0, total - size), cache_read=size)
            self._ready.setdefault(key, time.monotonic())
        return Tokens(max(0, total - size), cache_write=size)


def _new_id(prefix: str) -> str:
    """A unique id shaped like the API's (``msg_01...``, ``toolu_01...``, ``req_01...``)."""
    return f"{prefix}_01{secrets.token_hex(11)}"


@dataclass(frozen=True)
class _Rendered:
    """A message reply reduced to content blocks and a stop reason."""

    blocks: list[dict[str, Any]]
    stop_reason: str
    stop_details: dict[str, Any] | None
    output_tokens: int


def _render(reply: Reply, request: FakeRequest) -> _Rendered:
    """Turn a non-error reply into the content blocks of the message."""
    blocks: list[dict[str, Any]] = []
    stop_details: dict[str, Any] | None = None
    match reply:
        case Answer(skills=skills, thinking=thinking):
            if thinking is not None:
                signature = secrets.token_urlsafe(48)
                blocks.append({"type": "thinking", "thinking": thinking, "signature": signature})
            blocks.append({"type": "text", "text": json.dumps({"skills": list(skills)})})
            stop = "end_turn"
        case Text(text=text) | Raw(text=text):
            blocks.append({"type": "text", "text": text})
            stop = "end_turn"
        case ToolUse(name=name, input=tool_input, text=text):
            if text is not None:
                blocks.append({"type": "text", "text": text})
            tool = {"type": "tool_use", "id": _new_id("toolu"), "name": name, "input": tool_input}
            blocks.append(tool)
            stop = "tool_use"
        case Refusal(text=text):
            if text:
                blocks.append({"type": "text", "text": text})
            stop = "refusal"
            stop_details = {"type": "refusal", "category": None, "explanation": None}
        case MaxTokens(text=text):
            blocks.append({"type": "text", "text": text})
            stop = "max_tokens"
        case _:
            raise TypeError(f"not a message reply: {reply!r}")
    output_tokens = estimate_tokens(blocks)
    max_tokens = request.body.get("max_tokens")
    if stop == "max_tokens" and isinstance(max_tokens, int):
        output_tokens = max_tokens
    return _Rendered(blocks, stop, stop_details, output_tokens)


def _usage(tokens: Tokens, output_tokens: int) -> dict[str, Any]:
    """A realistic ``usage`` object."""
    return {
        "input_tokens": tokens.input,
        "cache_creation_input_tokens": tokens.cache_write,
        "cache_read_input_tokens": tokens.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": tokens.cache_write,
            "ephemeral_1h_input_tokens": 0,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _message(request: FakeRequest, rendered: _Rendered | None, tokens: Tokens) -> dict[str, Any]:
    """The Message object; ``rendered=None`` gives the empty one of ``message_start``."""
    return {
        "id": _new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": request.model or "claude-fake",
        "content": rendered.blocks if rendered else [],
        "stop_reason": rendered.stop_reason if rendered else None,
        "stop_sequence": None,
        "stop_details": rendered.stop_details if rendered else None,
        "usage": _usage(tokens, rendered.output_tokens if rendered else 1),
    }


def _chunks(text: str) -> list[str]:
    """Split ``text`` into delta-sized pieces (at least one, possibly empty)."""
    return [text[i : i + _CHUNK] for i in range(0, len(text), _CHUNK)] or [""]


def _block_events(index: int, block: dict[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    """The content_block_start / _delta / _stop events for one finished block."""
    kind = block["type"]
    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": c}
            for c in _chunks(json.dumps(block["input"]))
        ]
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _stream_events(
    request: FakeRequest, reply: Reply, tokens: Tokens, request_id: str
) -> list[tuple[str, dict[str, Any]]]:
    """The whole SSE event sequence for a streamed reply, in the real API's order."""
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {"type": "message_start", "message": _message(request, None, tokens)},
        ),
        ("ping", {"type": "ping"}),
    ]
    if isinstance(reply, Error):
        events.append(("error", reply.payload(request_id)))
        return events
    rendered = _render(reply, request)
    for index, block in enumerate(rendered.blocks):
        events.extend(_block_events(index, block))
    delta = {
        "stop_reason": rendered.stop_reason,
        "stop_sequence": None,
        "stop_details": rendered.stop_details,
    }
    usage = {
        "input_tokens": tokens.input,
        "cache_creation_input_tokens": tokens.cache_write,
        "cache_read_input_tokens": tokens.cache_read,
        "output_tokens": rendered.output_tokens,
    }
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# --------------------------------------------------------------------------- the server


class FakeMessagesAPI(StandIn):
    """A scripted Messages API on ``127.0.0.1:<free port>``; use it as a context manager.

    ``script`` may be a callable, a single reply (always given) or a list of replies (a
    ``Sequence``). Unset, every message request gets ``Text("ok")``. ``latency`` (seconds,
    or a function of the request) delays each response without blocking others. A script
    that raises answers 500 and makes ``__exit__`` raise, so a broken script cannot pass for
    an API error.
    """

    def __init__(
        self,
        script: Script | Reply | list[Reply] | None = None,
        *,
        latency: float | Callable[[FakeRequest], float] = 0.0,
        batch_processing: float = 0.0,
        batch_max_requests: int = 100_000,
        cache_min_tokens: int = 1024,
    ) -> None:
        super().__init__("fake-messages-api")
        self.script = script
        self.prompt_cache = PromptCache(cache_min_tokens)
        """Prompt caching of `cache_control` prefixes (direct requests; batches bill none)."""
        self.latency = latency
        self.batch_processing = batch_processing
        """Seconds a Message Batch stays ``in_progress`` after it is created."""
        self.batch_max_requests = batch_max_requests
        """The most requests a batch may hold (the real API's 100,000): more is a 400, as is
        a batch with none."""
        self.batches: dict[str, _Batch] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self._requests: list[FakeRequest] = []
        self._lock = threading.Lock()

    @property
    def script(self) -> Script:
        """The callable that answers each ``POST /v1/messages``."""
        return self._script

    @script.setter
    def script(self, script: Script | Reply | list[Reply] | None) -> None:
        if script is None:
            self._script: Script = _constant(Text("ok"))
        elif isinstance(script, list):
            self._script = Sequence(*script)
        elif isinstance(script, _REPLY_TYPES):
            self._script = _constant(script)
        else:
            self._script = script

    @property
    def requests(self) -> list[FakeRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def message_requests(self) -> list[FakeRequest]:
        """Only the ``POST /v1/messages`` requests."""
        return [r for r in self.requests if r.is_messages]

    @property
    def batch_requests(self) -> list[FakeRequest]:
        """Every message request sent inside a Message Batch (its ``params``), in order."""
        with self._lock:
            return [item for batch in self.batches.values() for item in batch.requests]

    @property
    def batch_creations(self) -> list[int]:
        """How many requests each ``POST /v1/messages/batches`` carried, in order: every
        attempt, the ones answered 400 (none, or too many) and the SDK's retries included."""
        return [
            len(items) if isinstance(items := r.body.get("requests"), list) else 0
            for r in self.requests
            if r.method == "POST" and r.path.rstrip("/") == "/v1/messages/batches"
        ]

    @property
    def model_requests(self) -> int:
        """Message requests of any kind: direct ones plus those inside batches."""
        return len(self.message_requests) + len(self.batch_requests)

    def clear(self) -> None:
        """Forget recorded requests and the in-flight high-water mark."""
        with self._lock:
            self._requests.clear()
            self.max_in_flight = self.in_flight

    # ------------------------------------------------------------------ HTTP

    async def _handle(self, http: Request) -> Response:
        """Record the request, wait ``latency`` and answer it."""
        raw = await http.body()
        try:
            body = json.loads(raw) if raw else {}
            valid = isinstance(body, dict)
        except ValueError:
            body, valid = {}, False
        request = FakeRequest(
            body=body if isinstance(body, dict) else {},
            headers=dict(http.headers),
            path=http.url.path,
            query=http.url.query,
            method=http.method,
        )
        with self._lock:
            canary = canary_file(self, request.prompt) is not None
            (self.canary_requests if canary else self._requests).append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self.latency(request) if callable(self.latency) else self.latency
            if delay > 0:
                await asyncio.sleep(delay)
            return self._respond(request, valid)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _respond(self, request: FakeRequest, valid: bool) -> Response:
        """Route: messages -> the script; count_tokens -> a count; anything else -> 404."""
        request_id = _new_id("req")
        if request.path.startswith("/v1/messages/batches"):
            return self._batches(request, request_id)
        if request.method == "POST" and request.path == "/v1/messages/count_tokens":
            return JSONResponse(
                {"input_tokens": _input_tokens(request.body)}, headers={"request-id": request_id}
            )
        if not request.is_messages:
            return _error_response(Error(404, message=f"Not found: {request.path}"), request_id)
        if not valid:
            return _error_response(
                Error(400, message="Request body is not a JSON object"), request_id
            )
        try:
            reply = self._canary(request) or self._script(request)
            if not isinstance(reply, _REPLY_TYPES):
                raise TypeError(f"script returned {reply!r}, not a reply")
        except Exception as exc:
            self._script_errors.append(exc)
            return _error_response(Error(500, message=f"fake script raised: {exc!r}"), request_id)
        tokens = self.prompt_cache.bill(request.body, request.arrived)
        if isinstance(reply, Expired):  # only a batch request can expire
            reply = Error(500, message="Expired() answers batch requests only")
        if isinstance(reply, Error) and not (reply.mid_stream and request.stream):
            return _error_response(reply, request_id)
        if request.stream:
            events = _stream_events(request, reply, tokens, request_id)
            return EventSourceResponse(
                _sse(events), sep="\n", ping=0, headers={"request-id": request_id}
            )
        message = _message(request, _render(reply, request), tokens)
        return JSONResponse(message, headers={"request-id": request_id})

    def _canary(self, request: FakeRequest) -> Reply | None:
        """The agent canary's answer: its file read with the agent's reading tool, then a
        text (None: not the canary's prompt, or no reading tool offered)."""
        path = canary_file(self, request.prompt)
        call = None if path is None else reading_call(request.tool_names, path)
        if call is None:
            return None
        return Text("Done.") if request.tool_results else ToolUse(*call)

    # ------------------------------------------------------------------ Message Batches

    def _batches(self, request: FakeRequest, request_id: str) -> Response:
        """create (POST), retrieve (GET), results (GET .../results, JSONL), cancel (POST)."""
        parts = request.path.removeprefix("/v1/messages/batches").strip("/").split("/")
        headers = {"request-id": request_id}
        if request.method == "POST" and parts == [""]:
            refused = self._refused_batch(request.body.get("requests"))
            if refused is not None:
                return _error_response(Error(400, message=refused), request_id)
            created = self._create_batch(request)
            return JSONResponse(created.data(self.base_url), headers=headers)
        batch = self.batches.get(parts[0])
        if batch is None:
            return _error_response(Error(404, message=f"no batch {parts[0]}"), request_id)
        if request.method == "GET" and len(parts) == 1:
            return JSONResponse(batch.data(self.base_url), headers=headers)
        if request.method == "POST" and parts[1:] == ["cancel"]:
            batch.cancel()
            return JSONResponse(batch.data(self.base_url), headers=headers)
        if request.method == "GET" and parts[1:] == ["results"] and batch.ended:
            lines = b"".join(json.dumps(line).encode() + b"\n" for line in batch.results())
            return Response(lines, media_type="application/binary", headers=headers)
        return _error_response(Error(400, message="not a batch operation"), request_id)

    def _refused_batch(self, items: object) -> str | None:
        """Why the real API answers a batch creation 400, or None: `requests` must be a list
        of 1 to `batch_max_requests` items."""
        if not isinstance(items, list):
            return "requests: Input should be a valid list"
        if not items:
            return "requests: List should have at least 1 item after validation, not 0"
        if len(items) > self.batch_max_requests:
            return (
                f"requests: List should have at most {self.batch_max_requests} items after "
                f"validation, not {len(items)}"
            )
        return None

    def _create_batch(self, request: FakeRequest) -> _Batch:
        items = request.body["requests"]
        batch = _Batch(_new_id("msgbatch"), time.monotonic() + self.batch_processing)
        for item in items:
            params = FakeRequest(body=item["params"], headers=request.headers)
            try:
                reply = self._script(params)
            except Exception as exc:
                self._script_errors.append(exc)
                reply = Error(500, message=f"fake script raised: {exc!r}")
            batch.requests.append(params)
            batch.answers.append((item["custom_id"], params, reply))
        with self._lock:
            self.batches[batch.id] = batch
        return batch


@dataclass
class _Batch:
    """One Message Batch: its requests and their answers, ended once its time is up."""

    id: str
    ends_at: float
    requests: list[FakeRequest] = field(default_factory=list)
    answers: list[tuple[str, FakeRequest, Reply]] = field(default_factory=list)
    canceled: bool = False
    created_at: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ"))

    @property
    def ended(self) -> bool:
        return self.canceled or time.monotonic() >= self.ends_at

    def cancel(self) -> None:
        """Requests not yet processed are canceled (here: all, unless the batch has ended)."""
        if not self.ended:
            self.canceled = True

    def results(self) -> list[dict[str, Any]]:
        lines = []
        for custom_id, request, reply in self.answers:
            if self.canceled:
                result: dict[str, Any] = {"type": "canceled"}
            elif isinstance(reply, Expired):
                result = {"type": "expired"}
            elif isinstance(reply, Error):
                result = {"type": "errored", "error": reply.payload(_new_id("req"))}
            else:
                message = _message(
                    request, _render(reply, request), Tokens(_input_tokens(request.body))
                )
                message["usage"]["service_tier"] = "batch"
                result = {"type": "succeeded", "message": message}
            lines.append({"custom_id": custom_id, "result": result})
        return lines

    def data(self, base_url: str) -> dict[str, Any]:
        total = len(self.answers)
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        if not self.ended:
            counts["processing"] = total
        else:
            for line in self.results():
                counts[line["result"]["type"]] += 1
        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": "ended" if self.ended else "in_progress",
            "request_counts": counts,
            "created_at": self.created_at,
            "expires_at": self.created_at,
            "ended_at": self.created_at if self.ended else None,
            "cancel_initiated_at": self.created_at if self.canceled else None,
            "archived_at": None,
            "results_url": f"{base_url}/v1/messages/batches/{self.id}/results"
            if self.ended
            else None,
        }


def _error_response(error: Error, request_id: str) -> JSONResponse:
    """An error status with the real API's JSON body and headers."""
    headers = {"request-id": request_id}
    if error.retry_after is not None:
        headers["retry-after"] = f"{error.retry_after:g}"
    return JSONResponse(error.payload(request_id), status_code=error.status, headers=headers)


async def _sse(events: list[tuple[str, dict[str, Any]]]) -> AsyncIterator[ServerSentEvent]:
    """Feed the prepared events to sse-starlette with ``event:`` names, compact JSON data."""
    for name, data in events:
        yield ServerSentEvent(data=json.dumps(data, separators=(",", ":")), event=name, sep="\n")
        await asyncio.sleep(0)  # let other connections progress between events
