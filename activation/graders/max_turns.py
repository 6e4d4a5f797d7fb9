"""`max_turns`: the agent took at most so many model turns."""

from __future__ import annotations

from dataclasses import field

from activation.graders.base import Absent, Checked, Did, grader_type
from activation.graders.trajectory import Traced


@grader_type("max_turns")
class MaxTurns(Absent, Traced):
    """the agent took at most `max` model turns; an error on an agent whose stream does not
    give its turns (the Behavior page says which agents' streams do)"""

    max: int = field(metadata={"shape": "a count, from 1"})

    def summary(self) -> str:
        return f"at most {self.max} turns"

    def judge(self, did: Did) -> Checked:
        if did.turns is None:
            return "error", "the agent's stream does not give its turns"
        said = f"{did.turns} turns"
        return ("passed", said) if did.turns <= self.max else ("failed", f"{said}, over {self.max}")


GRADER = MaxTurns
