"""JUnit XML: valid against the Jenkins JUnit schema that GitHub, GitLab and Jenkins read,
and read back by a JUnit parser to the run's cases and verdicts.

The schema (tests/fixtures/jenkins-junit.xsd) is the one JUnit 5's own tests validate their
XML reports with, vendored with its MIT licence header.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import junitparser
import xmlschema

from activation.report.junit import render_junit
from tests.support.reports import HOSTILE, STATUSES, every_status_report

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "fixtures" / "jenkins-junit.xsd")


def test_valid_against_the_jenkins_schema() -> None:
    xml = render_junit(every_status_report())
    SCHEMA.validate(xml.decode())
    assert xml.startswith(b"<?xml version='1.0' encoding='utf-8'?>\n<testsuites ")


def test_a_junit_parser_reads_the_cases_and_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_bytes(render_junit(every_status_report()))
    xml = junitparser.JUnitXml.fromfile(str(path))
    (suite,) = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == (
        "activation billing:refunds", 7, 1, 1, 0,
    )  # fmt: skip
    # junitparser 5 ships py.typed but leaves TestSuite.properties() unannotated.
    properties = {prop.name: prop.value for prop in suite.properties()}  # type: ignore[no-untyped-call]
    assert properties == {
        "skill": "billing:refunds",
        "skill_path": "plugins/payments/skills/refunds/SKILL.md",
        "stage": "A",
        "measured": "Stage A",
        "model": "claude-test-1",
        "trials": "5",
        "max_trials": "5",
        "alpha": "0.05",
        "baseline": "git:main",
        "candidate": "plugins/payments/skills/refunds/SKILL.md",
        "exit_code": "1",
        "verdict": "FAILED: the candidate regressed.",
        "activation_version": "0.2.0",
        "errors": "Coverage: 65 of 70 planned trials (93%) scored; errors: 5 model.",
    }
    cases = {case.name: case for case in suite}
    assert list(cases) == list(STATUSES)
    assert {name: case.classname for name, case in cases.items()} == {
        "stripe-dispute": "keyword-loss",
        "plain-refund": "keyword-loss",
        "chargeback-neg": "negative",
        "flaky": "indirect",
        "never": "indirect",
        "charts-neg": "negative",
        "broken": "untagged",
    }
    outcomes = {
        name: [type(result).__name__ for result in case.result] for name, case in cases.items()
    }
    assert outcomes == {
        "stripe-dispute": ["Failure"],
        "plain-refund": [],
        "chargeback-neg": [],
        "flaky": [],
        "never": [],
        "charts-neg": [],
        "broken": ["Error"],
    }
    (failure,) = cases["stripe-dispute"].result
    assert failure.type == "REGRESSED"
    assert failure.message == "REGRESSED: baseline 5/5, candidate 0/5, q 0.003; fired nothing 5/5"
    assert failure.text.splitlines() == [
        "status: REGRESSED",
        "expected: activate",
        "baseline: 5/5 activated",
        "candidate: 0/5 activated",
        "baseline went to: billing:refunds 5/5",
        "candidate went to: no skill 5/5",
        "p: 1e-03",
        "q: 0.003",
        "prompt: a customer opened a stripe dispute, what now",
        "why: names it",
    ]
    (error,) = cases["broken"].result
    assert error.message == "ERROR: baseline 5/5, candidate 0/0 +5 err"
    assert error.text.splitlines()[-1] == "candidate error: scripted error"
    assert cases["flaky"].system_out.splitlines()[8] == f"prompt: {HOSTILE}"


def test_control_characters_and_unfinished_cases_stay_valid() -> None:
    report = every_status_report()
    first = report.cases[0]
    odd = replace(first, prompt="bell \x07 and nul \x00 here")
    summary = replace(report.summary, unfinished=("cut-short",))
    report = replace(report, cases=(odd, *report.cases[1:]), summary=summary)
    xml = render_junit(report)
    SCHEMA.validate(xml.decode())
    assert "prompt: bell \ufffd and nul \ufffd here" in xml.decode()
    suite = next(iter(junitparser.JUnitXml.fromstring(xml.decode())))
    assert (suite.tests, suite.skipped) == (8, 1)
    skipped = next(case for case in suite if case.name == "cut-short")
    assert skipped.classname == "unfinished"
    assert [type(result).__name__ for result in skipped.result] == ["Skipped"]
