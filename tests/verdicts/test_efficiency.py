"""Stage C's efficiency and reliability figures on small inputs, value by value: each
figure's median with its order-statistic interval, the candidate's Hodges-Lehmann ratio with
its rank interval, the cost gate's Wilcoxon test, pass@k and pass^k, and a figure the
agent's stream does not give staying unknown."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest

from activation._errors import ExitCode
from activation._models import (
    COST_FAILS,
    Case,
    CaseVerdict,
    Grade,
    Status,
    ToolCall,
    Trajectory,
    Trial,
    TrialKey,
    Usage,
    gate,
)
from activation.verdicts.behavior import behavior, costs_more
from activation.verdicts.efficiency import (
    CaseEfficiency,
    FigureEfficiency,
    Median,
    Ratio,
    case_ratio,
    cost_gate,
    figure_of,
    median_of,
    suite_ratio,
)
from activation.verdicts.judge import Evidence, judge_all
from activation.verdicts.passk import PassK, pass_at_k, pass_every_k, pass_k_of, suite_pass_k

CASE = Case("c", "do it", True, "why")
EVERY = frozenset({"input_tokens", "output_tokens", "cost_usd", "turns", "tool_calls", "seconds"})


def trial(
    arm: str = "candidate", index: int = 0, cost: float = 1.0, passed: bool = True, **kept: object
) -> Trial:
    key = TrialKey(CASE, arm, index)  # type: ignore[arg-type]
    usage = Usage(requests=1, input_tokens=1000, output_tokens=100, cost_usd=cost)
    grades = (Grade("writes it", "contains", "L1", "passed" if passed else "failed"),)
    found = key.graded(passed, grades, (), "s:s", usage=usage)
    calls = (ToolCall("Bash"), ToolCall("Read"))
    return replace(found, trajectory=Trajectory(calls, turns=4, measured=EVERY), seconds=12.5,
                   **kept)  # type: ignore[arg-type]  # fmt: skip


def test_a_trials_figures_come_from_its_usage_trajectory_and_wall_time() -> None:
    found = trial()
    assert [figure_of(found, name) for name in ("cost_usd", "input_tokens", "turns",
                                                "tool_calls", "seconds")] == [
        1.0, 1000.0, 4.0, 2.0, 12.5
    ]  # fmt: skip


def test_a_figure_the_stream_does_not_give_is_unknown_never_zero() -> None:
    found = trial()
    assert figure_of(found, "cache_read_tokens") is None  # not in `measured`
    unread = replace(found, trajectory=None)
    assert figure_of(unread, "cost_usd") is None
    assert figure_of(replace(found, cached=True), "cost_usd") is None  # it ran nowhere here
    errored = TrialKey(CASE, "candidate", 0).failed("timed out")
    assert figure_of(replace(errored, trajectory=found.trajectory), "turns") is None


def test_the_median_and_its_order_statistic_interval() -> None:
    assert median_of([3.0, 1.0, 2.0]) == Median(2.0, 3, None)  # no 95 % interval of 3
    assert median_of([float(n) for n in range(1, 8)]) == Median(4.0, 7, (1.0, 7.0))
    assert median_of([float(n) for n in range(1, 9)]) == Median(4.5, 8, (1.0, 8.0))
    assert median_of([]) is None


def test_a_case_ratio_is_hodges_lehmann_on_the_log_scale() -> None:
    # The nine pairwise ratios 2/1 ... 6/3 have median 2; a 3-vs-3 rank test never reaches 95 %.
    assert case_ratio([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], "none") == Ratio("none", 2.0, None)
    found = case_ratio([2.0 * n for n in range(1, 8)], [float(n) for n in range(1, 8)], "none")
    assert found is not None
    assert found.value == pytest.approx(2.0)
    assert found.interval == pytest.approx((6 / 7, 14 / 3))
    assert case_ratio([0.0, 1.0], [1.0, 2.0], "none") is None  # a zero has no log ratio
    assert case_ratio([1.0], [], "baseline") is None


def test_the_suite_ratio_is_the_pseudo_median_with_the_wilcoxon_interval() -> None:
    logs = [math.log(value) for value in (1.8, 1.9, 2.0, 2.0, 2.1, 2.2, 2.3, 2.4)]
    found = suite_ratio(logs, "baseline")
    walsh = [(a + b) / 2 for at, a in enumerate(logs) for b in logs[at:]]
    assert found is not None
    assert found.value == pytest.approx(math.exp(statistics.median(walsh)))
    assert found.interval is not None
    low, high = found.interval
    assert 1.8 < low < found.value < high < 2.4
    alone = suite_ratio([math.log(2.0)], "none")
    assert alone is not None
    assert (alone.against, alone.interval) == ("none", None)  # one case: no interval
    assert alone.value == pytest.approx(2.0)
    assert suite_ratio([], "none") is None


def cases_costing(*ratios: float) -> list[CaseEfficiency]:
    return [
        CaseEfficiency(f"case-{at}", (FigureEfficiency("cost_usd", {}, (Ratio("baseline", ratio,
                                                                              None),)),))
        for at, ratio in enumerate(ratios)
    ]  # fmt: skip


def test_the_cost_gate_is_a_one_sided_wilcoxon_over_the_cases_beyond_the_margin() -> None:
    doubled = cost_gate(cases_costing(*[2.0] * 6), 0.25, 0.05)
    assert (doubled.cases, doubled.p, doubled.fails) == (6, 1 / 64, True)
    # Three cases cannot reach 0.05 one-sided (1/8 at best): the gate needs five.
    few = cost_gate(cases_costing(2.0, 2.0, 2.0), 0.25, 0.05)
    assert (few.p, few.fails) == (1 / 8, False)
    within = cost_gate(cases_costing(*[1.2] * 6), 0.25, 0.05)  # 20 % more: inside the margin
    assert (within.p, within.fails) == (1.0, False)
    nothing = cost_gate([], 0.25, 0.05)
    assert (nothing.cases, nothing.p, nothing.fails) == (0, None, False)


def test_pass_at_k_and_pass_every_k_are_the_unbiased_estimators() -> None:
    assert (pass_at_k(2, 3, 3), pass_every_k(2, 3, 3)) == (1.0, 0.0)
    assert pass_every_k(2, 3, 2) == pytest.approx(1 / 3)  # C(2,2) / C(3,2)
    assert pass_at_k(1, 5, 2) == pytest.approx(0.4)  # 1 - C(4,2) / C(5,2)
    assert pass_every_k(4, 5, 2) == pytest.approx(0.6)  # C(4,2) / C(5,2)
    assert pass_k_of(2, 2, 3) == PassK(None, None)  # fewer valid trials than k
    per_case = [{"none": PassK(1.0, 0.5)}, {"none": PassK(0.5, 0.0)}, {"none": PassK(None, None)}]
    assert suite_pass_k(per_case, "none") == PassK(0.75, 0.25, 2)
    assert suite_pass_k(per_case, "llm") == PassK(None, None, 0)


def costs(baseline: float, candidate: float, cases: int) -> list[Trial]:
    found = []
    for at in range(cases):
        case = Case(f"c{at}", "do it", True, "why")
        for arm, cost in (("baseline", baseline), ("candidate", candidate), ("none", 0.5)):
            for index in range(3):
                one = trial(arm, index, cost * (1 + index / 10))
                found.append(replace(one, case_id=case.id))
    return found


def verdicts_of(trials: list[Trial], cases: int) -> tuple[CaseVerdict, ...]:
    by_case = [Case(f"c{at}", "do it", True, "why") for at in range(cases)]
    return judge_all(
        [Evidence(case, [t for t in trials if t.case_id == case.id]) for case in by_case], 0.05
    )


def test_a_run_doubling_its_cost_fails_the_cost_gate_only_when_asked() -> None:
    verdicts = verdicts_of(costs(1.0, 2.0, 6), 6)
    figures = behavior(verdicts, 3)
    assert figures is not None and figures.efficiency is not None
    assert figures.efficiency.figures == ("input_tokens", "output_tokens", "cost_usd", "turns",
                                          "tool_calls", "seconds")  # fmt: skip
    cost = next(found for found in figures.efficiency.suite if found.figure == "cost_usd")
    assert cost.arms["baseline"] == Median(1.1, 18, (1.0, 1.2))
    assert cost.arms["candidate"] == Median(2.2, 18, (2.0, 2.4))
    # Every case costs exactly twice the baseline (four times no skill): the interval is a point.
    assert [ratio.against for ratio in cost.ratios] == ["none", "baseline"]
    assert [ratio.value for ratio in cost.ratios] == pytest.approx([4.0, 2.0])
    assert [ratio.interval for ratio in cost.ratios] == [pytest.approx((4.0, 4.0)),
                                                         pytest.approx((2.0, 2.0))]  # fmt: skip
    assert figures.efficiency.cost.p == 1 / 64
    assert costs_more(verdicts, 0.25, 0.05)
    assert not costs_more(verdicts, 1.5, 0.05)  # 2x is inside a 150 % margin
    statuses = [verdict.status for verdict in verdicts]
    assert set(statuses) == {Status.PASS}
    assert gate(statuses, (COST_FAILS,), costs_more=True) is ExitCode.REGRESSED
    assert gate(statuses, (), costs_more=True) is ExitCode.OK
    assert figures.k == 3
    assert figures.pass_k["candidate"] == PassK(1.0, 1.0, 6)
    assert behavior(verdicts, 3, pass_k=4) is not None
    assert behavior(verdicts, 3, pass_k=4).pass_k["candidate"] == PassK(None, None, 0)  # type: ignore[union-attr]


def test_a_run_whose_stream_gave_no_figure_has_no_efficiency() -> None:
    trials = [replace(one, trajectory=None) for one in costs(1.0, 2.0, 2)]
    figures = behavior(verdicts_of(trials, 2), 3)
    assert figures is not None
    assert figures.efficiency is None
    assert not costs_more(verdicts_of(trials, 2), 0.25, 0.05)
