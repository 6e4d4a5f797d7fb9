"""Seed 002's behavioral case files run as they are (tests/fixtures/behavior-seed: its exact
shape, `{slug, origin_skill, evals, graders, scaffold}`, written here): graders with no level
and a case that does not end with a judge are linted as advice, never refused; the dry run
plans them; a run of the fake agent (tests/support/fake_agent, which writes what the SKILL.md
it loaded tells it to) with the judge at the Messages API stand-in grades them, and every
output reports the unlevelled graders as such."""

from __future__ import annotations

import html
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from activation.inputs.lint import MANUAL, NO_JUDGE, NO_LEVEL
from tests.support.cli import read_report
from tests.support.fake_agent_runs import behave_in_every_format, fake_agent_on_path
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text
from tests.support.skill_repo import SkillRepos

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "behavior-seed"
SKILL = (
    "---\nname: refunds\ndescription: Use when issuing refunds.\n---\n# Refunds\n\n"
    "WRITE app.py: client = LedgerClient(); client.refund(order)\n"
    "WRITE requirements.txt: ledger-sdk\n"
)


@pytest.fixture
def seeded(skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repo with the refunds skill and the seed-shaped cases in `evals/`, the fake agent
    registered and on the PATH."""
    repo = skill_repo(text=SKILL)
    shutil.copytree(SEED / "cases", repo.root / "evals")
    monkeypatch.chdir(repo.root)
    fake_agent_on_path(tmp_path / "bin", monkeypatch)
    return repo.root


def says_yes(request: FakeRequest) -> Reply:
    return Text(orjson.dumps({"reasoning": "scripted", "verdict": "YES"}).decode())


ADVICE = [
    f"ledger-deps grader 1 (dependency added) {NO_LEVEL}",
    f"ledger-deps grader 2 (not the retired package) {NO_LEVEL}",
    f"ledger-deps {NO_JUDGE}",
    f"ledger-python grader 1 (ledger SDK initialized) {NO_LEVEL}",
    f"ledger-python grader 2 (no raw HTTP) {NO_LEVEL}",
]
MANUAL_LINE = f"warning ledger-branding {MANUAL}"
SCOPE = (
    "lint: checked plugins/payments/skills/refunds/SKILL.md (frontmatter, the files each refers "
    "to, what 6 agents list) and 1 case file (evals/): "
)
"""What lint says it looked at: the repo's one skill and the suite it was given."""


def lines(out: str) -> list[str]:
    return [" ".join(line.split()) for line in out.splitlines() if line.strip()]


@pytest.mark.usefixtures("seeded")
def test_lint_gives_levels_and_the_final_judge_as_advice_and_strict_as_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", "--behavior", "evals"]) == 0
    assert lines(capsys.readouterr().out) == [
        MANUAL_LINE,
        *(f"warning {line}" for line in ADVICE),
        SCOPE + "0 errors, 6 warnings",
    ]
    assert main(["lint", "--behavior", "evals", "--strict"]) == 1
    assert lines(capsys.readouterr().out) == [
        *(f"error {line}" for line in ADVICE),  # errors first: lint sorts them ahead
        MANUAL_LINE,
        SCOPE + "5 errors, 1 warning",
    ]


@pytest.mark.usefixtures("seeded")
def test_the_dry_run_plans_the_seed_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["behavior", "--agent", "fake", "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err
    assert "2 behavior case(s), 5 grader(s) in all" in out
    assert "arms: baseline, candidate, none; judge: claude-haiku-5-5" in out
    assert (
        "The first round would make 18 agent run(s) (2 cases x 3 arms x 3 trials) and 9 judge "
        "call(s) to claude-haiku-5-5 (9 judge question(s) x 1 sample(s), about $0.01); "
        "suspicious cases then get more, up to 21 trials (90 at most, 45 judge call(s)). No "
        "call was made."
    ) in " ".join(out.split())


def test_a_key_the_tool_does_not_use_is_named_by_the_run_too(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deps = seeded / "evals" / "ledger-deps.json"
    deps.write_text(deps.read_text().replace('"slug"', '"owner": "payments", "slug"', 1))
    assert main(["behavior", "--agent", "fake", "--dry-run"]) == 0
    suite = seeded / "evals"
    assert capsys.readouterr().err == (
        f"warning: {suite}: keys not used by activation (they change nothing in this run): "
        f"owner; see activation lint --behavior {suite}\n"
    )


def test_a_stand_in_run_grades_them_and_reports_the_unlevelled_graders(
    seeded: Path,
    fake_api: FakeMessagesAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = says_yes
    monkeypatch.setenv("COLUMNS", "200")
    code, paths = behave_in_every_format(tmp_path)
    out, err = capsys.readouterr()
    assert code == 0, err
    report: dict[str, Any] = read_report(paths["json"])
    assert {entry["id"]: entry["status"] for entry in report["cases"]} == {
        "ledger-deps": "PASS",
        "ledger-python": "PASS",
    }
    python = next(entry for entry in report["cases"] if entry["id"] == "ledger-python")
    candidate = next(t for t in python["trials"] if t["variant"] == "candidate")
    assert [(g["grader"], g["type"], g["level"], g["outcome"]) for g in candidate["grades"]] == [
        ("ledger SDK initialized", "matches", None, "passed"),
        ("no raw HTTP", "not_contains_any", None, "passed"),
        ("Does the code refund through the ledger SDK?", "judge", None, "passed"),
    ]
    levels = {row["level"]: row for row in report["behavior"]["levels"]}
    assert list(levels) == ["unlevelled", None]
    assert levels["unlevelled"]["arms"]["candidate"]["passed"] == 12  # 4 graders x 3 trials
    assert levels[None]["arms"]["candidate"]["passed"] == 3
    for text in (out, paths["markdown"].read_text(), html.unescape(paths["html"].read_text())):
        assert "unlevelled" in text
        assert "final judge" in text
    judged = [request for request in fake_api.message_requests if request.schema is not None]
    assert judged  # the judge was asked (its answers are cached, so not once per trial)
    assert {request.prompt.split("\n")[0] for request in judged} == {
        "Question: Does the code refund through the ledger SDK?"
    }


def test_a_suite_with_no_judge_needs_no_model_key_and_one_with_a_judge_asks_before_any_run(
    seeded: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The judge's key is needed only when a grader asks the judge: ledger-deps grades files
    only and runs with no key; ledger-python's judge makes the run one line, exit 2, before
    the agent runs at all (its report holds the error and no case)."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["behavior", "--agent", "fake", "--dry-run", "--only", "ledger-deps"]) == 0
    assert "arms: baseline, candidate, none; judge: none (no grader asks one)" in " ".join(
        capsys.readouterr().out.split()
    )
    report = tmp_path / "report.json"
    flags = ["behavior", "--agent", "fake", "--trials", "3", "--max-trials", "3", "--json"]
    assert main([*flags, str(report), "--only", "ledger-deps"]) == 0
    assert [entry["status"] for entry in read_report(report)["cases"]] == ["PASS"]
    capsys.readouterr()
    report.unlink()
    assert main([*flags, str(report), "--only", "ledger-python"]) == 2
    assert capsys.readouterr().err == (
        "activation behavior: error: no API key: set ANTHROPIC_API_KEY for the judge "
        "claude-haiku-5-5, which the suite's judge graders ask (or pass --judge-model mock to "
        "judge offline; --dry-run needs none)\n"
    )
    stopped = orjson.loads(report.read_bytes())
    assert (stopped["exit_code"], "cases" in stopped) == (2, False)
