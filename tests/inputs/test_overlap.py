"""How alike two entries read: the Dice coefficient of their content words."""

from __future__ import annotations

import pytest

from activation._models import Skill
from activation.inputs.overlap import listed_text, overlaps, similarity


@pytest.mark.parametrize(
    ("one", "other", "score"),
    [
        ("refund orders in Stripe", "Stripe order refunds", 1.0),  # same words, plural folded
        ("refund orders", "refund invoices", 0.5),  # 2*1 / (2+2)
        ("refund orders quickly", "invoice taxes", 0.0),
        ("Use when the user wants help", "refund orders", 0.0),  # no content words: 0
        ("", "", 0.0),
    ],
)
def test_similarity_is_dice_on_content_words(one: str, other: str, score: float) -> None:
    assert similarity(one, other) == pytest.approx(score)
    assert similarity(other, one) == pytest.approx(score)


def test_listed_text_is_description_and_when_to_use() -> None:
    assert listed_text(Skill("a", "Refunds.", "When asked.")) == "Refunds. When asked."
    assert listed_text(Skill("a", None, "When asked.")) == "When asked."


def test_overlaps_pair_ours_with_the_whole_menu_most_alike_first() -> None:
    ours = (Skill("p:a", "refund orders"), Skill("p:b", "refund orders stripe"))
    others = (Skill("x", "refund invoices"), Skill("y", "invoice taxes"))
    found = overlaps(ours, others, 0.5)
    assert [(o.first, o.second) for o in found] == [("p:a", "p:b"), ("p:a", "x")]
    assert [o.score for o in found] == [pytest.approx(0.8), 0.5]
    assert overlaps((), others, 0.0) == []  # two others alone are not ours to judge
