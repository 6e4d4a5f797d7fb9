"""The mock model: the very request a real model gets, answered offline by word overlap."""

from __future__ import annotations

import anyio
import orjson

from activation._models import Case, Trial, TrialKey, Usage
from activation.inputs.proposals import proposer_instructions
from activation.trials.agents.claude_code.listing import render
from activation.trials.classifier.backend import ClassifierBackend
from activation.trials.classifier.prompt import Requests
from activation.trials.listing.model import ListedSkill
from activation.trials.providers.mock import MIN_SHARED, MockModel, answer, choose, propose
from activation.trials.suggest.proposer import proposer_request

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
    skills = [ListedSkill("billing:refunds", "refunds", "plugin", MENU[0][1])]
    skills += [ListedSkill(name, name, "user", text) for name, text in MENU[1:]]
    shown = render(skills, "claude-sonnet-5-5")  # the agent's built-ins are listed too
    requests = Requests("mock", 100, 0, {"baseline": shown, "candidate": shown})
    key = TrialKey(Case("r", "refund the stripe order 1234", True, "w"), "baseline", 0)
    message = answer(requests.request(key))
    assert message["stop_reason"] == "end_turn"
    assert orjson.loads(message["content"][0]["text"]) == {"skills": ["billing:refunds"]}

    async def ask() -> Trial:
        backend = ClassifierBackend(requests, MockModel(), "billing:refunds")
        async with backend:
            return await backend.run(key)

    trial = anyio.run(ask)
    assert trial == key.fired(
        ["billing:refunds"], "billing:refunds", "chose billing:refunds",
        Usage(requests=1, cost_usd=0.0),
    )  # fmt: skip
    assert (trial.chose, trial.correct) == (("billing:refunds",), True)


def test_the_mock_proposes_from_the_proposers_own_instructions() -> None:
    """Read from the instructions `suggest` sends (inputs/proposals.py): the current
    description with the failing groups' tags, then the body's words it lacks, three at a
    time, spelt as written; at most as many as asked; digits and stop words never."""
    instructions = proposer_instructions(
        "Use when issuing refunds.",
        "# Refunds\n\n1. Find the Order and its payment.\n2. Refund the customer's card.",
        ["6 prompts tagged 'chargebacks' that should load billing:refunds went to none"],
        2,
        1024,
        "billing:refunds",
        [("charts", "Use when plotting charts.")],
    )
    request = proposer_request("mock", instructions, 100)
    (block,) = answer(request)["content"]
    assert orjson.loads(block["text"]) == {
        "descriptions": [
            "Use when issuing refunds. Also for chargebacks, find, order.",
            "Use when issuing refunds. Also for payment, customer's, card.",
        ]
    }
    assert propose("not the proposer's instructions") == []
