"""The mock model: the very request a real model gets, answered offline by word overlap."""

from __future__ import annotations

import anyio
import orjson

from activation._models import Case, Skill, Trial, TrialKey, Usage
from activation.trials.classifier.backend import ClassifierBackend
from activation.trials.classifier.mock import MIN_SHARED, MockModel, answer, choose
from activation.trials.classifier.prompt import Requests

MENU = [
    ("billing:refunds", "Use when issuing refunds or answering chargebacks on Stripe orders."),
    ("charts", "Use when plotting charts of revenue or traffic."),
    ("tax-rules", "Use when computing sales tax for orders."),
]


def test_the_entry_sharing_the_most_content_words_wins() -> None:
    assert choose("refund the stripe order 1234", MENU) == ["billing:refunds"]
    assert choose("plot monthly revenue as a chart", MENU) == ["charts"]


def test_too_little_in_common_is_no_skill() -> None:
    assert MIN_SHARED == 2
    assert choose("refund it", MENU) == []  # one content word ("refund") is not enough
    assert choose("what is the weather like", MENU) == []


def test_a_tie_goes_to_the_entry_listed_first() -> None:
    tied = [("a", "orders revenue"), ("b", "orders revenue")]
    assert choose("revenue of my orders", tied) == ["a"]
    assert choose("revenue of my orders", tied[::-1]) == ["b"]


def test_it_answers_the_real_request_in_the_api_shape() -> None:
    target = Skill("billing:refunds", MENU[0][1])
    requests = Requests(
        "mock", 100, 0, {"baseline": target, "candidate": target},
        [Skill(name, text) for name, text in MENU[1:]],
    )  # fmt: skip
    key = TrialKey(Case("r", "refund the stripe order 1234", True, "w"), "baseline", 0)
    message = answer(requests.request(key))
    assert message["stop_reason"] == "end_turn"
    assert orjson.loads(message["content"][0]["text"]) == {"skills": ["billing:refunds"]}

    async def ask() -> Trial:
        backend = ClassifierBackend(requests, MockModel(), "billing:refunds")
        async with backend:
            return await backend.run(key)

    trial = anyio.run(ask)
    assert trial == key.answer(True, "chose billing:refunds", Usage(requests=1, cost_usd=0.0))
