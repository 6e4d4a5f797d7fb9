"""The suggestion's headline and exit code, from its holdback: what the user is told."""

from __future__ import annotations

from dataclasses import replace

from activation._models import Status, Usage
from activation.report.suggestion import Splits, Suggestion, headline
from tests.support.reports import every_status_report

ORIGINAL, CHOSEN = "Use when issuing refunds.", "Use when issuing refunds or chargebacks."


def suggestion(chosen: str = CHOSEN, **fields: object) -> Suggestion:
    made = Suggestion(
        version="test",
        skill="billing:refunds",
        skill_path="plugins/payments/skills/refunds/SKILL.md",
        original=ORIGINAL,
        chosen=chosen,
        cells=("A/claude-code/claude-sonnet-5-5",),
        splits=Splits(("t",), ("s",), ("h",)),
        rounds=(),
        stopped="round 2 found nothing better",
        usage=Usage(),
    )
    return replace(made, **fields)  # type: ignore[arg-type]


def test_nothing_chosen_says_so_and_exits_0() -> None:
    found = suggestion(chosen=ORIGINAL)
    assert headline(found).startswith("No proposal beat the current description")
    assert found.exit_code == 0


def test_a_holdback_without_gain_says_so_plainly() -> None:
    report = every_status_report()
    even = tuple(
        replace(entry, candidate=entry.baseline, status=Status.PASS) for entry in report.cases
    )
    held = replace(report, cases=even, exit_code=0)
    found = suggestion(holdback=held)
    right = sum(entry.baseline.right for entry in even)
    assert headline(found) == (
        f"The holdback shows no gain: {right} of {len(even)} (case, cell) pairs right with "
        f"the chosen description, {right} with the original. Keep the original unless the "
        "select figures convince you."
    )


def test_a_regression_on_the_holdback_is_exit_1() -> None:
    report = every_status_report()
    assert report.exit_code == 1  # it has a REGRESSED case
    assert suggestion(holdback=report).exit_code == 1


def test_a_search_the_ceiling_ended_fails_closed() -> None:
    found = suggestion(ceiling_hit=True)
    assert found.exit_code == 3
    assert "did not get to the holdback (the cost ceiling)" in headline(found)
