"""Reading Stage A's answer: the chosen skill names, or why there is none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from activation.trials.providers.asking import Unanswered, answer_payload


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
