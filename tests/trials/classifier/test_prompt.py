"""Stage A's prompt: the menu in the agent's listing format, its seeded order, the schema."""

from __future__ import annotations

from activation._models import Skill
from activation.trials.classifier.prompt import (
    HEADING,
    answer_schema,
    build_menu,
    permutation,
    render_menu,
)

TARGET = Skill("billing:refunds", "Use when issuing refunds.")
OTHERS = (Skill("charts", "Draw charts."), Skill("tests", "Write tests.\n  Fast ones."))


def test_menu_is_the_agents_listing_format() -> None:
    assert render_menu(build_menu(TARGET, OTHERS, (2, 0, 1))) == (
        f"{HEADING}\n\n"
        "- tests: Write tests. Fast ones.\n"
        "- billing:refunds: Use when issuing refunds.\n"
        "- charts: Draw charts."
    )


def test_permutation_is_seeded_per_case_and_trial_not_per_variant() -> None:
    first = permutation(7, "case-a", 0, 9)
    assert first == permutation(7, "case-a", 0, 9)
    assert sorted(first) == list(range(9))
    orders = {permutation(7, "case-a", trial, 9) for trial in range(20)}
    assert len(orders) > 10
    seeds_differ = [permutation(7, "a", t, 9) != permutation(8, "a", t, 9) for t in range(5)]
    cases_differ = [permutation(7, "a", t, 9) != permutation(7, "b", t, 9) for t in range(5)]
    assert any(seeds_differ)
    assert any(cases_differ)


def test_schema_enumerates_menu_names() -> None:
    schema = answer_schema(["b", "a", "b"])
    assert schema["properties"] == {
        "skills": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
    }
    assert schema["required"] == ["skills"]
    assert schema["additionalProperties"] is False
