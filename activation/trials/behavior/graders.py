"""Grading a workspace: pure, with what the graders need (a judge's answers, the commands'
results) given in.

What each grader checks is its registered type's own (activation/graders/). Here: negative
graders are void in a trial where no positive grader passed, so an empty workspace scores
nothing, and a trial passes when no grader is in error, at least one applies, and every one
that applies passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from activation._behavior import LEVELS, Grader, Level
from activation.graders.base import Answers, Outcome
from activation.trials.behavior.workspace import Workspace

VOID_WHY = "void: no positive grader passed"


@dataclass(frozen=True)
class GraderResult:
    grader: Grader
    outcome: Outcome
    why: str


@dataclass(frozen=True)
class Grading:
    """A trial's graders. `levels` holds, per level that has graders, the worst outcome of
    its graders (error, then failed, then passed, then void)."""

    results: tuple[GraderResult, ...]
    levels: Mapping[Level, Outcome]
    passed: bool
    error: bool


def grade(graders: Sequence[Grader], workspace: Workspace, answers: Answers) -> Grading:
    """Grade a workspace. `answers` holds an answer to every need of the graders
    (`activation.graders.base.needs_of`); a missing one is the caller's bug (ValueError),
    not a trial's outcome."""
    raw = [grader.check(workspace.files, answers) for grader in graders]
    pairs = list(zip(graders, raw, strict=True))
    any_positive = any(outcome == "passed" for grader, (outcome, _) in pairs if not grader.negative)
    results = tuple(
        GraderResult(grader, "void", VOID_WHY)
        if grader.negative and not any_positive
        else GraderResult(grader, outcome, why)
        for grader, (outcome, why) in pairs
    )
    error = any(result.outcome == "error" for result in results)
    applied = [result for result in results if result.outcome != "void"]
    passed = not error and bool(applied) and all(r.outcome == "passed" for r in applied)
    return Grading(results, _levels(results), passed, error)


def _levels(results: Sequence[GraderResult]) -> dict[Level, Outcome]:
    rank: dict[Outcome, int] = {"void": 0, "passed": 1, "failed": 2, "error": 3}
    levels: dict[Level, Outcome] = {}
    for result in results:
        level = result.grader.level
        if level is not None and rank[result.outcome] >= rank[levels.get(level, "void")]:
            levels[level] = result.outcome
    return {level: levels[level] for level in LEVELS if level in levels}
