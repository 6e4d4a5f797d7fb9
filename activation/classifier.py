"""Stage A: ask a model, as a classifier, which skills of a menu it would invoke.

The answer is a JSON-schema structured output (models that think by default reject forced
tool calls). The SDK retries 408/409/429/5xx itself, honouring `retry-after`; what still
fails after that, or cannot be parsed after one re-ask, becomes an error trial.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anthropic
import orjson

from activation.errors import AuthError
from activation.menu import MenuEntry, build_menu, permutation, render_menu
from activation.trial import Trial, TrialKey, Usage

DEFAULT_MODEL = "claude-sonnet-5-5"
MAX_TOKENS = 4096

INSTRUCTIONS = """\
You are the skill router of an AI coding agent. The agent has skills: packaged instructions \
it loads with the Skill tool when a user's request matches what a skill says it is for. \
The user's request follows. Decide which skills the agent would invoke with the Skill tool \
before doing anything else for this request: only skills whose description fits the \
request, possibly none. Answer with the names exactly as listed.

{menu}"""


def answer_schema(names: Sequence[str]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "skills": {"type": "array", "items": {"type": "string", "enum": sorted(set(names))}}
        },
        "required": ["skills"],
        "additionalProperties": False,
    }


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


@dataclass(frozen=True)
class ClassifierConfig:
    model: str
    seed: int
    target_id: str
    descriptions: Mapping[str, str]
    """Variant name to the target's description: the only thing that differs."""
    distractors: tuple[MenuEntry, ...]


class Classifier:
    """The Stage A trial runner over one shared `AsyncAnthropic` client."""

    def __init__(self, client: anthropic.AsyncAnthropic, config: ClassifierConfig) -> None:
        self._client = client
        self._config = config

    def menu(self, key: TrialKey) -> tuple[MenuEntry, ...]:
        config = self._config
        target = MenuEntry(config.target_id, config.descriptions[key.variant])
        order = permutation(config.seed, key.case.id, key.index, len(config.distractors) + 1)
        return build_menu(target, config.distractors, order)

    async def __call__(self, key: TrialKey) -> Trial:
        menu = self.menu(key)
        names = [entry.name for entry in menu]
        usage = Usage()
        problem = ""
        for _attempt in range(2):
            try:
                response = await self._client.messages.create(
                    model=self._config.model,
                    max_tokens=MAX_TOKENS,
                    system=INSTRUCTIONS.format(menu=render_menu(menu)),
                    messages=[{"role": "user", "content": key.case.prompt}],
                    output_config={
                        "format": {"type": "json_schema", "schema": answer_schema(names)}
                    },
                )
            except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as error:
                raise AuthError(
                    f"the API refused the credentials (HTTP {error.status_code}); "
                    "check ANTHROPIC_API_KEY"
                ) from None
            except anthropic.APIStatusError as error:
                usage += Usage(requests=1)
                return Trial(key, None, error=f"API error HTTP {error.status_code}", usage=usage)
            except anthropic.APIConnectionError as error:
                usage += Usage(requests=1)
                kind = "timed out" if isinstance(error, anthropic.APITimeoutError) else "failed"
                return Trial(key, None, error=f"connection {kind}", usage=usage)
            usage += Usage(1, response.usage.input_tokens, response.usage.output_tokens)
            try:
                chosen = parse_answer(
                    [block.model_dump() for block in response.content],
                    response.stop_reason,
                    names,
                )
            except Unanswered as error:
                problem = str(error)
                continue
            activated = self._config.target_id in chosen
            evidence = f"chose {', '.join(chosen) if chosen else 'nothing'}"
            return Trial(key, activated, evidence=evidence, usage=usage)
        return Trial(key, None, error=f"unusable answer after a re-ask ({problem})", usage=usage)
