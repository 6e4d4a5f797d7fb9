"""Reading Stage A's answer: the chosen skill names, or why there is none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson


class Unanswered(Exception):
    """The response holds no usable answer (refusal, truncation, malformed JSON)."""


def answer_payload(content: Sequence[Mapping[str, object]]) -> object:
    """The answer object: a tool call's input, else the JSON in the text blocks.

    Thinking blocks come first and are skipped; JSON wrapped in prose or a code fence is
    still read, since some models and gateways ignore the output format.
    """
    for block in content:
        if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            return block["input"]
    text = "".join(str(block.get("text", "")) for block in content if block.get("type") == "text")
    start, end = text.find("{"), text.rfind("}")
    for candidate in (text, text[start : end + 1] if 0 <= start < end else None):
        if candidate is None:
            continue
        try:
            return orjson.loads(candidate)
        except orjson.JSONDecodeError:
            continue
    raise Unanswered(f"not JSON: {text[:80]!r}")


def parse_answer(
    content: Sequence[Mapping[str, object]], stop_reason: str | None, names: Sequence[str]
) -> tuple[str, ...]:
    """The chosen skill names; a refusal or a truncated answer is no answer."""
    if stop_reason in ("refusal", "max_tokens"):
        raise Unanswered(f"stop reason {stop_reason}")
    data = answer_payload(content)
    chosen = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(chosen, list) or not all(isinstance(name, str) for name in chosen):
        raise Unanswered(f"no 'skills' list: {orjson.dumps(data).decode()[:80]!r}")
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        raise Unanswered(f"names not on the menu: {', '.join(unknown)}")
    return tuple(chosen)
