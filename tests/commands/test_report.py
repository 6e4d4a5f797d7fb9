"""`activation report` and `activation diff` end to end, on reports saved by real runs of
the command line (in-process, on the in-memory fake): no model call, nothing disagrees."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from tests.commands.test_changed import changed, edit, two_plugins
from tests.commands.test_run import model
from tests.support.cli import BASELINE, STATUS_CASES, one_line_error, read_report, run
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.skill_repo import RepoTemplates, SkillRepo


def saved_run(tmp_path: Path, name: str, *flags: str) -> Path:
    """A run's JSON report, kept under `name`."""
    code, _data = run(tmp_path, STATUS_CASES, "--max-trials", "3", *flags, stages=model())
    assert code in (0, 1)
    kept = tmp_path / name
    (tmp_path / "report.json").rename(kept)
    return kept


def test_report_renders_a_saved_run_as_the_run_did(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    formats = ("junit", "markdown", "html")
    names = {"junit": "junit.xml", "markdown": "summary.md", "html": "report.html"}
    written = [item for f in formats for item in (f"--{f}", str(first / names[f]))]
    code, _ = run(tmp_path, STATUS_CASES, "--max-trials", "3", *written, stages=model())
    printed = capsys.readouterr().out
    assert code == 1
    again = tmp_path / "again"
    again.mkdir()
    rerendered = [item for f in formats for item in (f"--{f}", str(again / names[f]))]
    assert main(["report", str(tmp_path / "report.json"), *rerendered]) == 0
    for name in names.values():
        assert (again / name).read_bytes() == (first / name).read_bytes(), name
    assert capsys.readouterr().out == ""
    assert main(["report", str(tmp_path / "report.json")]) == 0
    assert capsys.readouterr().out == printed


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"{not json",
            "{path}: not valid JSON at line 1, column 2 (unexpected character, expected a "
            "string key)",
        ),
        (
            b'{"schema": "other"}',
            "{path}: not an activation report (activation-report/2 or activation-report/3 or "
            "activation-report/4)",
        ),
        (
            b'{"schema": "activation-report/2", "exit_code": 2, "error": "no API key"}',
            "{path}: the report of a run that stopped early (no API key)",
        ),
        (
            b'{"schema": "activation-changed/1", "exit_code": 2, "error": "no API key"}',
            "{path}: the report of a changed run that stopped early (no API key)",
        ),
        (
            b'{"schema": "activation-changed/1", "skills": 3}',
            "{path}: not a readable activation changed report: Expected `array`, got `int` - "
            "at `$.skills`",
        ),
    ],
)
def test_report_of_what_is_not_a_report_is_exit_2(
    content: bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    assert main(["report", str(path)]) == 2
    assert one_line_error(capsys) == "activation report: error: " + message.format(path=path)


def test_report_refuses_a_missing_file_and_an_unwritable_output(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "none.json")]) == 2
    assert one_line_error(capsys) == (
        f"activation report: error: cannot read the report {tmp_path / 'none.json'}: "
        "No such file or directory"
    )
    saved = saved_run(tmp_path, "saved.json")
    capsys.readouterr()
    assert main(["report", str(saved), "--html", str(tmp_path / "no" / "r.html")]) == 2
    assert one_line_error(capsys) == (
        f"activation report: error: --html {tmp_path / 'no' / 'r.html'}: "
        f"the folder {tmp_path / 'no'} does not exist"
    )


def test_a_full_disk_is_one_line_and_only_report_exits_4_for_it(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """What docs/getting-started.md and reports.md say: a run keeps its own exit code when a
    report file fails at the end; `activation report`, whose one job is writing, exits 4."""
    saved = saved_run(tmp_path, "saved.json")
    capsys.readouterr()
    assert main(["report", str(saved), "--markdown", "/dev/full"]) == 4
    assert one_line_error(capsys) == (
        "activation report: error: cannot write the markdown report /dev/full: "
        "No space left on device"
    )
    code, _report = run(tmp_path, STATUS_CASES, "--max-trials", "3", "--markdown",
                        "/dev/full", stages=model())  # fmt: skip
    assert code == 1  # the run's own verdict: the dispute regressed
    assert capsys.readouterr().err.splitlines()[-1] == (
        "activation: error: cannot write the markdown report /dev/full: No space left on device"
    )


def test_diff_fails_when_a_case_that_passed_regressed(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write_description(BASELINE)
    old = saved_run(tmp_path, "old.json")  # nothing changed: dispute PASS
    repo.write_description("Use when issuing refunds.")
    new = saved_run(tmp_path, "new.json")  # dispute REGRESSED
    capsys.readouterr()
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    rows = {
        cells[0]: cells[1:]
        for line in out.splitlines()
        if len(cells := [cell.strip() for cell in line.split("│")[1:-1]]) == 8
    }
    assert rows["stripe-dispute"] == ["3/3", "3/3", "PASS", "3/3", "0/3", "REGRESSED", "regressed"]
    assert rows["chargeback-neg"] == ["3/3", "3/3", "FAIL", "3/3", "0/3", "IMPROVED", "fixed"]
    assert rows["flaky"] == ["3/3", "3/3", "PASS", "3/3", "1/3", "UNSTABLE", "changed"]
    assert rows["never"] == ["0/3", "0/3", "FAIL", "0/3", "0/3", "FAIL", ""]
    assert "regressed (1): stripe-dispute" in out
    assert "fixed (1): chargeback-neg" in out
    assert "recall          OLD 4/4 = 100%" not in out  # `never` stays wrong in both
    assert "candidate recall          OLD 3/4 = 75%" in out
    assert "                          NEW 1/4 = 25%" in out
    assert out.rstrip().endswith("FAILED: 1 case(s) that passed in OLD regressed in NEW.")
    # The other way round the dispute is fixed, and the chargeback negative, which the
    # candidate got right (IMPROVED), is wrong again (FAIL).
    assert main(["diff", str(new), str(old)]) == 1
    out = capsys.readouterr().out
    assert "fixed (1): stripe-dispute" in out
    assert "regressed (1): chargeback-neg" in out
    assert main(["diff", str(old), str(old)]) == 0
    out = capsys.readouterr().out
    assert [word for word in ("regressed (", "fixed (", "changed (") if word in out] == []
    assert out.rstrip().endswith("OK: no case that passed in OLD regressed in NEW.")


def test_diff_shows_added_and_removed_cases_and_other_skills(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    old = saved_run(tmp_path, "old.json", "--only", "plain-refund,never")
    new = saved_run(tmp_path, "new.json", "--only", "plain-refund,charts-neg")
    data = read_report(new)
    data["skill"]["id"] = "other:skill"
    new.write_bytes(orjson.dumps(data))
    capsys.readouterr()
    assert main(["diff", str(old), str(new)]) == 0
    captured = capsys.readouterr()
    assert "added (1): charts-neg" in captured.out
    assert "removed (1): never" in captured.out
    assert captured.err.strip() == (
        "warning: the runs measure different skills (billing:refunds and other:skill): is "
        "this the same suite?"
    )
    assert main(["diff", str(old), str(tmp_path / "none.json")]) == 2


def test_report_renders_a_saved_changed_report_as_changed_did(
    tmp_path: Path,
    repo_templates: RepoTemplates,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`activation changed --json`'s own report renders again: its summary on the terminal
    and the same Markdown, JUnit and HTML files, byte for byte."""
    root = tmp_path / "repo"
    repo_templates.copy((two_plugins,), root, two_plugins)
    monkeypatch.chdir(root)
    edit(root, "refunds", "asked to undo.", "asked to undo, or a chargeback.")
    names = {"junit": "junit.xml", "markdown": "summary.md", "html": "report.html"}
    first, again = tmp_path / "first", tmp_path / "again"
    first.mkdir()
    again.mkdir()
    written = [item for f, name in names.items() for item in (f"--{f}", str(first / name))]
    stages = FakeBehavior(passing({}))
    assert changed(tmp_path, "--model", "mock", *written, stages=stages)[0] == 0
    printed = capsys.readouterr().out.splitlines()
    summary = printed[
        printed.index(next(line for line in printed if "activation changed" in line)) + 1 :
    ]
    assert summary[0] == "activation changed: git:main -> the working tree"
    assert summary[-1] == "OK: every gate passed."
    assert main(["report", str(tmp_path / "changed.json")]) == 0
    assert capsys.readouterr().out.splitlines() == summary
    rerendered = [item for f, name in names.items() for item in (f"--{f}", str(again / name))]
    assert main(["report", str(tmp_path / "changed.json"), *rerendered]) == 0
    assert capsys.readouterr().out == ""
    for name in names.values():
        assert (again / name).read_bytes() == (first / name).read_bytes(), name
