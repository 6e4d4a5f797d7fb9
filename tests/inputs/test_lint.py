"""The lint rules, each with its exact finding, over the one validator of case files."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation._errors import InputError
from activation._models import Skill
from activation.inputs.cases import check_cases, parse_cases
from activation.inputs.lint import GROUPS, Finding, Menu, echo, lint, overlap_findings

DESCRIPTION = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."


def raw(
    case_id: str,
    prompt: str,
    should_activate: bool = False,
    twin: str | None = None,
    why: str | None = "justified",
    tags: tuple[str, ...] = ("negative",),
) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": case_id,
        "prompt": prompt,
        "should_activate": should_activate,
        "tags": list(tags),
    }
    if why is not None:
        entry["why"] = why
    if twin is not None:
        entry["twin"] = twin
    return entry


def only_rules(
    data: object, description: str | None = None, strict: bool = True
) -> tuple[Finding, ...]:
    """Lint without the group check, so a test sees only the rule it is about."""
    findings = lint(check_cases(data), description, strict)
    return tuple(finding for finding in findings if "no case in group" not in finding.message)


# --- errors ---------------------------------------------------------------------------------


def test_clean_cases_have_no_findings() -> None:
    data = [
        raw("pos", "refund order 1234", True, twin="neg", tags=("keyword-loss",)),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data, DESCRIPTION) == ()


def test_duplicate_ids_are_one_error_per_id() -> None:
    data = [raw("a", "first prompt"), raw("a", "second prompt"), raw("a", "third one here")]
    assert only_rules(data) == (Finding("error", "a", "duplicate id: 3 cases share it"),)


def test_identical_prompts_ignore_case_and_whitespace() -> None:
    data = [raw("a", "Refund  order 12"), raw("b", "refund order 12 "), raw("c", "REFUND order 12")]
    assert only_rules(data) == (
        Finding("error", "b", "same prompt as 'a'"),
        Finding("error", "c", "same prompt as 'a'"),
    )


@pytest.mark.parametrize("why", [None, "", "   ", 7])
def test_missing_or_blank_why_is_an_error_not_a_crash(why: object) -> None:
    entry = raw("a", "refund order 12", why=None)
    if why is not None:
        entry["why"] = why
    assert only_rules([entry]) == (
        Finding("error", "a", "missing 'why': it is what makes the ground truth reviewable"),
    )


def test_twin_naming_no_case() -> None:
    data = [raw("pos", "refund order 12", True, twin="ghost")]
    assert only_rules(data) == (Finding("error", "pos", "twin 'ghost' names no case"),)


def test_twin_naming_a_positive() -> None:
    data = [
        raw("p1", "refund order 12", True, twin="p2"),
        raw("p2", "dispute for order 12", True, twin="neg"),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data) == (Finding("error", "p1", "twin 'p2' is a positive, not a negative"),)


def test_positive_without_twin() -> None:
    data = [raw("pos", "refund order 12", True), raw("neg", "export orders to csv")]
    assert only_rules(data) == (
        Finding(
            "error", "pos", "positive without a twin: name a negative that shares its vocabulary"
        ),
    )


def test_one_negative_may_twin_several_positives() -> None:
    data = [
        raw("p1", "refund order 12", True, twin="neg"),
        raw("p2", "chargeback on order 9", True, twin="neg"),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data) == ()


def test_description_over_the_limit() -> None:
    data = [raw("a", "refund order 12")]
    assert only_rules(data, "x" * 1024) == ()
    assert only_rules(data, "x" * 1025) == (
        Finding(
            "error",
            None,
            "the description is 1,025 characters, over the agent's 1,024-character limit",
        ),
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"tests": []}, Finding("error", None, "expected a 'cases' list or a bare list of cases")),
        ({"cases": "no"}, Finding("error", None, "'cases' must be a list")),
        ("text", Finding("error", None, "'cases' must be a list")),
        ([], Finding("error", None, "the case list is empty")),
        ([raw("a", "x"), 5], Finding("error", None, "case #2 is not an object")),
        (
            [raw("a", "x"), {"prompt": "y", "should_activate": False, "why": "w"}],
            Finding("error", None, "case #2: 'id' is missing or not a non-empty string"),
        ),
        (
            [{"id": "a", "should_activate": False, "why": "w"}],
            Finding("error", "a", "missing 'prompt'"),
        ),
        (
            [{"id": "a", "prompt": "x", "should_activate": "yes", "why": "w"}],
            Finding("error", "a", "'should_activate' must be true or false"),
        ),
    ],
)
def test_malformed_input_is_a_finding(data: object, expected: Finding) -> None:
    assert only_rules(data) == (expected,)


def test_a_malformed_case_does_not_hide_the_others() -> None:
    data = [{"id": "bad"}, raw("pos", "refund order 12", True)]
    assert only_rules(data) == (
        Finding("error", "bad", "missing 'prompt'"),
        Finding(
            "error", "pos", "positive without a twin: name a negative that shares its vocabulary"
        ),
    )


# --- warnings -------------------------------------------------------------------------------


def test_near_duplicate_prompts() -> None:
    data = [
        raw("a", "add login to my react app please"),
        raw("b", "add login to my react app pls"),
        raw("c", "add logout to my vue app"),
    ]
    assert only_rules(data) == (
        Finding("warning", "b", "prompt nearly duplicates 'a' (similarity 0.95)"),
    )


def test_echo_of_a_copied_phrase() -> None:
    description = "Use when debugging callback URL mismatch errors in any framework."
    data = [raw("a", "Debugging callback URL mismatch Errors, in my app")]
    assert only_rules(data, description) == (
        Finding(
            "warning",
            "a",
            "the prompt echoes the description (copies the phrase "
            "'Debugging callback URL mismatch Errors, in'): that tests string matching, not "
            "intent",  # as written in the prompt: its case, plural and punctuation kept
        ),
    )


def test_echo_of_the_descriptions_vocabulary() -> None:
    description = "Use when adding login. Covers React, Vue, Angular, Svelte and more."
    data = [raw("a", "svelte or vue or react or angular, which has the easiest login")]
    assert only_rules(data, description) == (
        Finding(
            "warning",
            "a",
            "the prompt echoes the description (is built from its words svelte, vue, react, "
            "angular, login): that tests string matching, not intent",  # in the prompt's order
        ),
    )


@pytest.mark.parametrize(
    "prompt",
    [
        "add login to my react app",  # one feature, one framework: a normal request
        "use the app to add a new thing for users",  # generic words never count
        "the react and vue and angular apps all have a slow build",  # 3 shared words only
    ],
)
def test_ordinary_prompts_do_not_echo(prompt: str) -> None:
    assert (
        echo(prompt, "Use when adding login. Covers React, Vue, Angular, Svelte and more.") is None
    )


def test_plural_and_case_do_not_hide_an_echo() -> None:
    description = "Use for Refunds, Chargebacks, Disputes and Invoices."
    assert echo("REFUND chargeback dispute invoice", description) == (
        "is built from its words REFUND, chargeback, dispute, invoice"
    )


def test_a_group_with_no_cases_under_the_suite_policy_only() -> None:
    data = [raw("a", "export orders", tags=("negative",)), raw("b", "refund 12", tags=())]
    assert lint(check_cases(data), None, strict=False) == ()
    assert lint(check_cases(data), None, strict=True) == (
        Finding("error", None, "no case in group 'keyword-loss' (tag a case with it)"),
        Finding("error", None, "no case in group 'framework-loss' (tag a case with it)"),
        Finding("error", None, "no case in group 'indirect' (tag a case with it)"),
    )
    assert GROUPS == ("keyword-loss", "framework-loss", "indirect", "negative")


def test_errors_come_before_warnings() -> None:
    data = [
        raw("a", "add login to my react app please", tags=GROUPS),
        raw("b", "add login to my react app pls", True),
    ]
    findings = lint(check_cases(data), None, strict=True)
    assert [finding.level for finding in findings] == ["error", "warning"]


def test_twins_are_warnings_for_a_users_own_cases() -> None:
    data = [raw("pos", "refund order 12", True), raw("p2", "chargeback 9", True, twin="pos")]
    assert only_rules(data, strict=False) == (
        Finding(
            "warning", "pos", "positive without a twin: name a negative that shares its vocabulary"
        ),
        Finding("warning", "p2", "twin 'pos' is a positive, not a negative"),
    )


@pytest.mark.parametrize(
    "data",
    [
        [raw("a", "refund 12"), raw("a", "refund 13")],
        [raw("a", "refund 12", why=" ")],
        [raw("a", "refund 12"), raw("b", "REFUND  12")],
        [raw("a", "refund 12", twin="ghost")],
        {"skill": 5, "cases": [raw("a", "refund 12")]},
        [{"id": "a", "prompt": "x", "should_activate": False, "why": "w", "tags": "t"}],
    ],
    ids=["duplicate-id", "blank-why", "same-prompt", "dangling-twin", "bad-skill", "bad-tags"],
)
def test_the_run_refuses_exactly_what_lint_calls_an_error(data: object) -> None:
    """One validator: every lint error of the file is a reason the run refuses it."""
    (first, *_rest) = [f for f in lint(check_cases(data), None, strict=False) if f.level == "error"]
    with pytest.raises(InputError) as refused:
        parse_cases(data, "cases.json")
    where = f"case {first.case_id!r}: " if first.case_id else ""
    assert str(refused.value) == f"cases.json: {where}{first.message}"


def test_the_run_accepts_what_lint_only_warns_about() -> None:
    data = [raw("pos", "refund order 12", True), raw("neg", "refund order 12 pls")]
    assert {finding.level for finding in lint(check_cases(data), None, strict=False)} == {"warning"}
    assert [case.id for case in parse_cases(data, "cases.json").cases] == ["pos", "neg"]


def test_the_run_counts_the_other_problems() -> None:
    data = [raw("a", "refund 12", why=""), raw("b", "refund 12", why="")]
    with pytest.raises(InputError, match=r"^cases.json: case 'a': missing 'why'.* \(and 1 more: "):
        parse_cases(data, "cases.json")


# --- the menu around the skill: ids, positives per skill, alike entries, sibling echoes ---

REFUNDS = Skill("billing:refunds", DESCRIPTION)
INVOICES = Skill(
    "billing:invoices", "Use when creating invoices, sending them, or fixing tax lines."
)
DISPUTES = Skill(
    "billing:disputes",
    "Use when answering Stripe disputes with evidence, and tracking chargeback deadlines.",
)
CLONE = Skill(
    "billing:refunds-v2", "Use when issuing refunds or handling chargebacks and Stripe disputes."
)


def routed(case_id: str, prompt: str, expect: object, **extra: object) -> dict[str, object]:
    return {"id": case_id, "prompt": prompt, "why": "its home", "expect": expect, **extra}


def menu_findings(data: object, menu: Menu) -> tuple[Finding, ...]:
    findings = lint(check_cases(data), menu.ours[0].description, False, menu)
    return tuple(f for f in findings if "twin" not in f.message)


def test_an_id_that_names_no_skill_of_the_menu_is_an_error() -> None:
    menu = Menu("billing:refunds", (REFUNDS, INVOICES))
    data = [routed("a", "send the invoice", "billing:invoice")]
    assert menu_findings(data, menu) == (
        Finding(
            "error",
            None,
            "case 'a': 'billing:invoice' names no skill of the menu "
            "(did you mean billing:invoices?)",
        ),
    )


def test_every_skill_of_a_set_needs_a_case_that_expects_it() -> None:
    menu = Menu("billing:refunds", (REFUNDS, INVOICES, DISPUTES))
    data = [
        raw("pos", "refund order 1234", True),
        routed("inv", "send the invoice for may", "invoices"),
    ]
    positives = tuple(f for f in menu_findings(data, menu) if "read alike" not in f.message)
    assert positives == (
        Finding(
            "warning",
            None,
            "no case expects billing:disputes: add positives for it, or a prompt it loses to "
            "a sibling goes unseen",
        ),
    )
    alone = Menu("billing:refunds", (REFUNDS,))
    assert menu_findings([raw("neg", "export the orders")], alone) == ()


def test_a_command_that_reads_like_a_skill_is_a_warning_at_most() -> None:
    """A plugin's command is often the slash entry to its own skill, in the skill's words."""
    command = replace(CLONE, path="plugins/billing/commands/refunds-v2.md")
    alike = overlap_findings(Menu("billing:refunds", (REFUNDS, command)))
    assert alike == [
        Finding(
            "warning",
            None,
            "billing:refunds and billing:refunds-v2 read alike (similarity 0.92, warning from "
            "0.50): the agent may confuse them",
        )
    ]


def test_skills_that_read_alike_are_a_warning_then_an_error() -> None:
    menu = Menu("billing:refunds", (REFUNDS, INVOICES, CLONE), (DISPUTES,))
    data = [
        raw("pos", "refund order 1234", True),
        routed("inv", "send the invoice for may", "invoices"),
        routed("v2", "the new refund flow", "refunds-v2"),
    ]
    alike = [f for f in menu_findings(data, menu) if "read alike" in f.message]
    assert alike == [
        Finding(
            "error",
            None,
            "billing:refunds and billing:refunds-v2 read alike (similarity 0.92, error from "
            "0.75): the agent may confuse them",  # 6 of 7 and 6 content words shared: 12/13
        ),
        Finding(
            "warning",
            None,
            "billing:refunds and billing:disputes read alike (similarity 0.57, warning from "
            "0.50): the agent may confuse them",  # 4 shared of 7 and 7: 8/14
        ),
    ]


def test_a_prompt_that_echoes_a_siblings_entry_is_a_warning() -> None:
    menu = Menu("billing:refunds", (REFUNDS, INVOICES))
    data = [
        raw("pos", "refund order 1234", True),
        routed("inv", "creating invoices, sending them, or fixing tax lines", "invoices"),
    ]
    assert menu_findings(data, menu) == (
        Finding(
            "warning",
            "inv",
            "the prompt echoes billing:invoices's description (copies the phrase 'creating "
            "invoices, sending them, or fixing tax lines'): that tests string matching, not "
            "intent",
        ),
    )


# --- the strict policy on routing cases: twins, and groups from the user's own set ---------


def test_strict_holds_routing_cases_to_the_twin_rule() -> None:
    data = [
        routed("inv", "send the invoice for may", "invoices", twin="inv2"),
        routed("inv2", "send the invoice for june", ["invoices", "refunds"]),
        routed("ref", "refund order 1234", "refunds", twin="off"),
        routed("off", "refund policy wording for the blog", None),
    ]
    assert lint(check_cases(data), None, strict=True) == (
        Finding(
            "error",
            "inv",
            "twin 'inv2' expects invoices too: a twin expects another skill or none",
        ),
        Finding(
            "error",
            "inv2",
            "positive without a twin: name a case of another skill or none that shares its "
            "vocabulary",
        ),
    )
    assert lint(check_cases(data), None, strict=False) == ()


def test_strict_asks_a_routing_suite_for_its_own_sets_groups() -> None:
    menu = Menu("billing:refunds", (REFUNDS, INVOICES, DISPUTES))
    data = [
        routed("ref", "refund order 1234", "refunds", twin="inv"),
        routed("inv", "send the invoice for may", "invoices", twin="ref"),
    ]
    findings = lint(check_cases(data), None, True, menu)
    assert [f for f in findings if "read alike" not in f.message] == [
        Finding(
            "error",
            None,
            "no case expects billing:disputes: add positives for it, or a prompt it loses to "
            "a sibling goes unseen",
        ),
        Finding(
            "error",
            None,
            'no case expects no skill: add a prompt no skill should take ("expect": null)',
        ),
    ]
    assert not any("group" in f.message for f in findings)
    alone = Menu("billing:refunds", (REFUNDS,))
    only_none = [routed("off", "export the orders", None)]
    assert lint(check_cases(only_none), None, True, alone) == (
        Finding(
            "error",
            None,
            "no case expects billing:refunds: add positives for it, or a prompt it loses to "
            "a sibling goes unseen",
        ),
    )


def test_a_case_expecting_a_hidden_skill_is_told_it_is_hidden() -> None:
    menu = Menu("billing:refunds", (REFUNDS,), hidden=("billing:invoices",))
    data = [routed("inv", "send the invoice for may", "invoices")]
    assert menu_findings(data, menu) == (
        Finding(
            "error",
            None,
            "case 'inv': 'invoices' is hidden from the model (its SKILL.md says "
            "disable-model-invocation: true), so no prompt can make it fire",
        ),
    )
