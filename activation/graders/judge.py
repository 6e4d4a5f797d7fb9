"""`judge`: a model answers YES about the workspace's files (no answer is an error of the
trial, never a vote)."""

from __future__ import annotations

from dataclasses import field

from activation.graders.base import Answers, Ask, Checked, Files, Grader, Need, grader_type


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
        answer = answers[need]
        if answer is None:
            return "error", "the judge could not answer"
        return (
            ("passed", "the judge answered YES") if answer else ("failed", "the judge answered NO")
        )


GRADER = Judge
