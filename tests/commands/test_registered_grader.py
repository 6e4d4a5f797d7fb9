"""A grader type is one module and one registry line: a type defined here, registered by the
test alone, is read from a case file, linted (its own problems, "passes on the scaffold
alone"), graded in a Stage C run of the fake agent (tests/support/fake_agent, which writes
what the SKILL.md it loaded tells it to), shown in every output, and listed in the docs'
grader table, with no other edit anywhere."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import junitparser
import pytest

from activation.commands.main import main
from activation.graders import REGISTRY
from activation.graders.base import Answers, Checked, Files, Grader
from activation.graders.parse import field_readers
from tests.support.cli import read_report
from tests.support.fake_agent_runs import behave_in_every_format, fake_agent_on_path
from tests.support.skill_repo import SkillRepo, SkillRepos
from tests.test_docs import load_hooks


@dataclass(frozen=True, kw_only=True)
class FirstLine(Grader):
    """The file `file` starts with the line `line`: a type only this test registers."""

    type = "first_line"
    passes = "some file named `file` starts with the line `line`"

    file: str
    line: str

    def summary(self) -> str:
        return f"{self.file} starts with {self.line!r}"

    def problems(self) -> tuple[str, ...]:
        return () if "\n" not in self.line else ("'line' must be one line",)

    def check(self, files: Files, answers: Answers) -> Checked:
        for path, text in files:
            if path == self.file:
                first = text.split("\n", 1)[0]
                if first == self.line:
                    return "passed", f"{path} starts with it"
                return "failed", f"{path} starts with {first!r}"
        return "failed", f"no file {self.file}"


RIGHT = "refund through the ledger"
SKILL = "---\nname: refunds\ndescription: Use when issuing refunds.\n---\n# Refunds\n\nWRITE {}\n"
GRADER = {"type": "first_line", "file": "refund.txt", "line": RIGHT, "level": "L1"}
CASES = {
    "slug": "refund",
    "evals": [{"prompt": "Use refunds to refund order 12", "expectations": ["the ledger"]}],
    "graders": [GRADER],
}


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The one line that adds a grader type (and the fake agent), for this test only."""
    monkeypatch.setitem(REGISTRY, "first_line", FirstLine)
    fake_agent_on_path(tmp_path / "bin", monkeypatch)


def made(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, cases: object) -> SkillRepo:
    """The skill teaching the right line at HEAD, a wrong one in the working tree."""
    repo = skill_repo(
        text=SKILL.format(f"refund.txt: {RIGHT}"),
        files={"evals/refund.json": json.dumps(cases)},
    )
    repo.write_skill(SKILL.format("refund.txt: refund by hand"))
    monkeypatch.chdir(repo.root)
    return repo


def test_every_type_of_the_registry_is_readable_by_its_annotations() -> None:
    for kind in REGISTRY.values():
        assert set(field_readers(kind)) >= {"description", "level"}, kind.type


def test_lint_reads_checks_and_grades_the_registered_type_on_the_scaffold(
    skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scaffolded = {**CASES, "scaffold": {"refund.txt": f"{RIGHT}\n"}}
    made(skill_repo, monkeypatch, scaffolded)
    assert main(["lint", "--behavior", "evals"]) == 1
    out = capsys.readouterr().out
    assert (
        "grader 1 (refund.txt starts with 'refund through the ledger') passes on the scaffold "
        "alone (refund.txt starts with it): it cannot tell the agent's work from the starting "
        "files"
    ) in out
    Path("evals/refund.json").write_text(
        json.dumps({**CASES, "graders": [{**GRADER, "line": "a\nb"}]})
    )
    assert main(["lint", "--behavior", "evals"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(
            "evals/refund.json: case 'refund': grader 1 (first_line): 'line' must be one line"
        )
    )
    Path("evals/refund.json").write_text(json.dumps({**CASES, "graders": [{**GRADER, "lines": 1}]}))
    assert main(["lint", "--behavior", "evals"]) == 2
    assert "unknown key 'lines' (allowed: description, file, follows, level, line, type)" in (
        capsys.readouterr().err
    )


def test_a_stage_c_run_grades_with_it_and_every_output_shows_it(
    skill_repo: SkillRepos,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    made(skill_repo, monkeypatch, CASES)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-no-judge-is-asked")  # no grader asks one
    code, paths = behave_in_every_format(tmp_path)
    out, err = capsys.readouterr()
    assert code == 1, err
    report: dict[str, Any] = read_report(paths["json"])
    (case,) = report["cases"]
    assert (case["id"], case["status"]) == ("refund", "REGRESSED")
    grades = {
        arm: [trial["grades"] for trial in case["trials"] if trial["variant"] == arm]
        for arm in ("baseline", "candidate", "none")
    }
    described = "refund.txt starts with 'refund through the ledger'"

    def grade(outcome: str, why: str) -> dict[str, str | bool]:
        return {"grader": described, "type": "first_line", "level": "L1", "outcome": outcome,
                "why": why, "follows": False}  # fmt: skip

    assert grades["baseline"] == [[grade("passed", "refund.txt starts with it")]] * 3
    assert grades["candidate"] == [[grade("failed", "refund.txt starts with 'refund by hand'")]] * 3
    assert {grade["why"] for trials in grades["none"] for grade in trials} == {"no file refund.txt"}
    assert "L1 " + described in out
    assert described in paths["markdown"].read_text()
    assert described in html.unescape(paths["html"].read_text())
    suite = next(iter(junitparser.JUnitXml.fromfile(str(paths["junit"]))))
    (junit_case,) = [each for each in suite if each.name == "refund"]
    assert junit_case.result[0].message == (
        f"REGRESSED: baseline 3/3, candidate 0/3, q 0.016; broke first: L1 {described} 3/3 -> 0/3"
    )


def test_the_docs_grader_table_lists_the_registered_type() -> None:
    table = load_hooks().grader_table()
    assert table.splitlines()[-1] == (
        "| `first_line` | `file`, `line` | some file named `file` starts with the line `line` |"
    )
    assert table.splitlines()[2] == (
        "| `contains` | `value`, `case_sensitive` (optional) | some file holds `value`; case "
        "ignored unless `case_sensitive` |"
    )
