"""The bundled behavior example (examples/behavior): it loads, lints clean, a right answer
passes every grader, an answer taught by the broken body fails, and an empty one scores
nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from activation._behavior import LEVELS, BehaviorCase
from activation._models import Trajectory
from activation.graders.base import Answer, Ask, CommandResult, Need, Trace, Votes, needs_of
from activation.inputs.frontmatter import split_document
from activation.inputs.lint import lint_behavior
from activation.inputs.load import load_behavior_suite
from activation.inputs.references import missing_references
from activation.trials.behavior.graders import Grading, grade
from activation.trials.behavior.scaffold_lint import scaffold_findings
from activation.trials.behavior.workspace import read_workspace, write_scaffold

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "behavior"
SKILL = EXAMPLE / "plugins" / "greetlib" / "skills" / "greetlib"
FOLDERS = {
    "welcome_banner": "welcome-banner",
    "configure_once": "configure-once",
    "batch_cards": "batch-cards",
}


def cases() -> dict[str, BehaviorCase]:
    return {case.id: case for case in load_behavior_suite(EXAMPLE / "evals").cases}


def workspace_of(case: BehaviorCase, solution: str | None, root: Path) -> Path:
    """The scaffold laid into `root`, then the solution's files written over it."""
    write_scaffold(case.scaffold, root)
    if solution is not None:
        shutil.copytree(
            EXAMPLE / "solutions" / solution / FOLDERS[case.id], root, dirs_exist_ok=True
        )
    return root


NOTHING = Trajectory()
"""What a scaffold's agent did: nothing."""


def graded(
    case: BehaviorCase, root: Path, judge: bool | None = True, did: Trajectory = NOTHING
) -> Grading:
    """The case's graders over `root`, its commands run there for real, `did` what the
    agent did."""
    answers: dict[Need, Answer] = {}
    for need in needs_of(case.graders):
        if isinstance(need, Ask):
            answers[need] = Votes((judge,))
            continue
        if isinstance(need, Trace):
            answers[need] = did
            continue
        done = subprocess.run(
            need.command,
            shell=True,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=need.timeout,
            check=False,
        )
        answers[need] = CommandResult(done.returncode, output=done.stdout + done.stderr)
    return grade(case.graders, read_workspace(root), answers)


def test_the_suite_loads_with_every_level_and_a_final_judge() -> None:
    suite = cases()
    assert list(suite) == ["batch_cards", "configure_once", "welcome_banner"]
    for case in suite.values():
        assert case.skills == ("greetlib",)
        assert case.category == "greetlib"
        assert {grader.level for grader in case.graders[:-1]} == set(LEVELS), case.id
        assert (case.graders[-1].type, case.graders[-1].level) == ("judge", None)
    assert suite["welcome_banner"].system is not None
    assert lint_behavior(suite.values()) == []
    assert scaffold_findings(suite.values()) == []


def test_the_body_refers_only_to_files_the_skill_has() -> None:
    files = {path.relative_to(SKILL).as_posix() for path in SKILL.rglob("*") if path.is_file()}
    assert files == {"SKILL.md", "references/api.md"}
    body = split_document((SKILL / "SKILL.md").read_text(), "SKILL.md").body
    assert missing_references(body, files) == ()
    assert missing_references(body, {"SKILL.md"}) == ("references/api.md",)


def test_the_broken_body_changes_the_body_only() -> None:
    right = split_document((SKILL / "SKILL.md").read_text(), "SKILL.md")
    broken = split_document((EXAMPLE / "edits" / "broken-body.md").read_text(), "broken")
    assert broken.frontmatter == right.frontmatter
    assert "greetlib.hello(" in broken.body
    assert "greetlib.hello(" not in right.body.split("## Removed in 2.0")[0]


@pytest.mark.parametrize("case_id", sorted(FOLDERS))
def test_a_right_answer_passes_every_grader(case_id: str, tmp_path: Path) -> None:
    grading = graded(cases()[case_id], workspace_of(cases()[case_id], "right", tmp_path))
    assert [
        (r.grader.description, r.outcome) for r in grading.results if r.outcome != "passed"
    ] == []
    assert (grading.passed, grading.error) == (True, False)
    assert grading.levels == dict.fromkeys(LEVELS, "passed")


FAILED_BY_V1 = {
    "welcome_banner": [
        ("L1", "matches"), ("L2", "not_matches"), ("L4", "command"), ("L5", "contains"),
        ("L5", "not_matches"), (None, "judge"),
    ],
    "configure_once": [
        ("L1", "contains"), ("L1", "matches"), ("L2", "not_matches"), ("L4", "matches"),
        ("L4", "command"), ("L5", "not_matches"), (None, "judge"),
    ],
    "batch_cards": [
        ("L1", "contains"), ("L2", "not_matches"), ("L4", "all"), ("L4", "command"),
        ("L5", "contains_any"), ("L5", "not_matches"), (None, "judge"),
    ],
}  # fmt: skip
"""The graders an answer written from the broken body fails, by level and type: it still
escapes and keeps the key out of the code (the broken body says so too), so L3 passes."""


@pytest.mark.parametrize("case_id", sorted(FOLDERS))
def test_an_answer_taught_by_the_broken_body_fails_presence_hallucination_and_version(
    case_id: str, tmp_path: Path
) -> None:
    grading = graded(cases()[case_id], workspace_of(cases()[case_id], "v1", tmp_path), judge=False)
    failed = [(r.grader.level, r.grader.type) for r in grading.results if r.outcome == "failed"]
    assert failed == FAILED_BY_V1[case_id]
    assert grading.passed is False
    assert grading.levels == {
        "L1": "failed",
        "L2": "failed",
        "L3": "passed",
        "L4": "failed",
        "L5": "failed",
    }


@pytest.mark.parametrize("case_id", sorted(FOLDERS))
def test_the_scaffold_alone_scores_nothing(case_id: str, tmp_path: Path) -> None:
    case = cases()[case_id]
    grading = graded(case, workspace_of(case, None, tmp_path), judge=False)
    assert grading.passed is False
    outcomes = {r.grader.description: r.outcome for r in grading.results}
    assert [d for d, outcome in outcomes.items() if outcome == "passed"] == []
    assert [g.description for g in case.graders if g.negative] == [
        d for d, o in outcomes.items() if o == "void"
    ]
