"""The dry-run plan's pieces: the word diff of the two descriptions, the cases by group."""

from __future__ import annotations

from activation._models import Case
from activation.report.phrases import word_diff
from activation.report.plan import case_counts, groups


def test_word_diff() -> None:
    assert word_diff("Use for login with Auth0", "Use for signup with Auth0 today") == [
        ("=", "Use for"),
        ("-", "login"),
        ("+", "signup"),
        ("=", "with Auth0"),
        ("+", "today"),
    ]
    assert word_diff("same words", "same   words") == [("=", "same words")]


def test_groups_by_first_tag_in_file_order() -> None:
    cases = [
        Case("a", "p", True, "w", ("kw", "fw")),
        Case("b", "p", False, "w", ("negative",)),
        Case("c", "p", True, "w", ()),
        Case("d", "p", True, "w", ("kw",)),
    ]
    assert groups(cases) == {"kw": ["a", "d"], "negative": ["b"], "untagged": ["c"]}


def test_case_counts_say_what_a_routing_suite_expects() -> None:
    plain = [Case("a", "p", True, "w"), Case("b", "p", False, "w"), Case("c", "p", False, "w")]
    assert case_counts(plain, "b:r") == "1 should activate, 2 should not"
    routed = [
        Case("a", "p", True, "w", expect=("b:r",)),
        Case("b", "p", False, "w", expect=("b:i",)),
        Case("c", "p", False, "w", expect=("b:i", "b:d")),
        Case("d", "p", False, "w", expect=()),
    ]
    assert case_counts(routed, "b:r") == "1 expect b:r, 2 expect another skill, 1 expect none"
    mixed = [*routed[1:], Case("e", "p", False, "w")]
    assert case_counts(mixed, "b:r") == (
        "0 expect b:r, 2 expect another skill, 1 expect none, 1 expect anything but b:r"
    )
