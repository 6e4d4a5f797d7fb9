"""The dry-run plan's pieces: the word diff of the two descriptions, the cases by group."""

from __future__ import annotations

from activation._models import Case
from activation.report.plan import groups
from activation.report.words import word_diff


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
