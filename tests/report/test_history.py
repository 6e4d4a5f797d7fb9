"""The history's pure core: what a point is keyed by, how an edit is told from drift, the
base branch's last green run, and the badge's colour."""

from __future__ import annotations

from dataclasses import replace

from activation.report.history import (
    against,
    badges,
    delta_line,
    digest,
    history_of,
    last_green,
    with_against,
)
from activation.report.history_html import chart
from activation.report.matrix import Matrix, of_report
from activation.report.model import AgentSettings, Delta, Report
from activation.verdicts.figures import Count
from tests.support.behavior_reports import behavior_report
from tests.support.reports import every_status_report


def _run(report: Report) -> Matrix:
    return of_report(report)


def test_an_edit_is_told_from_drift_and_from_nothing_moving() -> None:
    report = every_status_report()
    newer_tool = replace(report, version="9.9.9")
    edited = replace(newer_tool, candidate=replace(report.candidate, description="Refunds."))
    newer_agent = replace(edited, agent=AgentSettings(version="2.0.1"))
    runs = [("r1", report), ("r2", report), ("r3", newer_tool), ("r4", edited),
            ("r5", newer_agent)]  # fmt: skip
    found = history_of([(name, _run(one)) for name, one in runs])
    (series,) = found.series
    assert series.key == ("billing:refunds", "A/claude-code/claude-test-1")
    assert [point.change for point in series.points] == ["first", "same", "drift", "edit",
                                                         "drift"]  # fmt: skip
    assert [point.agent_version for point in series.points] == [None] * 4 + ["2.0.1"]
    assert series.points[3].description != series.points[2].description
    assert series.points[0].body is None


def test_the_last_green_run_is_the_last_with_exit_0() -> None:
    report = every_status_report()
    green, red = replace(report, exit_code=0), replace(report, exit_code=1)
    runs = [("a", _run(green)), ("b", _run(green)), ("c", _run(red))]
    assert last_green(runs) == "b"
    assert last_green(runs[2:]) is None
    found = against(history_of(runs[2:]), runs)
    assert found.base_run == "b"
    delta = (found.deltas or {})[found.series[0].key]
    assert delta.base_run == "b"
    assert delta.changes == {"recall": 0.0, "false_positives": 0.0, "cost_usd": 0.0}


def test_each_cell_is_measured_against_the_last_green_run_that_ran_it() -> None:
    report = every_status_report()  # the candidate: recall 2/4, false positives 0/2
    other = replace(report, skill=replace(report.skill, id="billing:invoices"))
    green = replace(report, exit_code=0)
    runs = [("main-1", _run(green)), ("main-2", _run(replace(other, exit_code=0))),
            ("main-3", _run(replace(report, exit_code=1)))]  # fmt: skip
    candidate = replace(report.summary.candidate, recall=Count(3, 4))
    better = replace(report, summary=replace(report.summary, candidate=candidate))
    pr = Matrix(version=report.version, exit_code=1, cells=(better, other), usage=report.usage)
    cells = with_against(pr, runs).cells
    assert [cell.against for cell in cells] == [
        Delta("main-1", {"recall": 0.25, "false_positives": 0.0, "cost_usd": 0.0}),
        Delta("main-2", {"recall": 0.0, "false_positives": 0.0, "cost_usd": 0.0}),
    ]
    assert cells[0].against is not None
    assert delta_line(cells[0].against) == (
        "against main-1: recall +25 pts, false positives +0 pts, cost (USD) +0.0000 USD"
    )
    assert with_against(pr, runs[2:]).cells == pr.cells


def test_a_badge_is_grey_when_a_cell_has_no_verdict() -> None:
    report = every_status_report()  # the candidate: recall 2/4, false positives 0/2
    for code, color in ((0, "brightgreen"), (1, "red"), (3, "lightgrey")):
        found = history_of([("r", _run(replace(report, exit_code=code)))])
        assert badges(found) == {
            "billing:refunds": {
                "schemaVersion": 1,
                "label": "activation billing:refunds",
                "message": "recall 50%, fp 0%",
                "color": color,
            }
        }


def test_a_behavior_run_adds_its_pass_rate_lift_and_body_change() -> None:
    report = behavior_report()
    (series,) = history_of([("c1", _run(report))]).series
    (point,) = series.points
    assert point.body == digest(report.body_diff or "")
    assert {name: figure.text for name, figure in point.figures.items()} == {
        "recall": "2/3", "pass_rate": "6/9", "lift": "+54%", "cost_usd": "$0.2600",
    }  # fmt: skip
    lift = chart(series, "lift")
    assert lift is not None
    assert [label for _, label in lift.ticks] == ["-100%", "+0%", "+100%"]
    (dot,) = lift.dots
    assert (dot.x, dot.y) == (226.0, 35.2)  # the middle; 10 + 110 * (1 - 0.54) / 2
    assert dot.title.startswith("c1: +54% (+8% to +78%); exit 1; first; description ")
    assert chart(series, "false_positives") is None
