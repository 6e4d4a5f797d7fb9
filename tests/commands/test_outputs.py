"""Every output of one run at once: JSON, JUnit, Markdown, HTML and the job summary, all
rendered from the one report model, so re-rendering the saved JSON gives the same bytes.

Paths are checked before any model call; a file lost at the end is one line and the exit
code still says what the verdicts say. The last test runs as a new user would: settings in
pyproject.toml, every output, the JUnit read by a JUnit parser, the HTML in a browser.
"""

from __future__ import annotations

from pathlib import Path

import junitparser
import pytest

from activation.commands.main import main
from activation.report.codec import parse_report
from activation.report.html import render_html
from activation.report.junit import render_junit
from activation.report.markdown import render_markdown
from tests.commands.test_run import model
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.cli import STATUS_CASES, one_line_error, read_report, run
from tests.support.skill_repo import SkillRepo, write_cases

STATUSES = ["REGRESSED", "PASS", "IMPROVED", "UNSTABLE", "FAIL", "PASS"]


def outputs(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "out"
    folder.mkdir(exist_ok=True)
    return {
        "junit": folder / "junit.xml",
        "markdown": folder / "summary.md",
        "html": folder / "report.html",
    }


def flags(paths: dict[str, Path]) -> list[str]:
    return [item for name, path in paths.items() for item in (f"--{name}", str(path))]


def test_every_output_renders_the_one_report(
    tmp_path: Path, repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    paths = outputs(tmp_path)
    code, data = run(tmp_path, STATUS_CASES, "--max-trials", "3", *flags(paths), stages=model())
    assert code == 1
    report = parse_report(data, "report.json")
    assert [entry.status.value for entry in report.cases] == STATUSES
    markdown = paths["markdown"].read_text()
    assert markdown == render_markdown(report)
    assert paths["junit"].read_bytes() == render_junit(report)
    assert paths["html"].read_text() == render_html(report, paths["html"].parent)
    assert summary.read_text() == "earlier step\n" + markdown + "\n"
    assert markdown.startswith("### ❌ activation: FAILED: the candidate regressed.\n")
    assert "activation --real --only stripe-dispute,chargeback-neg,flaky" in markdown


def test_no_summary_leaves_the_job_summary_alone(
    tmp_path: Path, repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, _ = run(tmp_path, STATUS_CASES, "--max-trials", "3", "--no-summary", stages=model())
    assert code == 1
    assert not summary.exists()


@pytest.mark.parametrize("name", ["junit", "markdown", "html"])
def test_an_unwritable_output_is_exit_2_before_any_call(
    name: str, tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = model()
    missing = tmp_path / "no-such-folder" / "out"
    code, data = run(tmp_path, STATUS_CASES, f"--{name}", str(missing), stages=backends)
    assert code == 2
    assert one_line_error(capsys) == (
        f"activation: error: --{name} {missing}: the folder {missing.parent} does not exist"
    )
    assert backends.prepared == []
    assert data["exit_code"] == 2


def test_a_summary_lost_at_the_end_is_one_line_and_keeps_the_verdict(
    tmp_path: Path, repo: SkillRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a folder: cannot be appended to
    paths = outputs(tmp_path)
    code, data = run(tmp_path, STATUS_CASES, "--max-trials", "3", *flags(paths), stages=model())
    assert code == 1
    assert data["exit_code"] == 1
    assert all(path.exists() for path in paths.values())
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert errors == [
        f"activation: error: cannot append the summary to GITHUB_STEP_SUMMARY {tmp_path}: "
        "Is a directory"
    ]


def test_a_new_user_run_with_every_output_from_pyproject(
    tmp_path: Path, repo: SkillRepo, chromium: Launcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (repo.root / "checks").mkdir()
    write_cases(repo.root / "checks" / "cases.json", STATUS_CASES)
    (tmp_path / "distractors").rename(repo.root / "checks" / "distractors")
    repo.write(
        "pyproject.toml",
        '[project]\nname = "refund-skills"\n\n[tool.activation]\n'
        'cases = "checks/cases.json"\ndistractors = "checks/distractors"\nmax-trials = 3\n'
        'json = "reports/activation.json"\njunit = "reports/junit.xml"\n'
        'markdown = "reports/summary.md"\nhtml = "reports/activation.html"\n',
    )
    (repo.root / "reports").mkdir()
    assert main([], model()) == 1
    reports = repo.root / "reports"
    assert sorted(path.name for path in reports.iterdir()) == [
        "activation.html", "activation.json", "junit.xml", "summary.md",
    ]  # fmt: skip
    data = read_report(reports / "activation.json")
    assert [entry["status"] for entry in data["cases"]] == STATUSES
    (suite,) = list(junitparser.JUnitXml.fromfile(str(reports / "junit.xml")))
    assert (suite.tests, suite.failures, suite.errors) == (6, 1, 0)
    failed = [case.name for case in suite if case.result]
    assert failed == ["stripe-dispute"]
    with chromium() as browser, visit(browser, reports / "activation.html") as seen:
        page = seen.page
        assert page.inner_text("#verdict") == "FAILED: the candidate regressed. (exit code 1)"
        assert page.locator("#cases tbody tr").count() == 6
        assert page.locator("svg.chart circle").count() == 12
        page.select_option("#status-filter", "REGRESSED")
        assert page.locator("#cases tbody tr:visible td.id").all_inner_texts() == ["stripe-dispute"]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "new-user-run.png"), full_page=True)
        assert seen.errors == []
        assert seen.requests == [(reports / "activation.html").as_uri()]
