"""A behavior run's verdicts and summary say what Stage C measures: whether the graders
passed, not whether the skill loaded."""

from __future__ import annotations

from dataclasses import replace

import orjson

from activation.report.codec import parse_report, report_json
from activation.report.model import build_report
from tests.support.behavior_reports import TARGET, behavior_outcome


def test_a_candidate_that_loaded_every_time_and_never_passed_reads_as_failing() -> None:
    """Stage C measures passing: `checkout`'s candidate loaded the skill in 3 of 3 trials
    and passed 0 of 3, so its verdict is False and the summary counts 0 of 1 case passed,
    in the JSON as read back, whatever its loading says."""
    outcome = behavior_outcome()
    checkout = outcome.verdicts[0]
    alone = replace(
        outcome,
        inputs=replace(outcome.inputs, cases=(checkout.case,)),
        verdicts=(checkout,),
        trials=checkout.trials,
    )
    report = build_report(alone, "0.2.0")
    data = orjson.loads(report_json(report, full=True))
    (case,) = data["cases"]
    assert case["status"] == "REGRESSED"
    assert case["candidate"] == {"activated": 3, "valid": 3, "errors": 0, "correct": 0,
                                 "routes": {TARGET: 3}, "graded": True, "verdict": False,
                                 "right": False}  # fmt: skip
    assert (case["baseline"]["activated"], case["baseline"]["correct"]) == (3, 3)
    assert case["baseline"]["verdict"] is True
    assert data["summary"]["candidate"]["recall"] == [0, 1]
    assert data["summary"]["baseline"]["recall"] == [1, 1]
    assert data["summary"]["regressed"] == ["checkout"]
    again = parse_report(data, "c.json")
    assert (again.cases[0].candidate.verdict, again.summary.candidate.recall) == (False, (0, 1))
    assert report_json(again, full=True) == report_json(report, full=True)
