"""Stage A's prompt: the menu in the agent's listing format, its seeded order, the schema."""

from __future__ import annotations

from activation._models import Case, Skill, TrialKey, VariantName
from activation.trials.backend import request_digest
from activation.trials.classifier.prompt import (
    HEADING,
    INSTRUCTIONS,
    Requests,
    answer_schema,
    permutation,
)

TARGET = Skill("billing:refunds", "Use when issuing refunds.")
OTHERS = (Skill("charts", "Draw charts."), Skill("tests", "Write tests.\n  Fast ones."))


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
    target: dict[VariantName, Skill] = {
        "baseline": TARGET,
        "candidate": Skill(TARGET.name, candidate),
    }
    return Requests(model, 4096, seed, target, OTHERS)


LINES = (
    "- billing:refunds: Use when issuing refunds.",
    "- charts: Draw charts.",
    "- tests: Write tests. Fast ones.",
)
"""The menu entries in the agent's listing format: the target first, descriptions on one line."""


def test_the_system_prompt_lists_the_menu_in_the_trials_seeded_order() -> None:
    key = TrialKey(Case("case-a", "refund it", True, "w"), "baseline", 3)
    order = permutation(0, "case-a", 3, 3)
    menu = "\n".join(LINES[i] for i in order)
    assert requests().system(key) == INSTRUCTIONS.format(menu=f"{HEADING}\n\n{menu}")
    other_trials = {requests().system(TrialKey(key.case, "baseline", i)) for i in range(12)}
    assert len(other_trials) > 1


def test_both_variants_of_a_trial_see_the_same_order() -> None:
    made = requests(candidate="Use for refunds.")
    case = Case("case-a", "refund it", True, "w")
    for index in range(6):
        baseline = made.system(TrialKey(case, "baseline", index))
        candidate = made.system(TrialKey(case, "candidate", index))
        assert candidate == baseline.replace("Use when issuing refunds.", "Use for refunds.")


def test_requests_are_the_messages_api_request() -> None:
    key = TrialKey(Case("case-a", "refund it", True, "w"), "baseline", 3)
    request = requests().request(key)
    assert request == {
        "model": "m",
        "max_tokens": 4096,
        "system": requests().system(key),
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
