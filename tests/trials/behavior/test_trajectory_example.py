"""The trajectory example (examples/behavior/trajectory): it loads and lints clean, its
checker works, and each case's graders tell an agent that followed the body from one that
wrote the same files without doing what the body says (Codex's trajectories: in Stage C
only its shell may run the checker)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from activation._behavior import BehaviorCase
from activation._models import ToolCall, Trajectory
from activation.inputs.frontmatter import split_document
from activation.inputs.lint import lint_behavior
from activation.inputs.load import load_behavior_suite
from activation.trials.behavior.scaffold_lint import scaffold_findings
from tests.trials.behavior.test_example import graded

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "behavior" / "trajectory"
SKILL = EXAMPLE / "skills" / "cards"
CARDS = "To Ada: Thank you, Ada!\nTo Grace: Thank you, Grace!\n"
CHECK = "python3 .agents/skills/cards/scripts/check_cards.py cards.txt"
FOLLOWED = Trajectory(
    tool_calls=(
        ToolCall("command_execution", '{"command":"cat .agents/skills/cards/SKILL.md"}'),
        ToolCall(
            "command_execution", '{"command":"cat .agents/skills/cards/references/format.md"}'
        ),
        ToolCall("file_change", '{"changes":[{"kind":"add","path":"cards.txt"}]}'),
        ToolCall("command_execution", f'{{"command":"{CHECK}"}}'),
    ),
    commands=(
        "cat .agents/skills/cards/SKILL.md",
        "cat .agents/skills/cards/references/format.md",
        CHECK,
    ),
    files_read=(".agents/skills/cards/SKILL.md", ".agents/skills/cards/references/format.md"),
    files_written=("cards.txt",),
    turns=5,
)
SKIPPED = Trajectory(
    tool_calls=(ToolCall("command_execution", "{}"), ToolCall("file_change", "{}")),
    files_written=("cards.txt",),
    turns=3,
)


def cases() -> dict[str, BehaviorCase]:
    return {case.id: case for case in load_behavior_suite(EXAMPLE / "evals").cases}


def outcomes(case: BehaviorCase, did: Trajectory, tmp_path: Path) -> dict[str, str]:
    (tmp_path / "cards.txt").write_text(CARDS)
    grading = graded(case, tmp_path, judge=True, did=did)
    return {result.grader.type: result.outcome for result in grading.results}


def test_the_suite_loads_and_lints_clean() -> None:
    suite = cases()
    assert list(suite) == ["read_the_format", "run_the_checker"]
    assert {case.skills for case in suite.values()} == {("cards",)}
    assert lint_behavior(suite.values()) == []
    assert scaffold_findings(suite.values()) == []


def test_the_edit_keeps_the_description_and_drops_the_steps() -> None:
    right = split_document((SKILL / "SKILL.md").read_text(), "SKILL.md")
    edited = split_document((EXAMPLE / "edits" / "skip-format.md").read_text(), "edit")
    assert edited.frontmatter == right.frontmatter
    assert "references/format.md" in right.body and "references/format.md" not in edited.body
    assert "check_cards.py" in right.body and "check_cards.py" not in edited.body


def test_the_checker_says_ok_to_cards_and_names_a_bad_line(tmp_path: Path) -> None:
    cards = tmp_path / "cards.txt"
    cards.write_text(CARDS + "Hi Bob\n")
    checker = str(SKILL / "scripts" / "check_cards.py")
    done = subprocess.run([sys.executable, checker, str(cards)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "not a card: 'Hi Bob'\n1 bad line(s)\n")
    cards.write_text(CARDS)
    done = subprocess.run([sys.executable, checker, str(cards)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "ok\n")


def test_an_agent_that_followed_the_body_passes_every_grader(tmp_path: Path) -> None:
    for case in cases().values():
        assert set(outcomes(case, FOLLOWED, tmp_path).values()) == {"passed"}, case.id


def test_the_same_cards_without_following_the_body_fail_by_what_the_agent_did(
    tmp_path: Path,
) -> None:
    suite = cases()
    assert outcomes(suite["read_the_format"], SKIPPED, tmp_path) == {
        "file_contains": "passed", "file_read": "failed", "max_tool_calls": "passed",
        "max_turns": "passed", "tool_not_used": "passed", "judge": "passed",
    }  # fmt: skip
    assert outcomes(suite["run_the_checker"], SKIPPED, tmp_path) == {
        "file_contains": "passed", "command_ran": "failed", "tool_used": "failed",
        "command_not_ran": "passed", "judge": "passed",
    }  # fmt: skip
