"""Where the real CLI put its skill listing in a request it sent the stand-in."""

from __future__ import annotations

from typing import Any

from activation.trials.agents.claude_code.listing import packaged_rules


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block.get("type") == "text"]


def sent_listing(body: dict[str, Any]) -> tuple[str, str]:
    """Where the listing went ("system" or "user") and the exact text that holds it: the
    section of the system message between its "\\n\\n" separators, or the whole user block."""
    heading = packaged_rules().heading
    found = [
        (message["role"], text)
        for message in body["messages"]
        for text in texts(message)
        if heading in text
    ]
    assert len(found) == 1, found
    role, text = found[0]
    if role == "user":
        return role, text
    start = text.index(heading)
    assert start == 0 or text[start - 2 : start] == "\n\n"
    end = text.find("\n\n", start + len(heading) + 2)
    return role, text[start : end if end >= 0 else len(text)]
