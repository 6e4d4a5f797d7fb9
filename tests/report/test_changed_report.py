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
from activation.report.dry_run import ChangedPlan, changed_lines
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
                "broken_before": False,
                "breaks": [],
                "known": [],
                "renamed_from": None,
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


BROKEN = (
    b"---\ndescription: |\n  Use when issuing refunds.\ncompatibility: Needs KEY. Optional: KEY\n"
    b"---\nSteps.\n"
)
SIBLING = b"---\ndescription: Use when answering disputes.\n---\nSteps.\n"
WHY = (
    "head:skills/refunds/SKILL.md:4: the frontmatter is not valid YAML (mapping values are "
    "not allowed here)"
)


@pytest.mark.parametrize("allowed", [False, True])
def test_a_skill_broken_at_the_base_and_still_broken_is_not_blamed_on_the_change(
    tmp_path: Path, allowed: bool
) -> None:
    """The reported blame (an invalid `compatibility:` line at the base, a body line added):
    "the change breaks the SKILL.md" and a body edit called "description". It is the
    skill's untested change, said as such in every format, and its sibling is not gated:
    the agents list the same set at both versions."""
    base = {"skills/refunds/SKILL.md": BROKEN, "skills/disputes/SKILL.md": SIBLING}
    head = {**base, "skills/refunds/SKILL.md": BROKEN + b"One more step.\n"}
    plan = plan_runs(skill_changes(base, head), skills_in(head), {})
    assert plan.runs == ()
    report = build_changed(plan, [], "0.0", "git:HEAD", "the working tree", allowed)
    said = (
        f"not tested: broken at git:HEAD and still broken (not caused by this change): {WHY}; "
        "the agents differ on it: some skip it, Claude Code lists a project skill by the first "
        "line of its body; `activation visibility` says what each does"
        + (" (allowed by --allow-untested)" if allowed else "")
    )
    data = orjson.loads(changed_json(report))
    assert (data["exit_code"], data["skills"][0]["kinds"]) == (int(allowed is False), ["body"])
    assert (data["skills"][0]["broken"], data["skills"][0]["broken_before"]) == (WHY, True)
    terminal = summary_lines(report)
    assert terminal[1:3] == ["refunds (skills/refunds/SKILL.md): body or references", f"  {said}"]
    assert "breaks" not in " ".join(terminal)
    markdown = changed_file("markdown", report, tmp_path / "x.md").decode()
    assert f"| `refunds` | body or references | nothing | {said} |" in markdown
    junit = ET.fromstring(changed_file("junit", report, tmp_path / "x.xml"))
    names = [suite.get("name") for suite in junit.findall("testsuite")]
    assert (names, junit.get("failures")) == (["not tested"], str(int(allowed is False)))
    assert said in changed_file("html", report, tmp_path / "x.html").decode()
    dry = changed_lines(ChangedPlan("git:HEAD", "the working tree", plan.skills, (), allowed))
    assert dry[1:4] == [
        "refunds (skills/refunds/SKILL.md): modified, body or references",
        f"  {said.removesuffix(' (allowed by --allow-untested)')}",
        "would run: nothing",
    ]
    failing = "the run would fail: refunds not tested (pass --allow-untested to accept it)"
    assert dry[4:] == ([] if allowed else [failing])


def test_a_dry_run_says_the_run_fails_on_a_skill_the_change_breaks() -> None:
    base = {"skills/refunds/SKILL.md": SKILL, "skills/disputes/SKILL.md": SIBLING}
    head = {**base, "skills/refunds/SKILL.md": BROKEN}
    plan = plan_runs(skill_changes(base, head), skills_in(head), {})
    dry = changed_lines(ChangedPlan("git:HEAD", "the working tree", plan.skills, (), True))
    assert dry[1:] == [
        "refunds (skills/refunds/SKILL.md): modified, description, other",
        f"  broken: {WHY} (the agents differ on it: some skip it, Claude Code lists a project "
        "skill by the first line of its body; `activation visibility` says what each does)",
        "would run: nothing",
        "the run would fail: the change breaks the SKILL.md of refunds",
    ]


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
