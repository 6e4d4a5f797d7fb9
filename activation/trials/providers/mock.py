"""The mock model (`--model mock`): Stage A offline, with no key, free, in the blink of an
eye; the record and the client together. It has no batches.

It answers the very request a real model would get, in the Messages API's shape, so the
whole pipeline runs (the menu, the structured answer and its parsing, the cache, every
verdict, report and exit code). Its rule is plain word overlap: it picks the menu entry that
shares the most content words with the prompt (the words `lint` counts: not stop words),
when it shares at least MIN_SHARED of them; on a tie, the entry listed first in this trial's
menu order, which is shuffled per trial, so a tied case can come out unstable. The verdicts
say how a description's words meet the prompts' words, and nothing about any real agent:
every output says so.

It answers a behavior judge's yes/no question (`--judge-model mock`) by the same rule:
YES when the workspace's files (their paths and text) hold at least MIN_SHARED of the
question's content words (all of them, when it has fewer), and says so in its reasoning.

It proposes descriptions for `suggest` too, as plainly: the current description with words
added that the failing groups' tags and the skill's body hold and it lacks (`propose`), so a
search on the mock runs every step, offline, and finds what word overlap rewards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Self

import orjson

from activation._errors import InputError
from activation._models import ModelRef, Prices, Usage
from activation.inputs.words import content_words, is_content, spans
from activation.trials.classifier.prompt import menu_entries, system_text, user_prompt
from activation.trials.providers import NO_COUNTING, ModelProvider, Uncounted
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, Throttled

MODEL = "mock"
KIND = "mock"
MIN_SHARED = 2
ADDED = 3
"""Words each mock proposal adds to the current description."""
_INSTRUCTIONS = re.compile(
    r"Its current description:\n(?P<current>.*?)\n\nIts SKILL\.md body[^\n]*\n(?P<body>.*?)"
    r"\n\nThe other skills.*?How the current description fails[^\n]*\n(?P<failures>.*?)"
    r"\n\nRules:\n- Propose (?P<count>\d+) ",
    re.DOTALL,
)
"""The parts of the proposer's instructions (inputs/proposals.py) the mock proposes from."""
_JUDGED = re.compile(
    r"\AQuestion: (?P<question>.*?)\n\n(?:Examples of how to answer:\n.*?\n\n)?"
    r"(?:The workspace's files:\n\n(?P<files>.*)|The workspace has no files\.)\Z",
    re.DOTALL,
)
"""A judge's question and the files it is about (trials/behavior/judge.py's request)."""
_FILE_TAG = re.compile(r'<file path="(?P<path>[^"]*)">|</file>')
NOTICE = (
    "answers from the mock model (word overlap, offline): the verdicts show how the "
    "pipeline works and mean nothing about the real agent"
)


def choose(prompt: str, entries: list[tuple[str, str]]) -> list[str]:
    """The entry sharing the most content words with the prompt (at least MIN_SHARED)."""
    words = content_words(prompt)
    best, best_shared = None, MIN_SHARED - 1
    for name, description in entries:
        shared = len(words & content_words(f"{name} {description}"))
        if shared > best_shared:
            best, best_shared = name, shared
    return [] if best is None else [best]


def propose(instructions: str) -> list[str]:
    """The current description, each time with ADDED more of the words it lacks: first the
    failing groups' tags, then the body's content words, in their order; none when the
    instructions are not the proposer's or no word is left to add."""
    found = _INSTRUCTIONS.search(instructions)
    if found is None:
        return []
    current = found["current"].strip()
    tags = re.findall(r"tagged '([^']+)'", found["failures"])
    have = content_words(current)
    source = f"{' '.join(tags)} {found['body']}"
    written: dict[str, str] = {}  # each word once, as it is compared, spelt as written
    for word, start, end in spans(source):
        if is_content(word) and not word.isdigit() and word not in have:
            written.setdefault(word, source[start:end].lower())
    new = list(written.values())
    cuts = [new[start : start + ADDED] for start in range(0, len(new), ADDED)]
    return [f"{current} Also for {', '.join(cut)}." for cut in cuts[: int(found["count"])]]


def judge(request_text: str) -> dict[str, str]:
    """A judge's structured answer: YES when the files hold at least MIN_SHARED of the
    question's content words (all, when it has fewer; never for none), with the count as its
    reasoning."""
    found = _JUDGED.match(request_text)
    question = found["question"] if found else request_text
    files = _FILE_TAG.sub(r" \g<path> ", found["files"] or "") if found else ""
    asked = content_words(question)
    held = len(asked & content_words(files))
    verdict = "YES" if held and held >= min(MIN_SHARED, len(asked)) else "NO"
    reasoning = (
        f"mock judge (word overlap, offline): the files hold {held} of the question's "
        f"{len(asked)} content words"
    )
    return {"reasoning": reasoning, "verdict": verdict}


def asks_for(request: Mapping[str, Any]) -> str | None:
    """What the request's structured answer holds: `descriptions` (the proposer's),
    `verdict` (a judge's), else None (the classifier's skills)."""
    schema = ((request.get("output_config") or {}).get("format") or {}).get("schema") or {}
    properties = schema.get("properties") or {}
    return next((key for key in ("descriptions", "verdict") if key in properties), None)


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    data: Mapping[str, object]
    asked = asks_for(request)
    if asked == "descriptions":
        data = {"descriptions": propose(user_prompt(request))}
    elif asked == "verdict":
        data = judge(user_prompt(request))
    else:
        data = {"skills": choose(user_prompt(request), menu_entries(system_text(request)))}
    return {
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": orjson.dumps(data).decode()}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


class MockModel:
    kind = KIND

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        return Reply(Usage(requests=1, cost_usd=0.0), message=answer(request))


class Mock:
    name = "mock"
    key_variables: tuple[str, ...] = ()
    default_url: str | None = None
    api = "none"
    url_variable: str | None = None
    batches = False
    free: str | None = "the mock model is free"
    proposes = True

    def check(self, model: ModelRef) -> None:
        if model.id != MODEL:
            raise InputError(f"--model mock:{model.id}: the mock has one model: pass --model mock")

    def preflight(self, *, calls: bool) -> None:
        return None

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return NOTICE

    def asker(self, prices: Prices | None) -> Asker:
        return MockModel()


PROVIDER: ModelProvider = Mock()
