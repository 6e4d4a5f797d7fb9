"""The one path every model call takes (`call`), through the in-process scripted provider:
the single re-ask, what is never asked again, the usage of every attempt, the response
cache (a usable answer kept, an error never), and the one request hasher whose keys stay
those earlier versions wrote. Then callers on it: the proposer and the Stage C judge (Stage
A through the CLI: tests/commands/test_scripted_provider.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import anyio
import orjson
import pytest

from activation._models import Prices, Usage
from activation.graders.base import Votes
from activation.trials.backend import request_digest
from activation.trials.behavior.judge import JUDGE_KIND, ask_judge
from activation.trials.behavior.workspace import Workspace
from activation.trials.providers.asking import (
    Answer,
    Kept,
    Reply,
    Unanswered,
    call,
    reply_text,
)
from activation.trials.providers.scripted import Scripted
from activation.trials.suggest.proposer import KIND, Proposed, propose, proposer_request
from tests.support.scripted_provider import registered
from tests.trials.test_cache import MemoryStore

REQUEST: dict[str, Any] = {"model": "scripted:m", "max_tokens": 10,
                           "messages": [{"role": "user", "content": "say yes"}]}  # fmt: skip
PRICES = Prices(input=1.0, output=2.0, cache_write=1.25, cache_read=0.1)
ONE = Usage(requests=1, input_tokens=10, output_tokens=5, cost_usd=(10 * 1.0 + 5 * 2.0) / 1e6)
"""One scripted answer's usage at PRICES."""


def yes(message: Mapping[str, Any]) -> bool:
    """A reader: True for a reply that says `yes`, Unanswered for any other."""
    if reply_text(message) != "yes":
        raise Unanswered(f"not yes: {reply_text(message)!r}")
    return True


def asked(provider: Scripted, kept: Kept[bool] | None = None) -> Answer[bool]:
    async def one() -> Answer[bool]:
        async with provider.asker(PRICES) as asker:
            return await call(asker, REQUEST, yes, kept=kept)

    return anyio.run(one)


def test_an_unusable_answer_is_asked_again_once_and_both_attempts_are_counted() -> None:
    provider = Scripted("s", ["maybe", "yes"])
    assert asked(provider) == Answer(True, ONE + ONE)
    assert provider.asked == [REQUEST, REQUEST]


def test_two_unusable_answers_are_no_answer_and_a_third_is_never_asked() -> None:
    provider = Scripted("s", ["maybe", "perhaps"])
    found = asked(provider)
    assert found == Answer(None, ONE + ONE, "unusable answer after a re-ask (not yes: 'perhaps')")
    assert len(provider.asked) == 2


def test_a_failed_request_is_not_asked_again_but_a_reply_that_is_not_json_is() -> None:
    failed = Reply(Usage(requests=1), problem="API error HTTP 500")
    provider = Scripted("s", [failed])
    assert asked(provider) == Answer(None, Usage(requests=1), "API error HTTP 500")
    garbled = Reply(Usage(requests=1), problem="the response is not JSON", again=True)
    provider = Scripted("s", [garbled, "yes"])
    assert asked(provider) == Answer(True, Usage(requests=1) + ONE)
    garbled_twice = Scripted("s", [garbled, garbled])
    assert asked(garbled_twice) == Answer(
        None, Usage(requests=2), "unusable answer after a re-ask (the response is not JSON)"
    )


def test_a_usable_answer_is_kept_and_served_free_and_an_error_never_is() -> None:
    store = MemoryStore()
    kept = Kept(store, "k", "said", lambda value: value if isinstance(value, bool) else None)
    assert asked(Scripted("s", ["no", "nope"]), kept).value is None
    assert store.entries == {}
    assert asked(Scripted("s", ["yes"]), kept) == Answer(True, ONE)
    assert store.entries == {"k": {"said": True, "usage": asdict(ONE)}}
    again = Scripted("s", [])
    assert asked(again, kept) == Answer(True, Usage(cost_usd=0.0), cached=True)
    assert again.asked == []
    store.entries["k"] = {"said": "not a bool"}  # not a valid answer: asked again
    assert asked(Scripted("s", ["yes"]), kept) == Answer(True, ONE)


def test_one_hasher_keeps_the_keys_earlier_versions_wrote() -> None:
    """The proposer's and the judge's keys were hashed apart once: the same bytes still."""
    request = {"model": "m", "max_tokens": 1}

    def sha(body: dict[str, Any]) -> str:
        return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()

    assert request_digest(KIND, request) == sha({"kind": KIND, "request": request})
    assert request_digest(JUDGE_KIND, request, judge="j") == sha(
        {"kind": JUDGE_KIND, "judge": "j", "request": request}
    )


def test_the_proposer_asks_once_more_then_keeps_its_proposals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider = registered(monkeypatch)
    provider.script = ["no JSON here", json.dumps({"descriptions": [" A. ", "B."]})]
    request = proposer_request("scripted:m", "propose", 100)
    store = MemoryStore()

    async def go() -> Proposed:
        return await propose(request, PRICES, store)

    assert anyio.run(go) == Proposed(("A.", "B."), ONE + ONE)
    assert anyio.run(go) == Proposed(("A.", "B."), Usage(cost_usd=0.0, from_cache=1), cached=True)
    assert len(provider.asked) == 2


@pytest.mark.parametrize(
    ("replies", "verdict", "attempts"),
    [
        ([json.dumps({"reasoning": "it is there", "verdict": "YES"})], True, 1),
        (["The file has it.\n\nVERDICT: NO"], False, 1),
        (["I cannot tell", json.dumps({"reasoning": "r", "verdict": "NO"})], False, 2),
        (["I cannot tell", "still cannot"], None, 2),
    ],
)
def test_the_judge_reads_a_structured_or_a_text_verdict_and_asks_again_once(
    replies: list[str], verdict: bool | None, attempts: int
) -> None:
    judge = Scripted("s", replies)
    workspace = Workspace((("app.py", "print(1)\n"),))

    async def go() -> tuple[Votes, Usage]:
        async with judge.asker(PRICES) as asker:
            return await ask_judge(asker, "s:j", "j", "Does it print?", None, workspace, None)

    assert anyio.run(go) == (Votes((verdict,)), ONE if attempts == 1 else ONE + ONE)
    assert len(judge.asked) == attempts
    assert judge.asked[0]["model"] == "j"
    assert judge.asked[0]["messages"][0]["content"].startswith("Question: Does it print?")


def test_judge_samples_are_asked_each_and_kept_each_under_its_own_index() -> None:
    """`--judge-samples 3`: three answers, each kept apart (the first under the key one
    answer always had), all served from the cache on the next run."""
    answers = [json.dumps({"reasoning": "r", "verdict": word}) for word in ("YES", "NO", "YES")]
    workspace = Workspace((("app.py", "print(1)\n"),))
    store = MemoryStore()

    def run(judge: Scripted) -> tuple[Votes, Usage]:
        async def go() -> tuple[Votes, Usage]:
            async with judge.asker(PRICES) as asker:
                return await ask_judge(asker, "s:j", "j", "Does it print?", None, workspace,
                                       store, samples=3)  # fmt: skip

        return anyio.run(go)

    first = Scripted("s", answers)
    assert run(first) == (Votes((True, False, True)), ONE + ONE + ONE)
    assert first.asked == [first.asked[0]] * 3
    request = first.asked[0]
    assert sorted(store.entries) == sorted(
        [
            request_digest(JUDGE_KIND, request, judge="s:j"),
            request_digest(JUDGE_KIND, request, judge="s:j", sample="1"),
            request_digest(JUDGE_KIND, request, judge="s:j", sample="2"),
        ]
    )
    again = Scripted("s", [])
    assert run(again) == (Votes((True, False, True)), Usage(cost_usd=0.0))
    assert again.asked == []
