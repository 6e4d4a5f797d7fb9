"""What the proposer is told (intents, never prompts) and what a proposal must be."""

from __future__ import annotations

import inspect

import pytest

from activation import _config
from activation._models import Case, CaseVerdict, Status, Tally
from activation.inputs.proposals import (
    failure_categories,
    proposal_problems,
    proposer_instructions,
)

TARGET = "billing:refunds"
SIBLING = "billing:disputes"


def verdict(
    case_id: str,
    routes: dict[str, int],
    correct: int,
    group: str = "keyword-loss",
    positive: bool = True,
    expect: tuple[str, ...] | None = None,
    must_not: tuple[str, ...] = (),
    activated: int | None = None,
    errors: int = 0,
) -> CaseVerdict:
    """A verdict whose candidate went `routes` (first skill fired -> trials)."""
    valid = sum(routes.values()) if activated is None or routes else activated
    fired = routes.get(TARGET, 0) if activated is None else activated
    case = Case(case_id, f"secret words of {case_id}", positive, "why", (group,),
                expect=expect, must_not=must_not)  # fmt: skip
    candidate = Tally(fired, valid, errors, correct, routes)
    return CaseVerdict.of(case, Status.FAIL, None, None, Tally(0, 0, 0, 0), candidate)


def test_missed_prompts() -> None:
    verdicts = [verdict(f"kw-{i}", {"none": 3}, 0) for i in range(3)]
    assert failure_categories(verdicts, TARGET) == (
        "3 prompts tagged 'keyword-loss' that should load billing:refunds went to none (missed)",
    )


def test_leaked_prompts_of_a_sibling() -> None:
    verdicts = [
        verdict(f"neg-{i}", {TARGET: 3}, 0, "negative", False, expect=(SIBLING,)) for i in range(2)
    ]
    assert failure_categories(verdicts, TARGET) == (
        "2 prompts tagged 'negative' that belong to billing:disputes loaded billing:refunds "
        "(leaked)",
    )


def test_stolen_prompts_and_the_order_most_first() -> None:
    verdicts = [
        verdict("ind-1", {SIBLING: 2, TARGET: 1}, 1, "indirect"),
        verdict("kw-1", {"none": 2, TARGET: 1}, 1),
        verdict("kw-2", {"none": 3}, 0),
        verdict("fw-1", {"none": 3}, 0, "framework-loss"),
    ]
    assert failure_categories(verdicts, TARGET) == (
        "2 prompts tagged 'keyword-loss' that should load billing:refunds went to none (missed)",
        "1 prompt tagged 'framework-loss' that should load billing:refunds went to none (missed)",
        "1 prompt tagged 'indirect' that should load billing:refunds loaded billing:disputes "
        "instead (stolen by billing:disputes)",
    )


def test_the_most_frequent_wrong_route_names_where_they_went() -> None:
    """Right trials do not count; of the wrong ones the most frequent, then by name."""
    tie = verdict("kw-1", {"none": 1, SIBLING: 1, TARGET: 1}, 1)
    assert failure_categories([tie], TARGET) == (
        "1 prompt tagged 'keyword-loss' that should load billing:refunds loaded "
        "billing:disputes instead (stolen by billing:disputes)",
    )
    more = verdict("kw-1", {"none": 2, SIBLING: 1, TARGET: 1}, 1)
    assert failure_categories([more], TARGET) == (
        "1 prompt tagged 'keyword-loss' that should load billing:refunds went to none (missed)",
    )


def test_a_not_the_target_case_and_a_no_skill_case() -> None:
    verdicts = [
        verdict("neg-1", {SIBLING: 2, TARGET: 1}, 1, "negative", False),
        verdict("neg-2", {TARGET: 3}, 0, "negative", False),
        verdict("none-1", {SIBLING: 3}, 0, "negative", False, expect=()),
    ]
    assert failure_categories(verdicts, TARGET) == (
        "2 prompts tagged 'negative' that should not load billing:refunds loaded "
        "billing:refunds (leaked)",
        "1 prompt tagged 'negative' that should load no skill loaded billing:disputes instead "
        "(stolen by billing:disputes)",
    )


def test_a_target_that_fired_after_another_skill_leaked() -> None:
    """Only the first skill is a route: the target fired second, in two of three trials."""
    late = verdict("neg-1", {SIBLING: 3}, 1, "negative", False, activated=2)
    assert failure_categories([late], TARGET) == (
        "1 prompt tagged 'negative' that should not load billing:refunds loaded "
        "billing:refunds (leaked)",
    )


def test_only_whether_the_target_fired_is_known() -> None:
    """Stage B answered by `activated` alone: no route, the target fired every time."""
    known = verdict("neg-1", {}, 0, "negative", False, activated=3)
    assert failure_categories([known], TARGET) == (
        "1 prompt tagged 'negative' that should not load billing:refunds loaded "
        "billing:refunds (leaked)",
    )


def test_a_skill_the_case_must_not_load() -> None:
    forbidden = verdict("kw-1", {TARGET: 3}, 0, expect=(TARGET,), must_not=(SIBLING,))
    assert failure_categories([forbidden], TARGET) == (
        "1 prompt tagged 'keyword-loss' that should load billing:refunds loaded "
        "billing:disputes, which it must not load",
    )


def test_several_acceptable_skills() -> None:
    either = verdict("kw-1", {"none": 3}, 0, expect=(TARGET, SIBLING))
    other = verdict("kw-2", {"none": 3}, 0, expect=("billing:payouts", SIBLING))
    assert failure_categories([either, other], TARGET) == (
        "1 prompt tagged 'keyword-loss' that belongs to billing:payouts or billing:disputes "
        "went to none (missed)",
        "1 prompt tagged 'keyword-loss' that should load billing:refunds or billing:disputes "
        "went to none (missed)",
    )


def test_right_cases_and_cases_without_evidence_are_left_out() -> None:
    right = verdict("kw-1", {TARGET: 2, "none": 1}, 2)
    errors = verdict("kw-2", {}, 0, activated=0, errors=3)
    assert errors.candidate.valid == 0 and not errors.candidate.right
    assert failure_categories([right, errors], TARGET) == ()


def test_no_prompt_word_reaches_the_categories() -> None:
    verdicts = [
        verdict("kw-1", {"none": 3}, 0),
        verdict("neg-1", {TARGET: 3}, 0, "negative", False),
    ]
    lines = failure_categories(verdicts, TARGET)
    assert len(lines) == 2
    assert not any("secret" in line or "kw-1" in line for line in lines)


PROMPTS = (
    "My customer wants their money back for order 1234, what do I do?",
    "Issue a partial refund through the Stripe dashboard for a duplicate charge",
)


def test_a_good_proposal_has_no_problem() -> None:
    text = "Use when returning money to a customer or reversing a payment."
    assert proposal_problems(text, PROMPTS, 1024) == ()


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_proposal(text: str) -> None:
    assert proposal_problems(text, PROMPTS, 1024) == ("it is empty",)


def test_a_proposal_over_the_limit() -> None:
    text = "Use when refunding. " * 60
    assert len(text) == 1200
    assert proposal_problems(text.strip(), (), 1024) == (
        "it is 1,199 characters, over the limit of 1,024",
    )
    assert proposal_problems("x" * 20, (), 20) == ()
    assert proposal_problems("x" * 21, (), 20) == ("it is 21 characters, over the limit of 20",)


@pytest.mark.parametrize("text", ["Use for refunds.\nAnd chargebacks.", "a\u2028b", "a\r\n"])
def test_a_proposal_with_a_line_break(text: str) -> None:
    assert proposal_problems(text, (), 1024) == ("it has a line break (a description is one line)",)


def test_a_proposal_that_copies_a_train_prompt_is_named_by_position() -> None:
    phrase = "Use for a partial refund through the Stripe dashboard."
    built = "Order money back: customer wants refunds."
    assert proposal_problems(phrase, PROMPTS, 1024) == (
        "it echoes train prompt 2 (it copies a phrase of its words)",
    )
    assert proposal_problems(built, PROMPTS, 1024) == (
        "it echoes train prompt 1 (it is built from its words)",
    )


def test_every_problem_at_once() -> None:
    text = "Issue a partial refund through the Stripe dashboard\nfor a duplicate charge"
    assert proposal_problems(text, PROMPTS, 30) == (
        "it is 74 characters, over the limit of 30",
        "it has a line break (a description is one line)",
        "it echoes train prompt 2 (it copies a phrase of its words)",
    )


ECHOED = "Use for a partial refund through the Stripe dashboard."
"""A current description that train prompt 2 already echoes (it copies its phrase)."""


def test_what_a_proposal_keeps_of_the_current_description_echoes_no_prompt() -> None:
    rewrite = "Use for a partial refund through the Stripe dashboard, or a reversed card payment."
    echoes = ("it echoes train prompt 2 (it copies a phrase of its words)",)
    assert proposal_problems(ECHOED, PROMPTS, 1024) == echoes
    assert proposal_problems(rewrite, PROMPTS, 1024) == echoes  # judged whole, it would be out
    assert proposal_problems(rewrite, PROMPTS, 1024, (ECHOED,)) == ()


def test_words_kept_from_the_current_description_build_no_prompt() -> None:
    current = "Use when a customer asks for money back."
    proposal = "Use when a customer asks for money back on order 1234."
    assert proposal_problems(proposal, PROMPTS, 1024) == (
        "it echoes train prompt 1 (it is built from its words)",
    )
    assert proposal_problems(proposal, PROMPTS, 1024, (current,)) == ()  # it adds order 1234


def test_a_proposal_that_keeps_the_description_and_pastes_a_prompt_is_still_out() -> None:
    copied = f"{ECHOED[:-1]}, or when my customer wants their money back for order 1234."
    built = f"{ECHOED[:-1]}: order money back, customer 1234."
    assert proposal_problems(copied, PROMPTS, 1024, (ECHOED,)) == (
        "it echoes train prompt 1 (it copies a phrase of its words)",
    )
    assert proposal_problems(built, PROMPTS, 1024, (ECHOED,)) == (
        "it echoes train prompt 1 (it is built from its words)",
    )


def test_a_pasted_phrase_counts_beside_a_longer_kept_one() -> None:
    """The longest run it shares with prompt 2 is the kept phrase; the shorter one after it
    adds two of the prompt's words in its own order."""
    pasted = f"{ECHOED[:-1]}, or for a duplicate charge."
    assert proposal_problems(pasted, PROMPTS, 1024, (ECHOED,)) == (
        "it echoes train prompt 2 (it copies a phrase of its words)",
    )


def test_words_a_proposal_shares_with_a_siblings_description_echo_no_prompt() -> None:
    prompts = ("Answering a card dispute or a chargeback for my store",)
    current = "Use when refunding a payment."
    proposal = "Use when refunding a payment, not when answering a card dispute or a chargeback."
    assert proposal_problems(proposal, prompts, 1024, (current,)) == (
        "it echoes train prompt 1 (it copies a phrase of its words)",
    )
    kept = (current, *(description for _name, description in SIBLINGS))
    assert proposal_problems(proposal, prompts, 1024, kept) == ()


SIBLINGS = (
    (SIBLING, "Use when answering a card dispute or a chargeback."),
    ("billing:payouts", "Use when paying out to a connected account."),
)
CATEGORIES = (
    "3 prompts tagged 'keyword-loss' that should load billing:refunds went to none (missed)",
)


def instructions(**overrides: object) -> str:
    arguments: dict[str, object] = {
        "current": "Use for refunds.",
        "body": "# Refunds\n\nHow to refund a charge.\n",
        "categories": CATEGORIES,
        "count": 4,
        "limit": 1024,
        "skill_id": TARGET,
        "siblings": SIBLINGS,
        **overrides,
    }
    return proposer_instructions(**arguments)  # type: ignore[arg-type]


def test_the_instructions_in_full() -> None:
    assert instructions() == (
        "You write the `description` of an Agent Skill: the one line a coding agent reads "
        "when it decides whether to load the skill for a user's request.\n\n"
        "The skill's id: billing:refunds\n\n"
        "Its current description:\nUse for refunds.\n\n"
        "Its SKILL.md body (what the skill does once loaded):\n"
        "# Refunds\n\nHow to refund a charge.\n\n"
        "The other skills listed next to it:\n"
        "- billing:disputes: Use when answering a card dispute or a chargeback.\n"
        "- billing:payouts: Use when paying out to a connected account.\n\n"
        "How the current description fails on the training prompts:\n"
        "- 3 prompts tagged 'keyword-loss' that should load billing:refunds went to none "
        "(missed)\n\n"
        "Rules:\n"
        "- Propose 4 different descriptions.\n"
        "- Each is a single line of at most 1,024 characters.\n"
        "- Each says when to use the skill: the situations, tasks and intents it is for.\n"
        "- Do not claim what the other skills are for: a prompt that belongs to one of them "
        "must still go there.\n"
        "- Do not paste words of example prompts (none are given here): describe intents, "
        "not sentences a user might type.\n"
        "- Keep what already works in the current description.\n"
    )


def test_the_instructions_follow_their_arguments() -> None:
    text = instructions(count=2, limit=250, siblings=(), categories=())
    assert "- Propose 2 different descriptions.\n" in text
    assert "- Each is a single line of at most 250 characters.\n" in text
    assert "The other skills listed next to it:\n- none\n\n" in text
    assert (
        "How the current description fails on the training prompts:\n"
        "- none: every training prompt went where it belongs; look for a clearer wording\n\n"
    ) in text


def test_a_long_body_is_cut() -> None:
    size = _config.SUGGEST_BODY_CHARS
    assert size == 4000
    body = "a" * size + "TAIL" + "b" * 96
    text = instructions(body=body)
    assert f"{'a' * size}\n[... the rest of the body, 100 characters, is cut]\n\n" in text
    assert "TAIL" not in text
    assert f"\n{'a' * size}\n\n" in instructions(body="a" * size)


def test_no_prompt_can_reach_the_instructions() -> None:
    """The function is given categories, never prompts: nothing else can appear."""
    parameters = list(inspect.signature(proposer_instructions).parameters)
    assert parameters == [
        "current", "body", "categories", "count", "limit", "skill_id", "siblings",
    ]  # fmt: skip
    verdicts = [verdict("kw-1", {"none": 3}, 0)]
    text = instructions(categories=failure_categories(verdicts, TARGET))
    assert "secret words" not in text
    assert instructions() == instructions()
