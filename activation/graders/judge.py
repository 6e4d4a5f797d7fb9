"""`judge`: a model answers YES about the workspace's files, by the majority of its samples
(`--judge-samples`); no answer, or a tie, is an error of the trial, never a vote."""

from __future__ import annotations

from dataclasses import field

from activation.graders.base import (
    Answers,
    Ask,
    Checked,
    Files,
    Grader,
    Need,
    Votes,
    grader_type,
)


@grader_type("judge")
class Judge(Grader):
    """a model (`--judge-model`) answers YES to `question` about the files, given the PASS/FAIL
    `examples`; its answers are cached. With no level, the case's final holistic judge"""

    question: str
    examples: str | None = field(default=None, metadata={"shape": "PASS: ... and FAIL: ... lines"})

    def summary(self) -> str:
        return self.question

    def own_needs(self) -> tuple[Need, ...]:
        return (Ask(self.question, self.examples),)

    def check(self, files: Files, answers: Answers) -> Checked:
        need = Ask(self.question, self.examples)
        if need not in answers:
            raise ValueError(f"no answer given for the judge question {self.question!r}")
        votes = answers[need]
        if not isinstance(votes, Votes):
            raise TypeError(f"the judge question {self.question!r} was given {votes!r}")
        return checked(votes)


def checked(votes: Votes) -> Checked:
    """The outcome of the judge's samples, with their count when there are several."""
    several = len(votes.samples) > 1
    if votes.unanswered:
        of = f" ({votes.unanswered} of {len(votes.samples)} samples)" if several else ""
        return "error", f"the judge could not answer{of}"
    if votes.verdict is None:
        return "error", f"the judge's samples split {votes.yes} YES, {votes.no} NO: no majority"
    word, count = ("YES", votes.yes) if votes.verdict else ("NO", votes.no)
    why = f"the judge answered {word}" + (
        f" ({count} of {len(votes.samples)} samples)" if several else ""
    )
    return ("passed" if votes.verdict else "failed"), why


GRADER = Judge
