"""A local stand-in for an OpenAI-compatible Chat Completions server (vLLM, llama.cpp's
server), served over real HTTP on 127.0.0.1 (local_server.py), for `--model
openai-compatible:<id>`: the `openai` SDK posts to `<base URL>/chat/completions`.

A *script* (a callable `ChatRequest -> Reply`) decides every answer: one `chat.completion`
object (`Answer`), or an HTTP error with an error body (`Error`). With `key` set it refuses
any other bearer token with 401, as such a server started with `--api-key` does.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.support.local_server import StandIn

PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class ChatRequest:
    """One request the stand-in received."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    path: str = PATH
    method: str = "POST"

    def _text(self, role: str) -> str:
        found = [
            str(message.get("content", ""))
            for message in self.body.get("messages") or ()
            if isinstance(message, dict) and message.get("role") == role
        ]
        return found[-1] if found else ""

    @property
    def system(self) -> str:
        return self._text("system")

    @property
    def prompt(self) -> str:
        return self._text("user")


@dataclass(frozen=True)
class Answer:
    """The assistant's message: `text`, ended by `finish_reason` ("length": cut off)."""

    text: str
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Error:
    """An HTTP error with an OpenAI-style error body."""

    status: int
    message: str = "error"


@dataclass(frozen=True)
class Tokens:
    """The usage every completion reports."""

    prompt: int
    completion: int


Reply: TypeAlias = Answer | Error
Script: TypeAlias = Callable[[ChatRequest], Reply]


class FakeChatAPI(StandIn):
    """A scripted Chat Completions server on `127.0.0.1:<free port>`; a context manager.
    Unset, the script answers every request `Answer("ok")`; a script that raises answers
    500 and makes `__exit__` raise."""

    def __init__(
        self, script: Script | None = None, tokens: Tokens | None = None, key: str | None = None
    ) -> None:
        super().__init__("fake-chat-api")
        self.script: Script = script or (lambda _request: Answer("ok"))
        self.tokens = tokens or Tokens(prompt=300, completion=9)
        self.key = key
        self._requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    @property
    def requests(self) -> list[ChatRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def base_url_v1(self) -> str:
        """The base URL a user sets for such a server: its OpenAI API root."""
        return f"{self.base_url}/v1"

    async def _handle(self, http: Request) -> Response:
        raw = await http.body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        request = ChatRequest(
            body=body if isinstance(body, dict) else {},
            headers=dict(http.headers),
            path=http.url.path,
            method=http.method,
        )
        with self._lock:
            self._requests.append(request)
        if (request.method, request.path) != ("POST", PATH):
            return _error(404, f"not found: {request.path}")
        if self.key is not None and request.headers.get("authorization") != f"Bearer {self.key}":
            return _error(401, "Unauthorized")
        try:
            reply = self.script(request)
        except Exception as exc:
            self._script_errors.append(exc)
            return _error(500, f"fake script raised: {exc!r}")
        if isinstance(reply, Error):
            return _error(reply.status, reply.message)
        return JSONResponse(self._completion(request, reply))

    def _completion(self, request: ChatRequest, reply: Answer) -> dict[str, Any]:
        message = {"role": "assistant", "content": reply.text, "tool_calls": []}
        choice = {"index": 0, "message": message, "logprobs": None,
                  "finish_reason": reply.finish_reason}  # fmt: skip
        usage = {
            "prompt_tokens": self.tokens.prompt,
            "completion_tokens": self.tokens.completion,
            "total_tokens": self.tokens.prompt + self.tokens.completion,
        }
        return {
            "id": f"chatcmpl-{secrets.token_hex(12)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", "fake"),
            "choices": [choice],
            "usage": usage,
        }


def _error(status: int, message: str) -> JSONResponse:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": status}}
    return JSONResponse(body, status_code=status)
