"""The fake Messages API, driven through the real ``anthropic`` SDK and raw HTTP.

Every other test and benchmark trusts this fake to behave like the real API, so these tests
pin its wire format: message JSON, SSE event order and names, error bodies and headers, the
parsed ``FakeRequest`` fields, and that latency does not serialize concurrent requests.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, TypeVar

import anthropic
import pytest
from anthropic import AsyncAnthropic

from tests.support.messages_api import (
    MENU_HEADING,
    Answer,
    Error,
    FakeMessagesAPI,
    FakeRequest,
    MaxTokens,
    PromptCache,
    Raw,
    Refusal,
    Reply,
    Sequence,
    Text,
    Tokens,
    ToolUse,
    estimate_tokens,
)

pytestmark = pytest.mark.anyio
BlockT = TypeVar("BlockT", bound=anthropic.types.ContentBlock)

MODEL = "claude-test-1"
USER: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]
INPUT_TOKENS = estimate_tokens({"system": None, "messages": USER, "tools": None})


@pytest.fixture
def anyio_backend() -> str:
    """The SDK's async client runs on asyncio; do not also run these under trio."""
    return "asyncio"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeMessagesAPI]:
    """One server for the module: starting uvicorn per test would dominate the run time.

    ``gc.collect()`` first, outside any event loop: an unclosed ``AsyncAnthropic`` left by an
    earlier test module is otherwise collected inside a test's loop, and its ``__del__`` then
    fails the test with "Event loop is closed". Then ``gc.freeze()``: what survived is out of
    the collector's way, so each test's own ``gc.collect()`` walks only what the module made
    since (a whole suite's heap took most of this module's run time)."""
    gc.collect()
    gc.freeze()
    try:
        with FakeMessagesAPI() as api:
            yield api
    finally:
        gc.unfreeze()


@pytest.fixture
def api(server: FakeMessagesAPI) -> FakeMessagesAPI:
    """The shared server, reset to its defaults for each test, after a ``gc.collect()`` of
    what the module's earlier tests left (see `server`)."""
    gc.collect()
    server.script = None
    server.latency = 0.0
    server.clear()
    return server


def client(api: FakeMessagesAPI, max_retries: int = 0) -> AsyncAnthropic:
    """An SDK client aimed at the fake."""
    return AsyncAnthropic(base_url=api.base_url, api_key="sk-test", max_retries=max_retries)


def post(
    api: FakeMessagesAPI, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    """A raw HTTP POST (for what the SDK hides: event names, headers, odd paths)."""
    request = urllib.request.Request(
        api.base_url + path,
        data=body,
        method="POST",
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Parse an SSE body into (event name, JSON data) pairs."""
    events = []
    for chunk in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def first_block(message: anthropic.types.Message, kind: type[BlockT]) -> BlockT:
    """The message's first content block, which the test expects to be a ``kind``."""
    block = message.content[0]
    assert isinstance(block, kind)
    return block


def blocks(message: anthropic.types.Message) -> list[dict[str, Any]]:
    """Content blocks as plain dicts, without the fields that are random per reply."""
    out = []
    for block in message.content:
        data = block.model_dump(exclude_none=True, exclude={"parsed_output"})
        for random_field in ("id", "signature"):
            data.pop(random_field, None)
        out.append(data)
    return out


# Each reply type: what the SDK must see, streamed or not.
REPLIES: list[tuple[Reply, list[dict[str, Any]], str]] = [
    (
        Answer(["auth0:auth0", "dataviz"]),
        [{"type": "text", "text": '{"skills": ["auth0:auth0", "dataviz"]}'}],
        "end_turn",
    ),
    (
        Answer([], thinking="The user wants charts, not auth; none of these fit the request."),
        [
            {
                "type": "thinking",
                "thinking": "The user wants charts, not auth; none of these fit the request.",
            },
            {"type": "text", "text": '{"skills": []}'},
        ],
        "end_turn",
    ),
    (Text("ok, done"), [{"type": "text", "text": "ok, done"}], "end_turn"),
    (
        ToolUse("Skill", {"skill": "auth0:auth0", "args": "--fast"}, text="I'll use the skill."),
        [
            {"type": "text", "text": "I'll use the skill."},
            {
                "type": "tool_use",
                "name": "Skill",
                "input": {"skill": "auth0:auth0", "args": "--fast"},
            },
        ],
        "tool_use",
    ),
    (
        ToolUse("Skill", {"skill": "auth0:auth0"}),
        [{"type": "tool_use", "name": "Skill", "input": {"skill": "auth0:auth0"}}],
        "tool_use",
    ),
    (Refusal(), [], "refusal"),
    (MaxTokens('{"skills": ["au'), [{"type": "text", "text": '{"skills": ["au'}], "max_tokens"),
    (
        Raw("Sure! The answer is auth0."),
        [{"type": "text", "text": "Sure! The answer is auth0."}],
        "end_turn",
    ),
]


@pytest.mark.parametrize(("reply", "content", "stop_reason"), REPLIES)
async def test_reply_as_json_message(
    api: FakeMessagesAPI, reply: Reply, content: list[dict[str, Any]], stop_reason: str
) -> None:
    api.script = reply
    async with client(api) as sdk:
        message = await sdk.messages.create(model=MODEL, max_tokens=64, messages=USER)
    assert blocks(message) == content
    assert message.stop_reason == stop_reason
    assert (message.type, message.role, message.model) == ("message", "assistant", MODEL)
    assert message.id.startswith("msg_")
    assert message.usage.input_tokens == INPUT_TOKENS
    assert message.usage.cache_creation_input_tokens == 0
    assert message.usage.cache_read_input_tokens == 0
    raw_blocks = [
        b.model_dump(exclude_none=True, exclude={"parsed_output"}) for b in message.content
    ]
    expected_output = 64 if stop_reason == "max_tokens" else estimate_tokens(raw_blocks)
    assert message.usage.output_tokens == expected_output
    if stop_reason == "refusal":
        assert message.stop_details is not None
        assert message.stop_details.type == "refusal"
    else:
        assert message.stop_details is None


@pytest.mark.parametrize(("reply", "content", "stop_reason"), REPLIES)
async def test_reply_as_sse_stream(
    api: FakeMessagesAPI, reply: Reply, content: list[dict[str, Any]], stop_reason: str
) -> None:
    api.script = reply
    async with (
        client(api) as sdk,
        sdk.messages.stream(model=MODEL, max_tokens=64, messages=USER) as stream,
    ):
        message = await stream.get_final_message()
    assert blocks(message) == content
    assert message.stop_reason == stop_reason
    assert (message.type, message.role, message.model) == ("message", "assistant", MODEL)
    assert message.usage.input_tokens == INPUT_TOKENS
    assert api.requests[-1].stream is True


def test_sse_wire_format_matches_the_real_api(api: FakeMessagesAPI) -> None:
    """Event names equal each data ``type``; blocks open, stream deltas and close in order."""
    api.script = Answer(["auth0:auth0"], thinking="x" * 20)
    body = {"model": MODEL, "max_tokens": 64, "messages": USER, "stream": True}
    status, headers, text = post(api, "/v1/messages", json.dumps(body).encode())
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    events = sse(text)
    assert all(name == data["type"] for name, data in events)
    answer = '{"skills": ["auth0:auth0"]}'  # 27 characters: two 16-character deltas
    assert [(name, data.get("delta", {}).get("type")) for name, data in events] == [
        ("message_start", None),
        ("ping", None),
        ("content_block_start", None),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "text_delta"),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]
    start = events[0][1]["message"]
    assert (start["content"], start["stop_reason"], start["model"]) == ([], None, MODEL)
    assert events[2][1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert events[7][1]["content_block"] == {"type": "text", "text": ""}
    assert "".join(data["delta"]["text"] for _, data in events[8:10]) == answer
    assert [data["index"] for _, data in events[2:11]] == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    delta = events[11][1]
    assert delta["delta"] == {
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "stop_details": None,
    }
    assert delta["usage"]["input_tokens"] == INPUT_TOKENS


async def test_tool_use_streams_input_as_json_deltas(api: FakeMessagesAPI) -> None:
    tool_input = {"skill": "auth0:auth0", "args": "a long argument string to split"}
    api.script = ToolUse("Skill", tool_input)
    async with client(api) as sdk:
        events = [
            event
            async for event in await sdk.messages.create(
                model=MODEL, max_tokens=64, messages=USER, stream=True
            )
        ]
    start = events[1]  # the SDK drops the `ping` event
    assert start.type == "content_block_start"
    assert start.content_block.type == "tool_use"
    assert start.content_block.input == {}
    partial: list[str] = []
    for e in events:
        if e.type == "content_block_delta":
            assert isinstance(e.delta, anthropic.types.InputJSONDelta)
            partial.append(e.delta.partial_json)
    assert len(partial) == 5  # 16 characters a delta, like the real API's small chunks
    assert json.loads("".join(partial)) == tool_input
    assert events[-2].type == "message_delta"
    assert events[-2].delta.stop_reason == "tool_use"


async def test_tool_use_ids_are_unique(api: FakeMessagesAPI) -> None:
    api.script = ToolUse("Read", {"file_path": "/tmp/x"})
    async with client(api) as sdk:
        ids = [
            first_block(
                await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER),
                anthropic.types.ToolUseBlock,
            ).id
            for _ in range(3)
        ]
    assert len(set(ids)) == 3
    assert all(i.startswith("toolu_") for i in ids)


ERRORS: list[tuple[int, type[anthropic.APIStatusError], str]] = [
    (400, anthropic.BadRequestError, "invalid_request_error"),
    (401, anthropic.AuthenticationError, "authentication_error"),
    (403, anthropic.PermissionDeniedError, "permission_error"),
    (404, anthropic.NotFoundError, "not_found_error"),
    (429, anthropic.RateLimitError, "rate_limit_error"),
    (500, anthropic.InternalServerError, "api_error"),
    (529, anthropic.OverloadedError, "overloaded_error"),
]


@pytest.mark.parametrize(("status", "exception", "error_type"), ERRORS)
@pytest.mark.parametrize("streaming", [False, True])
async def test_error_raises_the_sdk_exception(
    api: FakeMessagesAPI,
    status: int,
    exception: type[anthropic.APIStatusError],
    error_type: str,
    streaming: bool,
) -> None:
    api.script = Error(status, message="scripted failure")
    async with client(api) as sdk:
        with pytest.raises(exception) as raised:
            if streaming:
                async with sdk.messages.stream(model=MODEL, max_tokens=8, messages=USER) as s:
                    await s.get_final_message()
            else:
                await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER)
    assert raised.value.status_code == status
    assert raised.value.body == {
        "type": "error",
        "error": {"type": error_type, "message": "scripted failure"},
        "request_id": raised.value.request_id,
    }
    assert raised.value.request_id is not None
    assert raised.value.request_id.startswith("req_")
    assert len(api.requests) == 1


def test_error_headers_carry_retry_after(api: FakeMessagesAPI) -> None:
    body = json.dumps({"model": MODEL, "max_tokens": 8, "messages": USER}).encode()
    for retry_after, header in [(2, "2"), (0.001, "0.001"), (0, "0")]:
        api.script = Error(429, retry_after=retry_after)
        status, headers, _ = post(api, "/v1/messages", body)
        assert (status, headers["retry-after"]) == (429, header)
    api.script = Error(500)
    status, headers, _ = post(api, "/v1/messages", body)
    assert status == 500
    assert "retry-after" not in headers


async def test_sdk_retries_429_then_succeeds(api: FakeMessagesAPI) -> None:
    api.script = Sequence(Error(429, retry_after=0), Answer(["auth0:auth0"]))
    async with client(api, max_retries=2) as sdk:
        message = await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER)
    assert blocks(message) == [{"type": "text", "text": '{"skills": ["auth0:auth0"]}'}]
    assert len(api.requests) == 2
    assert [r.headers["x-stainless-retry-count"] for r in api.requests] == ["0", "1"]


async def test_sdk_does_not_retry_401(api: FakeMessagesAPI) -> None:
    api.script = Error(401)
    async with client(api, max_retries=2) as sdk:
        with pytest.raises(anthropic.AuthenticationError):
            await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER)
    assert len(api.requests) == 1


async def test_mid_stream_error_is_an_sse_error_event(api: FakeMessagesAPI) -> None:
    api.script = Error(529, mid_stream=True, message="Overloaded")
    async with client(api) as sdk:
        with pytest.raises(anthropic.APIStatusError) as raised:
            async with sdk.messages.stream(model=MODEL, max_tokens=8, messages=USER) as s:
                await s.get_final_message()
    body = raised.value.body
    assert isinstance(body, dict)
    assert body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "request_id": body["request_id"],
    }
    # Without streaming the same reply is a plain HTTP error.
    async with client(api) as sdk:
        with pytest.raises(anthropic.OverloadedError):
            await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER)


# ---------------------------------------------------------------------------- scripts


async def test_default_script_answers_ok(api: FakeMessagesAPI) -> None:
    async with client(api) as sdk:
        message = await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER)
    assert blocks(message) == [{"type": "text", "text": "ok"}]


def test_sequence_repeats_its_last_reply() -> None:
    request = FakeRequest(body={})
    sequence = Sequence(Error(429), lambda r: Text(f"turn {r.turn}"), Answer(["a"]))
    replies = [sequence(request) for _ in range(5)]
    assert replies == [Error(429), Text("turn 0"), Answer(["a"]), Answer(["a"]), Answer(["a"])]


async def test_script_may_be_a_list_or_a_single_reply(api: FakeMessagesAPI) -> None:
    api.script = [Text("one"), Text("two")]
    async with client(api) as sdk:
        texts = [
            first_block(
                await sdk.messages.create(model=MODEL, max_tokens=8, messages=USER),
                anthropic.types.TextBlock,
            ).text
            for _ in range(3)
        ]
    assert texts == ["one", "two", "two"]


def test_a_raising_script_answers_500_and_fails_the_block() -> None:
    def broken(request: FakeRequest) -> Reply:
        raise KeyError("auth0:auth0")

    body = json.dumps({"model": MODEL, "max_tokens": 8, "messages": USER}).encode()
    with (
        pytest.raises(RuntimeError, match="script raised") as raised,
        FakeMessagesAPI(broken) as api,
    ):
        status, _, text = post(api, "/v1/messages", body)
        assert status == 500
        assert json.loads(text)["error"]["type"] == "api_error"
    assert isinstance(raised.value.__cause__, KeyError)


# ---------------------------------------------------------------------------- the CLI's shapes


def test_accepts_what_the_cli_sends(api: FakeMessagesAPI) -> None:
    """Query string, beta headers, unknown fields and ``role: "system"`` messages."""
    body = {
        "model": "claude-opus-5-5",
        "max_tokens": 128000,
        "stream": False,
        "messages": [*CLI_MESSAGES, {"role": "system", "content": "late note"}],
        "thinking": {"type": "adaptive", "display": "updates"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        "output_config": {"effort": "medium"},
        "some_future_field": {"x": 1},
    }
    headers = {"anthropic-beta": "claude-code-20250219,effort-2025-11-24", "x-api-key": "wrong"}
    status, _, text = post(api, "/v1/messages?beta=true", json.dumps(body).encode(), headers)
    assert status == 200
    assert json.loads(text)["content"] == [{"type": "text", "text": "ok"}]
    (request,) = api.requests
    assert (request.path, request.query) == ("/v1/messages", "beta=true")
    assert request.headers["anthropic-beta"] == "claude-code-20250219,effort-2025-11-24"
    assert request.body == body


def test_count_tokens_and_unknown_paths(api: FakeMessagesAPI) -> None:
    body = {"model": MODEL, "messages": USER}
    status, _, text = post(api, "/v1/messages/count_tokens?beta=true", json.dumps(body).encode())
    assert (status, json.loads(text)) == (200, {"input_tokens": INPUT_TOKENS})
    status, _, text = post(api, "/api/event_logging/batch", b"{}")
    assert status == 404
    assert json.loads(text)["error"] == {
        "type": "not_found_error",
        "message": "Not found: /api/event_logging/batch",
    }


def test_count_tokens_and_unknown_paths_are_recorded(api: FakeMessagesAPI) -> None:
    post(api, "/v1/messages/count_tokens", json.dumps({"messages": USER}).encode())
    post(api, "/v1/unknown", b"{}")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(api.base_url + "/v1/models", timeout=10)
    assert raised.value.code == 404
    assert [(r.method, r.path, r.is_messages) for r in api.requests] == [
        ("POST", "/v1/messages/count_tokens", False),
        ("POST", "/v1/unknown", False),
        ("GET", "/v1/models", False),
    ]
    assert api.message_requests == []


def test_malformed_body_is_a_400(api: FakeMessagesAPI) -> None:
    status, _, text = post(api, "/v1/messages", b"{not json")
    assert status == 400
    assert json.loads(text)["error"]["type"] == "invalid_request_error"
    assert api.requests[0].body == {}


# Verbatim shapes from the real CLI 2.1.332 request (the environment preamble shortened).
REMINDER = (
    "<system-reminder>\nAttribution for git commits and pull requests you create from here on"
    " (...):\n- End git commit messages with:\nCo-Authored-By: Claude Opus 5.5"
    " <noreply@anthropic.com>\n</system-reminder>\n"
)
CLAUDE_API = (
    "Reference for the Claude API / Anthropic SDK — model ids, pricing, params.\n"
    "TRIGGER — read FIRST, before you answer: the prompt names Claude/Anthropic in any form.\n"
    "SKIP only when another provider is being worked on (overrides all triggers)."
)
LISTING = f"""# Environment
You have been invoked in the following environment:
 - Platform: linux

Available agent types for the Agent tool:
- claude: Catch-all for any task that doesn't fit a more specific agent. (Tools: *)

When you launch multiple agents for independent work, send them in a single message.

{MENU_HEADING}

- auth0:auth0: Use when adding login, signup, or authentication to a web app (Next.js, React, Express) with Auth0.
- loop: Run a prompt on a recurring interval (e.g. /loop 5m /foo). - When the user wants to poll for status. Do NOT invoke for one-off tasks.
- claude-api: {CLAUDE_API}
- security-review: Complete a security review of the pending changes on the current branch

Today's date is 2026-11-30."""  # noqa: E501 - menu lines are one line each, as the CLI sends them
CLI_MESSAGES: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": REMINDER},
            {"type": "text", "text": "Add login to my Next.js app"},
        ],
    },
    {
        "role": "system",
        "content": [{"type": "text", "text": LISTING, "cache_control": {"type": "ephemeral"}}],
        "output_config": {"effort": "medium"},
    },
]
CLI_MENU = {
    "auth0:auth0": "Use when adding login, signup, or authentication to a web app (Next.js,"
    " React, Express) with Auth0.",
    "loop": "Run a prompt on a recurring interval (e.g. /loop 5m /foo). - When the user wants to"
    " poll for status. Do NOT invoke for one-off tasks.",
    "claude-api": CLAUDE_API,
    "security-review": "Complete a security review of the pending changes on the current branch",
}
CLI_TOOLS = [{"name": n, "input_schema": {"type": "object"}} for n in ("Agent", "Read", "Skill")]
SUBAGENT_SYSTEM = [
    {
        "type": "text",
        "text": "x-anthropic-billing-header: cc_version=2.1.332.0b9; cc_entrypoint=sdk-cli;"
        " cc_is_subagent=true;",
    },
    {"type": "text", "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK."},
]


def test_parses_the_cli_first_turn() -> None:
    request = FakeRequest(
        body={
            "model": "claude-opus-5-5",
            "messages": CLI_MESSAGES,
            "tools": CLI_TOOLS,
            "stream": True,
            "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332"}],
        }
    )
    assert request.prompt == "Add login to my Next.js app"
    assert request.menu == CLI_MENU
    assert request.tool_names == ["Agent", "Read", "Skill"]
    assert (request.turn, request.stream, request.schema, request.model) == (
        0,
        True,
        None,
        "claude-opus-5-5",
    )
    assert (request.is_main_loop, request.is_subagent, request.tool_results) == (True, False, [])


def test_parses_a_later_cli_turn() -> None:
    """On later turns the listing message is a plain string, and tool results pile up."""
    result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "Launching skill: x"}
    messages = [
        CLI_MESSAGES[0],
        {"role": "system", "content": LISTING},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "Skill", "input": {}}],
        },
        {"role": "user", "content": [result, {"type": "text", "text": "Base directory: /x"}]},
    ]
    request = FakeRequest(
        body={"messages": messages, "tools": CLI_TOOLS, "system": SUBAGENT_SYSTEM}
    )
    assert request.prompt == "Add login to my Next.js app"
    assert request.menu == CLI_MENU
    assert (request.turn, request.tool_results) == (1, [result])
    assert request.is_subagent is True


def test_parses_a_stage_a_style_request() -> None:
    """Menu in the system string, plain-string prompt, structured-output schema."""
    schema = {"type": "object", "properties": {"skills": {"type": "array"}}}
    system = f"Pick skills.\n{MENU_HEADING}\n- auth0:auth0: Use for auth.\n- charts: Plot data."
    request = FakeRequest(
        body={
            "model": MODEL,
            "system": system,
            "messages": [{"role": "user", "content": "  add a login page  "}],
            "output_config": {"format": {"type": "json_schema", "schema": schema}},
        }
    )
    assert request.prompt == "add a login page"
    assert request.menu == {"auth0:auth0": "Use for auth.", "charts": "Plot data."}
    assert request.schema == schema
    assert (request.stream, request.tool_names, request.is_main_loop) == (False, [], False)


def test_menu_heading_without_listing_and_repeated_listings() -> None:
    first = f"{MENU_HEADING}\n- a: first\n  wrapped\n\n- b: after the blank line, not listed"
    second = f"{MENU_HEADING}\n\n- a: second listing\n  ignored wrap\n- c: new\n"
    empty = f"{MENU_HEADING}\nNo skills today.\n- d: not a listing"
    request = FakeRequest(
        body={
            "system": [{"type": "text", "text": first}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": second}]},
                {"role": "user", "content": empty},
            ],
        }
    )
    assert request.menu == {"a": "first\nwrapped", "c": "new"}


def test_prompt_skips_reminder_only_messages() -> None:
    request = FakeRequest(
        body={
            "messages": [
                {"role": "system", "content": "not the user"},
                {"role": "user", "content": [{"type": "text", "text": REMINDER}]},
                {"role": "user", "content": f"{REMINDER}fix the build"},
            ]
        }
    )
    assert request.prompt == "fix the build"


async def test_fake_sees_the_sdk_request(api: FakeMessagesAPI) -> None:
    schema = {
        "type": "object",
        "properties": {"skills": {"type": "array", "items": {"type": "string"}}},
        "required": ["skills"],
        "additionalProperties": False,
    }
    api.script = lambda r: Answer(sorted(r.menu)) if r.schema == schema else Text("no schema")
    async with client(api) as sdk:
        message = await sdk.messages.create(
            model=MODEL,
            max_tokens=64,
            system=[{"type": "text", "text": f"{MENU_HEADING}\n- zeta: z\n- alpha: a"}],
            messages=[{"role": "user", "content": [{"type": "text", "text": "hello there"}]}],
            output_config={"format": {"type": "json_schema", "schema": schema}},
        )
    assert blocks(message) == [{"type": "text", "text": '{"skills": ["alpha", "zeta"]}'}]
    (request,) = api.requests
    assert (request.prompt, request.model, request.stream) == ("hello there", MODEL, False)
    assert request.menu == {"zeta": "z", "alpha": "a"}


# ---------------------------------------------------------------------------- concurrency


async def test_latency_does_not_serialize_requests(api: FakeMessagesAPI) -> None:
    api.latency = 0.3
    async with client(api) as sdk:
        replies = await asyncio.gather(
            *(sdk.messages.create(model=MODEL, max_tokens=8, messages=USER) for _ in range(64))
        )
    assert len(replies) == 64
    assert api.max_in_flight == 64
    assert api.in_flight == 0


async def test_latency_may_depend_on_the_request(api: FakeMessagesAPI) -> None:
    api.latency = lambda request: 0.3 if request.prompt == "slow" else 0.0
    api.script = lambda request: Text(request.prompt)
    finished: list[str] = []
    async with client(api) as sdk:

        async def ask(prompt: str) -> None:
            messages: list[anthropic.types.MessageParam] = [{"role": "user", "content": prompt}]
            message = await sdk.messages.create(model=MODEL, max_tokens=8, messages=messages)
            finished.extend(block.text for block in message.content if block.type == "text")

        await asyncio.gather(ask("slow"), ask("fast"))
    assert finished == ["fast", "slow"]


# --- prompt caching --------------------------------------------------------------------

LONG_SYSTEM = "x" * 8000  # 2,000 tokens at 4 characters a token


def cached_body(system: str, prompt: str, marked: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": system}
    if marked:
        block["cache_control"] = {"type": "ephemeral"}
    return {"model": "m", "system": [block], "messages": [{"role": "user", "content": prompt}]}


def test_a_marked_prefix_is_written_once_then_read() -> None:
    cache = PromptCache(min_tokens=1024)
    first = cache.bill(cached_body(LONG_SYSTEM, "one"), arrived=0.0)
    later = time.monotonic() + 1
    second = cache.bill(cached_body(LONG_SYSTEM, "two, a longer prompt"), arrived=later)
    prefix = estimate_tokens({"system": [cached_body(LONG_SYSTEM, "")["system"][0]],
                              "messages": [], "tools": []})  # fmt: skip
    assert first == Tokens(input=first.input, cache_write=prefix)
    assert second == Tokens(input=second.input, cache_read=prefix)
    assert second.input > first.input  # only the uncached part grows with the prompt
    other_model = {**cached_body(LONG_SYSTEM, "one"), "model": "other"}
    assert cache.bill(other_model, arrived=later).cache_write == prefix


def test_what_is_not_marked_or_too_short_is_never_cached() -> None:
    cache = PromptCache(min_tokens=1024)
    for _ in range(2):
        plain = cache.bill(cached_body(LONG_SYSTEM, "p", marked=False), time.monotonic() + 1)
        assert (plain.cache_write, plain.cache_read) == (0, 0)
        short = cache.bill(cached_body("short", "p"), time.monotonic() + 1)
        assert (short.cache_write, short.cache_read) == (0, 0)


def test_requests_sent_together_each_write_the_prefix() -> None:
    cache = PromptCache(min_tokens=1024)
    sent = time.monotonic()
    both = [cache.bill(cached_body(LONG_SYSTEM, p), arrived=sent) for p in ("a", "b")]
    assert [tokens.cache_read for tokens in both] == [0, 0]
    assert all(tokens.cache_write for tokens in both)


def test_the_sdk_sees_cache_tokens_in_usage(api: FakeMessagesAPI) -> None:
    api.script = Text("ok")

    async def ask(prompt: str) -> Any:
        async with AsyncAnthropic(base_url=api.base_url, api_key="k", max_retries=0) as client:
            body = cached_body(LONG_SYSTEM, prompt)
            return await client.messages.create(max_tokens=10, **body)

    first, second = (asyncio.run(ask(prompt)) for prompt in ("a", "b"))
    assert (first.usage.cache_creation_input_tokens, first.usage.cache_read_input_tokens) == (
        second.usage.cache_read_input_tokens, 0,
    )  # fmt: skip
    assert first.usage.cache_creation_input_tokens > 1024
