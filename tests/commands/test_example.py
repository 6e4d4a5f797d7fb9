"""`activation example NAME DIR`: the first verdict in one command, as a new user types it
after the install: the bundled example laid out as a git repository with its edit in the
working tree, the gate run on it with the mock model, and the commands to go on."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from activation.commands.example import EXAMPLES
from activation.commands.flags import EXAMPLE_NAMES
from activation.commands.main import main
from activation.trials.providers.mock import NOTICE
from tests.support.cli import one_line_error, read_report

REPO = Path(__file__).resolve().parents[2]
BILLING = REPO / "examples" / "billing"
REFUNDS = "plugins/billing/skills/refunds/SKILL.md"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder as the cwd, a cache of its own, no key in the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_billing_example_is_laid_out_with_its_edit_and_gated(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["example", "billing", "demo"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "The billing example, laid out in demo: a plugin of three overlapping skills (refunds, "
        "disputes, invoices) and a 12-case routing suite; the edit widens the refunds "
        "description to chargebacks and disputes.",
        "It is a git repository; the edit is in its working tree, not committed. The gate:",
        "$ activation --model mock --repo demo --cases demo/cases.json",
    ]
    assert out[3] == f"NOTE: {NOTICE}"
    regressed = out.index("REGRESSED (3)")
    assert [line.split()[0] for line in out[regressed + 1 : regressed + 4]] == [
        "chargeback-evidence", "bank-dispute", "bank-chargeback",
    ]  # fmt: skip
    assert out[-7:] == [
        "FAILED: the candidate regressed.",
        "Next:",
        "  cd demo",
        "  git diff                                                 # the edit the gate judged",
        "  activation --model mock --cases cases.json               # this run again",
        f"  git checkout -- {REFUNDS}  # undo the edit: the run then exits 0",
        "  activation --cases cases.json                            # a real model "
        "(ANTHROPIC_API_KEY)",
    ]
    repo = git.Repo(here / "demo")
    try:
        (commit,) = repo.iter_commits()
        assert commit.message == "The example skill set"
        assert commit.author.name == "activation example"
        assert [item.a_path for item in repo.index.diff(None)] == [REFUNDS]
        assert repo.untracked_files == []
        committed = set(repo.git.ls_files().splitlines())
    finally:
        repo.close()
    shipped = {p.relative_to(BILLING).as_posix() for p in BILLING.rglob("*") if p.is_file()}
    assert committed == shipped
    edit = (BILLING / "edits" / "refunds-takes-disputes.md").read_text()
    assert (here / "demo" / REFUNDS).read_text() == edit


def test_the_next_steps_run_as_printed(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Undoing the edit as printed, the same gate passes."""
    main(["example", "billing", "demo"])
    capsys.readouterr()
    repo = git.Repo(here / "demo")
    try:
        repo.git.checkout("--", REFUNDS)
    finally:
        repo.close()
    report = here / "report.json"
    code = main([
        "--model", "mock", "--repo", "demo", "--cases", "demo/cases.json",
        "--json", str(report),
    ])  # fmt: skip
    assert code == 0
    assert read_report(report)["summary"]["regressed"] == []
    assert capsys.readouterr().out.splitlines()[-1] == "OK: no case regressed, no case errored."


def test_an_empty_folder_is_used_and_one_that_holds_anything_is_refused(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "empty").mkdir()
    assert main(["example", "billing", "empty"]) == 1
    capsys.readouterr()
    (here / "taken").mkdir()
    (here / "taken" / "notes.txt").write_text("mine\n")
    assert main(["example", "billing", "taken"]) == 2
    assert one_line_error(capsys) == (
        "activation example: error: taken: exists and is not an empty folder; name a new one"
    )
    assert [p.name for p in (here / "taken").iterdir()] == ["notes.txt"]
    (here / "a-file").write_text("mine\n")
    assert main(["example", "billing", "a-file"]) == 2
    assert one_line_error(capsys) == (
        "activation example: error: a-file: exists and is not an empty folder; name a new one"
    )


def test_an_unknown_example_is_one_line_and_exit_2(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["example", "payroll", "demo"]) == 2
    assert one_line_error(capsys) == (
        "activation example: error: argument NAME: invalid choice: 'payroll' (choose from "
        "'billing') (see activation example --help)"
    )
    assert not (here / "demo").exists()


def test_the_help_names_every_bundled_example() -> None:
    assert tuple(EXAMPLES) == EXAMPLE_NAMES
    for name, example in EXAMPLES.items():
        assert (REPO / "examples" / name / example.edit).is_file()
        assert (REPO / "examples" / name / example.skill).is_file()
        assert (REPO / "examples" / name / example.cases).is_file()
