"""Stage A's prompt: the menu in the agent's listing format, its seeded order, the schema."""

from __future__ import annotations

from activation._models import Case, Skill, TrialKey
from activation.trials.classifier.prompt import (
    HEADING,
    Requests,
    answer_schema,
    build_menu,
    permutation,
    render_menu,
    request_digest,
    system_prompt,
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


def requests(model: str = "m", seed: int = 0, candidate: str = "Use for refunds.") -> Requests:
    target = {"baseline": TARGET, "candidate": Skill(TARGET.name, candidate)}
    return Requests(model, 4096, seed, target, OTHERS)


def test_requests_render_the_menu_of_the_reference_format() -> None:
    key = TrialKey(Case("case-a", "refund it", True, "w"), "baseline", 3)
    order = permutation(0, "case-a", 3, 3)
    request = requests().request(key)
    assert request == {
        "model": "m",
        "max_tokens": 4096,
        "system": system_prompt(build_menu(TARGET, OTHERS, order)),
        "messages": [{"role": "user", "content": "refund it"}],
        "output_config": {"format": {"type": "json_schema", "schema": answer_schema(
            ["billing:refunds", "charts", "tests"]
        )}},
    }  # fmt: skip


def test_the_cache_key_changes_with_every_part_of_the_trial() -> None:
    case = Case("case-a", "refund it", True, "w")
    base = TrialKey(case, "baseline", 0)

    def digest(made: Requests, key: TrialKey = base, kind: str = "messages-api") -> str:
        return request_digest(kind, made.request(key), key)

    reference = digest(requests())
    assert reference == digest(requests())  # stable
    assert len(reference) == 64
    changed = {
        "index": digest(requests(), TrialKey(case, "baseline", 1)),
        "variant role (A/A)": digest(requests(candidate=TARGET.description),
                                     TrialKey(case, "candidate", 0)),
        "model": digest(requests(model="other")),
        "menu order": digest(requests(seed=1)),
        "prompt": digest(requests(), TrialKey(Case("case-a", "refund it!", True, "w"),
                                              "baseline", 0)),
        "case id": digest(requests(), TrialKey(Case("case-b", "refund it", True, "w"),
                                               "baseline", 0)),
        "kind": digest(requests(), kind="other"),
    }  # fmt: skip
    assert len({reference, *changed.values()}) == len(changed) + 1
    made = requests()
    altered = {**made.request(base), "max_tokens": 1}
    assert request_digest("messages-api", altered, base) != reference
