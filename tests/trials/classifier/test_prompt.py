"""Stage A's prompt: the agent's listing, a few balanced orders shared by every case, the
listing as a cached prefix, the schema."""

from __future__ import annotations

from collections import Counter

from activation._models import Case, TrialKey, VariantName
from activation.trials.agents import agent_named
from activation.trials.agents.claude_code.listing import render
from activation.trials.backend import request_digest
from activation.trials.classifier.prompt import (
    CACHED,
    Requests,
    answer_schema,
    base_order,
    menu_entries,
    order_index,
    rotations,
)
from activation.trials.listing.model import Entry, ListedSkill, Listing

HEADING = "The following skills are available for use with the Skill tool:"
CASE = Case("case-a", "refund it", True, "w")


def listing(target: str) -> Listing:
    skills = [
        ListedSkill("billing:refunds", "refunds", "plugin", target),
        ListedSkill("charts", "charts", "user", "Draw charts."),
        ListedSkill("tests", "tests", "user", "Write tests.\n  Fast ones."),
    ]
    return render(skills, "claude-sonnet-5-5", builtins=())


def requests(model: str = "m", seed: int = 0, candidate: str = "Use for refunds.") -> Requests:
    listings: dict[VariantName, Listing] = {
        "baseline": listing("Use when issuing refunds."),
        "candidate": listing(candidate),
    }
    return Requests(model, 4096, seed, listings, orders=3)


LINES = {
    "billing:refunds": "- billing:refunds: Use when issuing refunds.",
    "charts": "- charts: Draw charts.",
    "tests": "- tests: Write tests.   Fast ones.",  # a line break is a space, as the agent has it
}
"""The entries in the agent's listing format, descriptions on one line."""


def test_rotations_put_every_skill_in_a_different_place_in_each_order() -> None:
    order = tuple("abcdefghij")
    orders = rotations(order, 4)
    assert [o[0] for o in orders] == ["a", "d", "g", "j"]  # spread by ceil(10 / 4) = 3
    assert all(sorted(o) == sorted(order) for o in orders)
    for skill in order:
        assert len({o.index(skill) for o in orders}) == 4
    assert rotations(("a", "b"), 4) == (("a", "b"), ("b", "a"))  # no more orders than skills
    assert rotations((), 4) == ((),)


def test_the_base_order_is_seeded_and_ignores_the_ids_own_order() -> None:
    ids = [f"skill-{i}" for i in range(12)]
    assert base_order(7, ids) == base_order(7, list(reversed(ids)))
    assert base_order(7, ids) != base_order(8, ids)
    assert sorted(base_order(7, ids)) == sorted(ids)


def test_a_cases_consecutive_trials_take_every_order_once() -> None:
    for case_id in ("a", "b", "c", "d"):
        seen = [order_index(0, case_id, trial, 4) for trial in range(8)]
        assert sorted(seen[:4]) == [0, 1, 2, 3]
        assert seen[4:] == seen[:4]
    starts = {order_index(0, f"case-{i}", 0, 4) for i in range(40)}
    assert starts == {0, 1, 2, 3}  # cases start at different orders, so all are used


def test_the_system_prompt_is_the_instructions_and_the_listing_in_the_trials_order() -> None:
    made = requests()
    key = TrialKey(CASE, "baseline", 3)
    order = made.orders[made.order_of(key)]
    (block,) = made.system(key)
    expected = (
        agent_named("claude-code").instructions
        + f"{HEADING}\n\n"
        + "\n".join(LINES[skill] for skill in order)
    )
    assert block == {"type": "text", "text": expected, "cache_control": CACHED}
    assert menu_entries(block["text"]) == [
        (skill, LINES[skill].split(": ", 1)[1]) for skill in order
    ]


def test_every_case_shares_the_few_prefixes() -> None:
    made = requests()
    cases = [Case(f"case-{i}", f"prompt {i}", True, "w") for i in range(30)]
    systems = Counter(
        made.system(TrialKey(case, variant, index))[0]["text"]
        for case in cases
        for variant in ("baseline", "candidate")
        for index in range(3)
    )
    assert len(systems) == made.prefixes() == 6  # 2 variants x 3 orders
    assert sum(systems.values()) == 180
    assert requests(candidate="Use when issuing refunds.").prefixes() == 3  # same listing


def test_both_variants_of_a_trial_see_the_same_order() -> None:
    made = requests(candidate="Use for refunds.")
    for index in range(6):
        (baseline,) = made.system(TrialKey(CASE, "baseline", index))
        (candidate,) = made.system(TrialKey(CASE, "candidate", index))
        assert candidate["text"] == baseline["text"].replace(
            "Use when issuing refunds.", "Use for refunds."
        )


def test_requests_are_the_messages_api_request() -> None:
    key = TrialKey(CASE, "baseline", 3)
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


def test_schema_enumerates_menu_names() -> None:
    schema = answer_schema(["b", "a", "b"])
    assert schema["properties"] == {
        "skills": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
    }
    assert schema["required"] == ["skills"]
    assert schema["additionalProperties"] is False


def test_menu_entries_read_collapsed_and_multi_line_entries() -> None:
    system = f"intro\n{HEADING}\n\n- a (Alpha): first\n- b\n- c: line one\nline two\n- d: last"
    assert menu_entries(system) == [
        ("a", "first"),
        ("b", ""),
        ("c", "line one\nline two"),
        ("d", "last"),
    ]
    assert menu_entries("no listing here") == []


def test_the_cache_key_changes_with_every_part_of_the_trial() -> None:
    base = TrialKey(CASE, "baseline", 0)

    def digest(made: Requests, key: TrialKey = base, kind: str = "messages-api") -> str:
        return request_digest(kind, made.request(key), key)

    reference = digest(requests())
    assert reference == digest(requests())  # stable
    assert len(reference) == 64
    changed = {
        "index": digest(requests(), TrialKey(CASE, "baseline", 1)),
        "variant role (A/A)": digest(requests(candidate="Use when issuing refunds."),
                                     TrialKey(CASE, "candidate", 0)),
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


def test_menu_entries_read_opencodes_xml_and_codexs_list() -> None:
    xml = (
        "Skills provide specialized instructions and workflows for specific tasks.\n"
        "Use the skill tool to load a skill when a task matches its description.\n"
        "<available_skills>\n  <skill>\n    <name>refunds</name>\n"
        "    <description>Issue refunds.\nWhole or partial.</description>\n"
        "    <location>/r/.agents/skills/refunds/SKILL.md</location>\n  </skill>\n"
        "  <skill>\n    <name>charts</name>\n    <description></description>\n"
        "    <location>/r/.agents/skills/charts/SKILL.md</location>\n  </skill>\n"
        "</available_skills>"
    )
    assert menu_entries("Answer.\n\n" + xml) == [
        ("refunds", "Issue refunds.\nWhole or partial."),
        ("charts", ""),
    ]
    codex = (
        "<skills_instructions>\n## Skills\nA skill is a set of local instructions.\n"
        "### Skill roots\n- `r0` = `/r/.agents/skills`\n### Available skills\n"
        "- refunds: Issue refunds: whole or partial. (file: r0/refunds/SKILL.md)\n"
        "- charts: (file: r0/charts/SKILL.md)\n</skills_instructions>"
    )
    assert menu_entries("Answer.\n\n" + codex) == [
        ("refunds", "Issue refunds: whole or partial."),
        ("charts", ""),
    ]


def test_another_agents_names_are_the_answer_and_map_back_to_ids() -> None:
    def shown(entry_id: str, name: str) -> Entry:
        return Entry(entry_id, f"- {name}: x", "full", "plugin", f"- {name}: x", shown=name)

    listing = Listing("head", (shown("billing:refunds", "refunds"), shown("charts", "charts")),
                      0, 0, 0)  # fmt: skip
    made = Requests("m", 4096, 0, {"baseline": listing, "candidate": listing}, agent="codex")
    assert made.names == ("charts", "refunds")
    assert made.ids_of(["refunds", "charts"]) == ("billing:refunds", "charts")
    assert made.system(TrialKey(CASE, "baseline", 0))[0]["text"].startswith(
        agent_named("codex").instructions
    )
    enum = made.request(TrialKey(CASE, "baseline", 0))["output_config"]["format"]["schema"]
    assert enum["properties"]["skills"]["items"]["enum"] == ["charts", "refunds"]
