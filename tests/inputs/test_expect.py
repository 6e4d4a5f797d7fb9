"""Cases that say which skill should fire: `expect` and `must_not` as a cases file writes
them, and resolved against the menu (bare names, ambiguity, ids that name nothing)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation._errors import InputError
from activation._models import Case
from activation.inputs.cases import check_cases, parse_cases, resolve_ids

MENU = ["billing:refunds", "billing:disputes", "shop:refunds", "charts"]


def one(**fields: object) -> dict[str, object]:
    return {"id": "c", "prompt": "p", "why": "w", **fields}


@pytest.mark.parametrize(
    ("given", "expect"),
    [
        ({"expect": "billing:disputes"}, ("billing:disputes",)),
        ({"expect": ["charts", " billing:disputes ", "charts"]}, ("charts", "billing:disputes")),
        ({"expect": None}, ()),
        ({"should_activate": True}, None),
    ],
)
def test_expect_as_written(given: dict[str, object], expect: tuple[str, ...] | None) -> None:
    (case,) = parse_cases([one(**given)], "cases.json").cases
    assert case.expect == expect


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"expect": 3}, "'expect' must be a skill id, a list of skill ids or null"),
        ({"expect": ["a", ""]}, "'expect' must be a skill id, a list of skill ids or null"),
        ({"expect": "a", "must_not": None}, "'must_not' must be a skill id, a list of skill ids"),
        ({}, "missing 'should_activate'"),
    ],
)
def test_a_bad_expectation_is_a_problem_of_the_case(given: dict[str, object], message: str) -> None:
    (problem,) = check_cases([one(**given)]).problems
    assert (problem.case_id, problem.message) == ("c", message)


def test_ids_resolve_against_the_menu_and_derive_should_activate() -> None:
    cases = (
        Case("a", "p", False, "w", expect=("disputes",), must_not=("charts",)),
        Case("b", "p", False, "w", expect=("billing:refunds", "charts")),
        Case("c", "p", True, "w"),
        Case("d", "p", True, "w", expect=()),
    )
    a, b, c, d = resolve_ids(cases, "billing:refunds", MENU)
    assert (a.expect, a.must_not, a.should_activate) == (("billing:disputes",), ("charts",), False)
    assert (b.expect, b.should_activate) == (("billing:refunds", "charts"), True)
    assert c == cases[2]  # a should_activate case is left as it is
    assert (d.expect, d.should_activate) == ((), False)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("refunds", "case 'a': 'refunds' is ambiguous (billing:refunds, shop:refunds)"),
        (
            "dispute",
            "case 'a': 'dispute' names no skill of the menu (did you mean billing:disputes?)",
        ),
        (
            "weather",
            "case 'a': 'weather' names no skill of the menu (it has billing:disputes, "
            "billing:refunds, charts, shop:refunds)",
        ),
    ],
)
def test_an_id_that_names_no_skill_or_several_is_an_input_error(given: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        resolve_ids((Case("a", "p", False, "w", expect=(given,)),), "charts", MENU)
    assert str(raised.value) == message
    with pytest.raises(InputError):
        resolve_ids((Case("a", "p", False, "w", must_not=(given,)),), "charts", MENU)


def test_expect_any_skill_needs_must_not_and_stands_alone() -> None:
    (case,) = parse_cases([one(expect="*", must_not="disputes")], "cases.json").cases
    assert (case.expect, case.must_not, case.any_skill) == (("*",), ("disputes",), True)
    (problem,) = check_cases([one(expect="*")]).problems
    assert problem.message == "'expect' '*' needs 'must_not': else any answer is right"
    (problem,) = check_cases([one(expect=["*", "charts"], must_not="a")]).problems
    assert problem.message == "'expect' '*' (any skill) stands alone"


def test_a_case_that_expects_any_skill_is_right_unless_its_must_not_fires() -> None:
    case = Case("a", "p", False, "w", expect=("*",), must_not=("billing:disputes",))
    (resolved,) = resolve_ids((case,), "charts", MENU)
    assert resolved == case  # about another skill: nothing of the measured one
    assert [
        resolved.is_right(chose, "charts") for chose in ((), ("charts",), ("shop:refunds",))
    ] == [
        True,
        True,
        True,
    ]
    assert resolved.is_right(("charts", "billing:disputes"), "charts") is False
    assert resolved.settled(("charts",), "charts") is False
    (own,) = resolve_ids((replace(case, must_not=("charts",)),), "charts", MENU)
    assert (own.expect, own.should_activate, own.must_not) == (None, False, ("charts",))
    assert own.is_right(("charts",), "charts") is False  # the measured skill's own negative


def test_an_id_by_a_skills_frontmatter_name_resolves_to_that_skill() -> None:
    """Claude Code lists `toolkit:skill-development (toolkit:claude-code-skill-development)`
    and resolves the display name to the skill: a case may name it so; an alias whose skill
    is not on the menu still names nothing."""
    menu = ["toolkit:skill-development", "toolkit:research"]
    aliases = {
        "toolkit:claude-code-skill-development": "toolkit:skill-development",
        "toolkit:gone": "toolkit:elsewhere",
    }
    case = Case("a", "p", False, "w", expect=("toolkit:claude-code-skill-development",))
    (resolved,) = resolve_ids((case,), "toolkit:skill-development", menu, aliases=aliases)
    assert (resolved.expect, resolved.should_activate) == (("toolkit:skill-development",), True)
    with pytest.raises(InputError) as raised:
        resolve_ids(
            (replace(case, expect=("toolkit:gone",)),), "toolkit:research", menu, aliases=aliases
        )
    assert str(raised.value) == (
        "case 'a': 'toolkit:gone' names no skill of the menu (it has toolkit:research, "
        "toolkit:skill-development)"
    )
