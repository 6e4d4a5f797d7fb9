"""Every output says whose the errors were and what share of the cell was scored, and a
cell below the coverage floor is not judged (exit 3) while a run without errors is judged
as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import anyio
import orjson
from rich.console import Console

from activation._errors import ExitCode
from activation._models import (
    Coverage,
    ErrorClass,
    Inputs,
    RunSpec,
    Target,
    Trial,
    TrialKey,
    Variant,
)
from activation.report.codec import parse_report, report_json
from activation.report.html import render_html
from activation.report.junit import render_junit
from activation.report.markdown import render_markdown
from activation.report.model import Report, build_report
from activation.report.terminal import render_report
from activation.trials.engine import execute_async
from activation.trials.fake import Answer, FakeBackend, Script
from tests.support.reports import BASELINE, CANDIDATE, CASES, answer
from tests.support.skill_repo import SKILL_PATH

DOWN = ("never", "charts-neg", "broken")
"""Cases whose every trial errors: 30 of the 70 planned."""


def thin(key: TrialKey) -> Answer:
    return None if key.case.id in DOWN else answer(key)


class ClassedErrors(FakeBackend):
    """The fake's errors, one class per case: the model's, a grader's and the agent's."""

    async def run(self, key: TrialKey) -> Trial:
        trial = await super().run(key)
        kinds = {"never": ErrorClass.MODEL, "charts-neg": ErrorClass.GRADER}
        kind = kinds.get(key.case.id, ErrorClass.AGENT_SETUP)
        return replace(trial, error_class=kind) if trial.is_error else trial


def report_of(
    script: Script, backend: type[FakeBackend] = FakeBackend, min_coverage: float = 0.8
) -> Report:
    repo = Path("/work/skills")
    target = Target(repo, Path(SKILL_PATH), repo / "plugins/payments", "billing", "refunds")
    inputs = Inputs(
        target, CASES, (),
        Variant("git:main", BASELINE, "", "git main:" + SKILL_PATH),
        Variant(SKILL_PATH, CANDIDATE, "", "file " + SKILL_PATH),
    )  # fmt: skip
    spec = RunSpec(model="claude-test-1", trials=5, max_trials=5, min_coverage=min_coverage)
    outcome = anyio.run(execute_async, spec, inputs, backend(script, target=target.skill_id))
    return build_report(outcome, "0.2.0")


def test_a_cell_below_the_floor_is_not_judged_whatever_its_statuses() -> None:
    report = report_of(thin, ClassedErrors)
    assert report.summary.regressed == ("stripe-dispute",)
    assert report.summary.coverage == Coverage(40, 70)
    assert report.exit_code == ExitCode.INCOMPLETE
    assert report.summary.errors_by_class == {"agent_setup": 10, "model": 10, "grader": 10}
    line = (
        "INCOMPLETE: cell A/claude-code/claude-test-1 scored 40 of 70 planned trials (57%), "
        "below --min-coverage 80%: not judged."
    )
    errors = (
        "Coverage: 40 of 70 planned trials (57%) scored; errors: 10 agent setup, 10 model, "
        "10 grader."
    )
    console = Console(width=200, record=True)
    console.print(render_report(report))
    terminal = console.export_text()
    assert line in terminal
    assert errors in terminal
    markdown = render_markdown(report)
    assert markdown.startswith(
        "### ⚠️ activation: INCOMPLETE: cell A/claude-code/claude-test-1 scored 40 of 70 "
        "planned trials \\(57%\\), below --min-coverage 80%: not judged.\n"
    )
    assert errors.replace("(57%)", "\\(57%\\)") in markdown
    properties = {
        item.get("name"): item.get("value")
        for item in ElementTree.fromstring(render_junit(report)).iter("property")
    }
    assert properties["verdict"] == line
    assert properties["errors"] == errors
    assert errors in render_html(report)
    assert line in render_html(report)


def test_a_lower_floor_judges_the_same_cell_and_the_regression_fails_the_gate() -> None:
    report = report_of(thin, ClassedErrors, min_coverage=0.5)
    assert report.exit_code == ExitCode.REGRESSED


def test_without_errors_the_floor_changes_no_verdict() -> None:
    steady = {case.id: True for case in CASES}

    def clean(key: TrialKey) -> Answer:
        return steady[key.case.id] if answer(key) is None else answer(key)

    judged = report_of(clean)
    strict = report_of(clean, min_coverage=1.0)
    assert judged.summary.coverage == Coverage(70, 70)
    assert judged.summary.errors_by_class == {}
    assert [c.status for c in judged.cases] == [c.status for c in strict.cases]
    assert judged.exit_code == strict.exit_code == ExitCode.REGRESSED
    console = Console(width=200, record=True)
    console.print(render_report(judged))
    assert "Coverage:" not in console.export_text()
    assert "Coverage:" not in render_markdown(judged)


def test_the_classes_and_coverage_read_back_and_an_older_report_still_reads() -> None:
    report = report_of(thin, ClassedErrors)
    again = parse_report(orjson.loads(report_json(report)), "x.json")
    assert again.summary.coverage == Coverage(40, 70)
    assert {t.error_class for c in again.cases for t in c.trials if t.is_error} == {
        ErrorClass.AGENT_SETUP, ErrorClass.MODEL, ErrorClass.GRADER
    }  # fmt: skip
    data = orjson.loads(report_json(report))
    for key in ("min_coverage", "retried"):
        del data[key]
    for key in ("coverage", "errors_by_class"):
        del data["summary"][key]
    for case in data["cases"]:
        for trial in case["trials"]:
            trial.pop("error_class", None)
    old = parse_report(data, "old.json")
    assert old.min_coverage == 0.8
    assert old.retried == 0
    assert old.summary.coverage == Coverage(0, 0)
    assert {t.error_class for c in old.cases for t in c.trials} == {None}
