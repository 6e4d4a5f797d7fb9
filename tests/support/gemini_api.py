"""A local stand-in for the Gemini API, served over real HTTP on 127.0.0.1 (local_server.py):
what Gemini CLI (`GOOGLE_GEMINI_BASE_URL`) and Google's `google-genai` SDK (`--model
google:<id>`) post to.

Both routes of a model are served, under any API version: `POST
/v1beta/models/<model>:streamGenerateContent?alt=sse` (the CLI's: server-sent events, one
`data:` line per chunk) and `/v1/models/<model>:generateContent` (the Python SDK's: one JSON
object). A *script* (a callable `GeminiRequest -> Reply`) decides every
answer: text (`Text`), a function call (`Call`), or an HTTP error with the API's error body
(`Error`, with the API's `RetryInfo` delay when given). With `key` set a request whose
`x-goog-api-key` is another is refused as the real API refuses a bad key: HTTP 400,
`INVALID_ARGUMENT`, reason `API_KEY_INVALID`. `latency` (seconds, or a callable of the
request) delays an answer, so a run can be left hanging.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.support.canary_agent import canary_file, reading_call
from tests.support.local_server import StandIn

ROUTE = re.compile(
    r"/v1\w*/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)"
)
BAD_KEY = "API key not valid. Please pass a valid API key."


@dataclass(frozen=True)
class GeminiRequest:
    """One request the stand-in received."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    path: str = ""
    method: str = "POST"
    model: str = ""
    stream: bool = False

    @property
    def system(self) -> str:
        """The system instruction's text (all its parts)."""
        instruction = self.body.get("systemInstruction") or {}
        parts = instruction.get("parts") if isinstance(instruction, dict) else None
        return "".join(str(part.get("text", "")) for part in parts or () if isinstance(part, dict))

    @property
    def tool_names(self) -> list[str]:
        return [
            str(declaration.get("name"))
            for tool in self.body.get("tools") or ()
            for declaration in tool.get("functionDeclarations") or ()
        ]

    @property
    def contents(self) -> list[dict[str, Any]]:
        contents = self.body.get("contents") or []
        return [content for content in contents if isinstance(content, dict)]

    @property
    def prompt(self) -> str:
        """The user's prompt: the last text part of the first user turn (Gemini CLI puts its
        session context in a part before it)."""
        for content in self.contents:
            if content.get("role") == "user":
                texts = [str(p["text"]) for p in content.get("parts") or () if "text" in p]
                return texts[-1] if texts else ""
        return ""

    @property
    def turn(self) -> int:
        """How many model turns came before this request."""
        return sum(1 for content in self.contents if content.get("role") == "model")

    @property
    def function_responses(self) -> list[dict[str, Any]]:
        """Every `functionResponse` part sent back, first first."""
        return [
            part["functionResponse"]
            for content in self.contents
            for part in content.get("parts") or ()
            if isinstance(part, dict) and "functionResponse" in part
        ]


@dataclass(frozen=True)
class Text:
    """The model's answer as text."""

    text: str


@dataclass(frozen=True)
class Call:
    """The model calls `name` with `args`."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Error:
    """An HTTP error with the Gemini API's error body; `retry_delay` (a duration such as
    "0.001s") adds the `RetryInfo` detail the API sends when it says when to try again."""

    status: int
    message: str = "error"
    reason: str = "INTERNAL"
    retry_delay: str | None = None


@dataclass(frozen=True)
class Tokens:
    """The usage every answer reports."""

    prompt: int = 20
    candidates: int = 10


Reply: TypeAlias = Text | Call | Error
Script: TypeAlias = Callable[[GeminiRequest], Reply]
STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
                503: "UNAVAILABLE"}  # fmt: skip


class FakeGeminiAPI(StandIn):
    """A scripted Gemini API on `127.0.0.1:<free port>`; a context manager. Unset, the
    script answers `Text("ok")`; a script that raises answers 500 and makes `__exit__`
    raise."""

    def __init__(
        self,
        script: Script | None = None,
        tokens: Tokens | None = None,
        key: str | None = None,
        latency: float | Callable[[GeminiRequest], float] = 0.0,
    ) -> None:
        super().__init__("fake-gemini-api")
        self.latency = latency
        self.script: Script = script or (lambda _request: Text("ok"))
        self.tokens = tokens or Tokens()
        self.key = key
        self._requests: list[GeminiRequest] = []
        self._lock = threading.Lock()

    @property
    def requests(self) -> list[GeminiRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    async def _handle(self, http: Request) -> Response:
        raw = await http.body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        found = ROUTE.fullmatch(http.url.path)
        request = GeminiRequest(
            body=body if isinstance(body, dict) else {},
            headers=dict(http.headers),
            path=http.url.path,
            method=http.method,
            model=found["model"] if found else "",
            stream=found is not None and found["method"] == "streamGenerateContent",
        )
        with self._lock:
            canary = canary_file(self, request.prompt) is not None
            (self.canary_requests if canary else self._requests).append(request)
        if http.method != "POST" or found is None:
            return _error(Error(404, f"not found: {request.path}", "NOT_FOUND"))
        delay = self.latency(request) if callable(self.latency) else self.latency
        if delay:
            await asyncio.sleep(delay)
        if self.key is not None and request.headers.get("x-goog-api-key") != self.key:
            return _error(Error(400, BAD_KEY, "API_KEY_INVALID"))
        try:
            reply = self._canary(request) or self.script(request)
        except Exception as exc:
            self._script_errors.append(exc)
            return _error(Error(500, f"fake script raised: {exc!r}"))
        if isinstance(reply, Error):
            return _error(reply)
        answer = self._answer(request, reply)
        if not request.stream:
            return JSONResponse(answer)
        return Response(f"data: {json.dumps(answer)}\r\n\r\n", media_type="text/event-stream")

    def _canary(self, request: GeminiRequest) -> Text | Call | None:
        """The agent canary's answer: its file read with `read_file`, then a text (None:
        not the canary's prompt, or no reading tool offered)."""
        path = canary_file(self, request.prompt)
        call = None if path is None else reading_call(request.tool_names, path)
        if call is None:
            return None
        return Text("Done.") if request.function_responses else Call(*call)

    def _answer(self, request: GeminiRequest, reply: Text | Call) -> dict[str, Any]:
        part: dict[str, Any] = (
            {"text": reply.text}
            if isinstance(reply, Text)
            else {"functionCall": {"name": reply.name, "args": reply.args}}
        )
        usage = {
            "promptTokenCount": self.tokens.prompt,
            "candidatesTokenCount": self.tokens.candidates,
            "totalTokenCount": self.tokens.prompt + self.tokens.candidates,
        }
        candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                     "index": 0}  # fmt: skip
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": request.model}


def _error(error: Error) -> JSONResponse:
    status = STATUS_NAMES.get(error.status, "UNKNOWN")
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": error.reason,
            "domain": "googleapis.com"}  # fmt: skip
    details: list[dict[str, str]] = [info]
    if error.retry_delay is not None:
        retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                 "retryDelay": error.retry_delay}  # fmt: skip
        details.append(retry)
    body = {"error": {"code": error.status, "message": error.message, "status": status,
                      "details": details}}  # fmt: skip
    return JSONResponse(body, status_code=error.status)
