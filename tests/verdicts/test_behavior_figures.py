"""Stage C's figures: pass rates per arm, grader and level (void apart, errors apart), the
skill's lift over no skill with Newcombe's interval, loaded vs not, the grader that broke
first; and `--fail-on no-lift` in the one exit rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activation._errors import ExitCode
from activation._models import NO_LIFT_FAILS, Grade, Status, gate
from activation.verdicts.behavior import (
    Rate,
    behavior,
    grade_rate,
    levels_of,
    lift_missing,
    trial_rate,
)
from activation.verdicts.judge import Evidence, judge_all
from activation.verdicts.stats import newcombe_interval
from tests.support.behavior_reports import (
    CASES,
    NOTHING,
    PASSING,
    behavior_outcome,
    graded,
)
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally

Z = 1.959963984540054


def wilson(hits: int, total: int) -> tuple[float, float]:
    """The Wilson score interval by its formula (not scipy's)."""
    p = hits / total
    centre = (p + Z * Z / (2 * total)) / (1 + Z * Z / total)
    half = Z / (1 + Z * Z / total) * ((p * (1 - p) / total + Z * Z / (4 * total**2)) ** 0.5)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(a: int, m: int, b: int, n: int) -> tuple[float, float]:
    """Newcombe's method 10 by its formula, on the hand-made Wilson intervals."""
    (l1, u1), (l2, u2) = wilson(a, m), wilson(b, n)
    p1, p2 = a / m, b / n
    return (
        p1 - p2 - ((p1 - l1) ** 2 + (u2 - p2) ** 2) ** 0.5,
        p1 - p2 + ((u1 - p1) ** 2 + (p2 - l2) ** 2) ** 0.5,
    )


def test_the_newcombe_interval_matches_its_formula() -> None:
    assert newcombe_interval(6, 9, 1, 8) == pytest.approx(newcombe(6, 9, 1, 8), abs=1e-12)
    assert newcombe_interval(6, 9, 1, 8) == pytest.approx((0.075541, 0.777856), abs=1e-6)
    # Newcombe (1998), Statistics in Medicine 17:873, table II, method 10.
    assert newcombe_interval(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    assert newcombe_interval(9, 10, 3, 10) == pytest.approx((0.1705, 0.8090), abs=5e-5)
    assert newcombe_interval(3, 3, 0, 3) == pytest.approx((0.205923, 1.0), abs=1e-6)
    low, high = newcombe_interval(0, 3, 0, 3)
    assert (low, high) == pytest.approx((-0.561497, 0.561497), abs=1e-6)


def test_a_grader_rate_leaves_void_out_and_counts_errors_apart() -> None:
    def grades(*outcomes: str) -> list[Grade]:
        return [Grade("g", "contains", "L1", outcome) for outcome in outcomes]  # type: ignore[arg-type]

    found = grade_rate(grades("passed", "failed", "void", "error", "passed"))
    assert (found.passed, found.applied, found.errors, found.void) == (2, 3, 1, 1)
    assert found.interval == pytest.approx(wilson(2, 3), abs=1e-12)
    assert grade_rate(grades("void", "void")) == Rate(0, 0, 0, 2, None)


def test_a_trial_rate_counts_errors_apart() -> None:
    case = CASES[0]
    trials = [graded(case, "none", 0, PASSING), graded(case, "none", 1, NOTHING),
              graded(case, "none", 2, None)]  # fmt: skip
    found = trial_rate(trials)
    assert (found.passed, found.applied, found.errors) == (1, 2, 1)
    assert found.value == 0.5


def test_the_figures_of_a_behavior_run() -> None:
    outcome = behavior_outcome()
    found = behavior(outcome.verdicts, outcome.spec.trials)
    assert found is not None
    assert found.arms == ("baseline", "candidate", "none")
    suite = {arm: (r.passed, r.applied, r.errors) for arm, r in found.suite.items()}
    assert suite == {"baseline": (9, 9, 0), "candidate": (6, 9, 0), "none": (1, 8, 1)}
    assert found.suite["candidate"].interval == pytest.approx(wilson(6, 9), abs=1e-12)
    checkout, webhook, refund = found.cases

    assert checkout.status is Status.REGRESSED
    rates = {arm: (r.passed, r.applied, r.errors) for arm, r in checkout.arms.items()}
    assert rates == {"baseline": (3, 3, 0), "candidate": (0, 3, 0), "none": (0, 3, 0)}
    assert checkout.arms["baseline"].interval == pytest.approx((0.438503, 1.0), abs=1e-6)
    assert checkout.broke == "no invented client.refunds.force()"
    assert [(g.grader, g.level) for g in checkout.graders] == [
        ("imports the payments SDK", "L1"),
        ("no invented client.refunds.force()", "L2"),
        ("the judge: a working refund flow", None),
    ]
    l2 = checkout.graders[1]
    assert {arm: (r.passed, r.applied, r.void) for arm, r in l2.arms.items()} == {
        "baseline": (3, 3, 0),
        "candidate": (0, 3, 0),
        "none": (0, 0, 3),
    }
    assert l2.arms["none"].interval is None
    assert checkout.lift is not None
    assert (checkout.lift.difference, checkout.lift.shown) == (0.0, False)
    assert checkout.lift.interval == pytest.approx((-0.561497, 0.561497), abs=1e-6)

    assert webhook.status is Status.PASS and webhook.broke is None
    assert webhook.lift is not None
    assert webhook.lift.difference == pytest.approx(2 / 3)
    assert webhook.lift.interval == pytest.approx(newcombe(3, 3, 1, 3), abs=1e-12)
    assert webhook.lift.shown is False  # 3/3 vs 1/3 is not enough trials to show it

    none = refund.arms["none"]
    assert (none.passed, none.applied, none.errors, none.void) == (0, 2, 1, 0)
    assert none.interval == pytest.approx(wilson(0, 2), abs=1e-12)
    assert refund.lift is not None
    assert refund.lift.difference == 1.0
    assert refund.lift.interval == pytest.approx((0.135279, 1.0), abs=1e-6)
    assert refund.lift.shown is True

    # The suite: 6/9 with the skill against 1/8 without (the errored trial apart).
    assert found.lift is not None
    assert (found.lift.candidate.passed, found.lift.candidate.applied) == (6, 9)
    assert (found.lift.none.passed, found.lift.none.applied, found.lift.none.errors) == (1, 8, 1)
    assert found.lift.difference == pytest.approx(6 / 9 - 1 / 8)
    assert found.lift.interval == pytest.approx(newcombe(6, 9, 1, 8), abs=1e-12)
    assert found.lift_shown is True

    levels = {level.level: level for level in found.levels}
    assert list(levels) == ["L1", "L2", None]
    assert {arm: (r.passed, r.applied, r.void) for arm, r in levels["L2"].arms.items()} == {
        "baseline": (9, 9, 0),
        "candidate": (6, 9, 0),
        "none": (1, 1, 7),
    }
    assert levels[None].arms["candidate"].passed == 6

    base, cand = found.loading
    assert (base.arm, base.loaded.passed, base.loaded.applied, base.not_loaded.applied) == (
        "baseline", 9, 9, 0
    )  # fmt: skip
    assert base.not_loaded.interval is None
    assert (cand.loaded.passed, cand.loaded.applied) == (5, 8)
    assert (cand.not_loaded.passed, cand.not_loaded.applied) == (1, 1)
    assert cand.loaded.interval == pytest.approx(wilson(5, 8), abs=1e-12)


def test_the_suite_lift_counts_each_case_first_round_only() -> None:
    """An escalated case's extra candidate trials would weigh it more than the others: the
    `none` arm ran one round."""
    case = CASES[0]
    extra = [graded(case, "candidate", index, PASSING) for index in range(3, 9)]
    outcome = behavior_outcome()
    verdicts = judge_all(
        [
            Evidence(v.case, (*v.trials, *(extra if v.id == case.id else ())))
            for v in outcome.verdicts
        ],
        0.05,
    )
    found = behavior(verdicts, 3)
    assert found is not None and found.lift is not None
    assert (found.lift.candidate.passed, found.lift.candidate.applied) == (6, 9)
    first = found.case("checkout").rate("candidate")
    assert first is not None and (first.passed, first.applied) == (6, 9)


def test_without_a_none_arm_there_is_no_lift_and_without_grades_no_figures() -> None:
    outcome = behavior_outcome(without="none")
    found = behavior(outcome.verdicts, 3)
    assert found is not None
    assert found.arms == ("baseline", "candidate")
    assert found.lift is None and found.lift_shown is False
    assert all(case.lift is None for case in found.cases)
    assert lift_missing(outcome.verdicts, 3) is True
    activation = (judge(POSITIVE, tally(3, 3), tally(0, 3), 0.05),
                  judge(NEGATIVE, tally(0, 3), tally(0, 3), 0.05))  # fmt: skip
    assert behavior(activation, 3) is None
    assert lift_missing(activation, 3) is False


def test_an_unshown_lift_fails_the_gate_only_when_asked() -> None:
    assert gate([Status.PASS], (), no_lift=True) is ExitCode.OK
    assert gate([Status.PASS], (NO_LIFT_FAILS,), no_lift=True) is ExitCode.REGRESSED
    assert gate([Status.PASS], (NO_LIFT_FAILS,), no_lift=False) is ExitCode.OK
    assert gate([Status.ERROR], (NO_LIFT_FAILS,), no_lift=True) is ExitCode.REGRESSED
    assert gate([Status.ERROR], (NO_LIFT_FAILS,), no_lift=False) is ExitCode.INCOMPLETE
    assert gate([Status.PASS], (NO_LIFT_FAILS,), interrupted=True, no_lift=True) == 130


def test_a_lift_is_shown_on_the_lower_bound_alone() -> None:
    outcome = behavior_outcome()
    webhook = outcome.verdicts[1]
    alone = behavior((replace(webhook),), 3)
    assert alone is not None and alone.lift is not None
    assert alone.lift.interval[0] < 0 < alone.lift.difference
    assert lift_missing((webhook,), 3) is True
    assert lift_missing(outcome.verdicts, 3) is False


def test_only_a_cases_one_last_judge_with_no_level_is_its_final_judge() -> None:
    """The seeds end a case with one holistic judge; skill-creator's assertions are judges
    with no level, one check each: unlevelled, as is any other grader with none."""

    def grade(kind: str, level: str | None) -> Grade:
        return Grade(f"{kind} {level}", kind, level, "passed")

    seed = [grade("matches", None), grade("contains", "L1"), grade("judge", None)]
    assert levels_of(seed) == ("unlevelled", "L1", None)
    assertions = [grade("judge", None), grade("judge", None)]
    assert levels_of(assertions) == ("unlevelled", "unlevelled")
    assert levels_of([grade("judge", None), grade("judge", "L4")]) == ("unlevelled", "L4")
    assert levels_of([grade("judge", None), grade("contains", None)]) == (
        "unlevelled",
        "unlevelled",
    )
    assert levels_of([grade("judge", None)]) == (None,)
    assert levels_of([]) == ()
