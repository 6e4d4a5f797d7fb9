"""The report of `activation changed` without a run: its exit rule, and how a change with
nothing to run reads in each format (report/changed.py, report/changed_html.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import orjson
import pytest

from activation.inputs.change_plan import plan_runs
from activation.inputs.changes import skill_changes, skills_in
from activation.report.changed import (
    ChangedReport,
    build_changed,
    changed_exit,
    changed_file,
    changed_json,
    summary_lines,
)
from activation.report.matrix import Matrix
from activation.trials.listing.visibility import LessVisible, Visibility

SKILL = b"---\ndescription: Use when issuing refunds.\n---\nSteps.\n"
BASE = {"skills/refunds/SKILL.md": SKILL}
HEAD = {"skills/refunds/SKILL.md": SKILL.replace(b"Steps.", b"New steps.")}


@pytest.mark.parametrize(
    ("codes", "untested", "allowed", "expected"),
    [
        ([], False, False, 0),
        ([0, 0], False, False, 0),
        ([0, 3], False, False, 3),
        ([3, 1], False, False, 1),  # a regression wins over missing evidence
        ([0], True, False, 1),
        ([0], True, True, 0),
        ([3], True, True, 3),
        ([1, 130], False, False, 130),
    ],
)
def test_the_exit_rule(codes: list[int], untested: bool, allowed: bool, expected: int) -> None:
    runs = [cast(Matrix, SimpleNamespace(exit_code=code)) for code in codes]
    assert changed_exit(runs, untested, allowed) == expected


def untested_report(allowed: bool) -> ChangedReport:
    changes = skill_changes(BASE, HEAD)
    plan = plan_runs(changes, skills_in(HEAD), {})
    return build_changed(plan, [], "0.0", "git:main", "the working tree", allowed)


def test_an_untested_body_change_in_every_format(tmp_path: Path) -> None:
    report = untested_report(False)
    data = orjson.loads(changed_json(report))
    assert data == {
        "schema": "activation-changed/1",
        "version": "0.0",
        "exit_code": 1,
        "base": "git:main",
        "head": "the working tree",
        "allow_untested": False,
        "notice": None,
        "skills": [
            {
                "id": "refunds",
                "path": "skills/refunds/SKILL.md",
                "status": "modified",
                "kinds": ["body"],
                "files": ["skills/refunds/SKILL.md"],
                "untested": ["body"],
                "note": None,
                "broken": None,
            }
        ],
        "gates": [],
        "less_visible": [],
    }
    markdown = changed_file("markdown", report, tmp_path / "x.md").decode()
    assert markdown.splitlines()[0] == (
        "### ❌ activation changed: FAILED: a changed skill is not tested "
        "(pass --allow-untested to accept it)."
    )
    junit = ET.fromstring(changed_file("junit", report, tmp_path / "x.xml"))
    assert (junit.get("tests"), junit.get("failures")) == ("1", "1")
    failure = junit.find("testsuite/testcase/failure")
    assert failure is not None and failure.get("type") == "NOT-TESTED"
    page = changed_file("html", report, tmp_path / "x.html").decode()
    assert "not tested: its body or references changed and it has no behavior suite" in page


def test_allowed_untested_is_a_skipped_testcase(tmp_path: Path) -> None:
    report = untested_report(True)
    junit = ET.fromstring(changed_file("junit", report, tmp_path / "x.xml"))
    assert (junit.get("tests"), junit.get("failures")) == ("1", "0")
    assert junit.find("testsuite/testcase/skipped") is not None
    assert orjson.loads(changed_json(report))["exit_code"] == 0


def test_a_sibling_the_change_makes_less_visible_has_its_own_line_in_every_format(
    tmp_path: Path,
) -> None:
    changes = skill_changes(BASE, HEAD)
    plan = plan_runs(changes, skills_in(HEAD), {})
    whole = Visibility("disputes", "full", 300, 300)
    cut = Visibility("disputes", "cut", 300, 120, rule="the budget is spent")
    pushed = LessVisible("visibility", "Copilot 1.0", "disputes", whole, cut)
    report = build_changed(plan, [], "0.0", "git:main", "the working tree", True, (pushed,))
    line = (
        "LESS VISIBLE Copilot 1.0: disputes is less visible in the candidate: listed whole -> "
        "cut (120 of 300 characters): the budget is spent"
    )
    verdict = "FAILED: the change makes disputes less visible to Copilot 1.0 (no model call)."
    assert report.exit_code == 1
    assert summary_lines(report)[-3:] == ["disputes: unchanged, a sibling of a changed skill",
                                          f"  {line}", verdict]  # fmt: skip
    markdown = changed_file("markdown", report, tmp_path / "x.md").decode()
    assert f"| `disputes` | unchanged (a sibling) | visibility | {line} |" in markdown
    assert markdown.splitlines()[0] == f"### ❌ activation changed: {verdict}"
    page = changed_file("html", report, tmp_path / "x.html").decode()
    assert "disputes is less visible in the candidate" in page
    data = orjson.loads(changed_json(report))["less_visible"]
    assert [(f["skill"], f["candidate"]["kept"]) for f in data] == [("disputes", 120)]
