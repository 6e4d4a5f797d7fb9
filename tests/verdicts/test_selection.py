"""The rule that picks a round's winner among judged proposals."""

from __future__ import annotations

from activation._models import Case, CaseVerdict
from activation.verdicts.selection import by_cell, judge_proposal, rejected, winner
from tests.support.verdicts import judge, tally

TARGET = "billing:refunds"


def verdict(case_id: str, current: int, proposal: int, n: int = 5) -> CaseVerdict:
    """A positive of the target right `current` then `proposal` times of `n`."""
    made = Case(case_id, f"prompt {case_id}", True, "why", ("kw",))
    return judge(made, tally(current, n), tally(proposal, n), alpha=0.05)


def sibling_case(case_id: str, current: int, proposal: int) -> CaseVerdict:
    """A case of the sibling, which the target fired on `current`, then `proposal`, of 3
    trials (right when it did not)."""
    base = Case(case_id, f"prompt {case_id}", False, "why", ("kw",), expect=("billing:disputes",))
    before, after = (tally(n, 3, should_activate=False) for n in (current, proposal))
    return judge(base, before, after, alpha=0.05)


def test_a_significant_gain_that_loses_nothing_wins() -> None:
    found = judge_proposal("better", {"A": [verdict("a", 0, 5), verdict("b", 5, 5)]}, TARGET)
    assert (found.correct, found.current_correct, found.worst_cell) == (2, 1, 2)
    assert found.improved == ("A: a",) and found.out is None and found.beats_current
    assert winner([found]) is found


def test_a_regression_in_any_cell_puts_it_out() -> None:
    cells = {"A": [verdict("a", 0, 5)], "B": [verdict("a", 5, 0)]}
    found = judge_proposal("mixed", cells, TARGET)
    assert found.out == "REGRESSED a (B)"
    assert winner([found]) is None


def test_a_weakened_case_puts_it_out() -> None:
    weakened = verdict("w", 30, 20, n=30)  # right by majority both times, significantly lower
    found = judge_proposal("weaker", {"A": [weakened, verdict("a", 0, 5)]}, TARGET)
    assert weakened.status.value == "WEAKENED"
    assert found.out == "WEAKENED w (A)"


def test_taking_a_siblings_case_puts_it_out_significant_or_not() -> None:
    taken = sibling_case("s", 0, 2)
    found = judge_proposal("greedy", {"A": [taken, verdict("a", 0, 5)]}, TARGET)
    assert taken.status.value == "UNSTABLE"  # not significant on its own
    assert found.stolen == ("A: s",)
    assert found.out == "takes siblings' cases s (A)"


def test_no_significant_gain_is_not_better() -> None:
    found = judge_proposal("same", {"A": [verdict("a", 2, 3)]}, TARGET)
    assert found.out is None and not found.beats_current
    assert winner([found]) is None


def test_the_best_is_most_right_then_the_worst_cell_then_the_shortest() -> None:
    gains = {"A": [verdict("a", 0, 5), verdict("b", 0, 5)]}
    one = judge_proposal("one gain", {"A": [verdict("a", 0, 5), verdict("b", 0, 0)]}, TARGET)
    long = judge_proposal("two gains, long", gains, TARGET)
    short = judge_proposal("two gains", gains, TARGET)
    assert winner([one, long, short]) is short
    assert winner([rejected("x", "it echoes train prompt 1"), one]) is one


def test_a_rejected_text_is_out_with_its_reason() -> None:
    assert rejected("x", "over 1,024 characters").out == "over 1,024 characters"


def test_pairs_are_said_by_cell() -> None:
    assert by_cell(["A: a", "A: b", "B: c"]) == "a, b (A); c (B)"
