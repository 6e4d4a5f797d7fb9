"""A stand-in model that answers a case's second prompt (examples/behavior/turns): the agent
CLI sends the whole conversation again, so the script keys on the latest prompt of the
user's, not on the first. After the second prompt the model reads app.py once with the
agent's own read tool, then says it checked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from tests.support import gemini_api, messages_api, responses_api

TURNS_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior" / "turns"
SECOND = "Read app.py once more"
"""How the case's second prompt starts."""
CHECKED = "Checked: welcome_banner() escapes the display name."

Script = Callable[[Any], Any]


def _said(item: object) -> bool:
    return SECOND in orjson.dumps(item).decode()


def replies_since_second(request: Any) -> int | None:
    """How many model replies the conversation holds after the second prompt (None: the
    latest prompt is not the second, or the request is no conversation's)."""
    if isinstance(request, messages_api.FakeRequest):
        items, user, model = request.messages, "user", "assistant"
    elif isinstance(request, responses_api.ResponsesRequest):
        items, user, model = request.input, "user", "call"
    elif isinstance(request, gemini_api.GeminiRequest):
        items, user, model = request.contents, "user", "model"
    else:
        return None
    asked = [i for i, item in enumerate(items) if item.get("role") == user and _said(item)]
    if not asked:
        return None
    after = items[asked[-1] + 1 :]
    if model == "call":
        return sum(1 for item in after if str(item.get("type", "")).endswith("call"))
    return sum(1 for item in after if item.get("role") == model)


def answers_second(task: Script, reads: Script, text: Callable[[str], Any]) -> Script:
    """`task` for everything but the second prompt's turn, where the model `reads` app.py
    and then says it checked."""

    def script(request: Any) -> Any:
        replies = replies_since_second(request)
        if replies is None:
            return task(request)
        return reads(request) if replies == 0 else text(CHECKED)

    return script
