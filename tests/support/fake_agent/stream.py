"""Reading the fake CLI's JSON lines: `start`, a `load` per skill it loaded (with the
SKILL.md text it read), a `read` per file it read (its tool's result), `end`. A load counts
for a skill only when that skill's copy's nonce is in the text that came back; the target's
is an activation."""

from __future__ import annotations

from typing import Any

from activation.trials.agent.adapter import Settled
from activation.trials.agent.installed import SkillSet
from activation.trials.agent.reading import JsonLines, Outcome, Reading, decided


class FakeReader(JsonLines):
    def __init__(self, skills: SkillSet, settled: Settled) -> None:
        super().__init__()
        self.skills = skills
        self.target = skills.target
        self._settled = settled
        self._fired: list[str] = []
        self._activation: str | None = None
        self._started = False
        self._ended = False
        self._cost: float | None = None
        self._returned: list[tuple[str, str]] = []

    @property
    def decided(self) -> bool:
        return bool(self._fired) and self._settled(tuple(self._fired))

    @property
    def saw_result(self) -> bool:
        return self._ended

    @property
    def auth_status(self) -> int | None:
        return None

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "start":
            self._started = True
        elif kind == "load":
            self._load(str(event.get("skill")), str(event.get("content", "")))
        elif kind == "read":
            self._returned.append(("read", str(event.get("content", ""))))
        elif kind == "end":
            self._ended = True
            cost = event.get("cost_usd")
            self._cost = float(cost) if isinstance(cost, int | float) else None

    def _load(self, folder: str, content: str) -> None:
        loaded = [s for s in self.skills.skills if s.nonce is not None and s.nonce in content]
        if not loaded:
            self._note(f"load {folder!r} returned no copy's nonce")
            return
        for skill in loaded:
            self._fired.append(skill.id)
            self._note(f"load {folder!r} returned {skill.id}'s SKILL.md")
        if self.target in loaded and self._activation is None:
            self._activation = (
                f"load {folder!r} returned the target's SKILL.md, nonce included "
                f"(line {self._line})"
            )

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=self._cost,
            num_turns=1 if self._started else None,
            input_tokens=0,
            output_tokens=0,
            saw_init=self._started,
            saw_result=self._ended,
            events=self._events,
            skipped_lines=self._skipped,
            model_calls=1 if self._started else 0,
            fired=tuple(self._fired),
            returned=tuple(self._returned),
        )

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if self._events == 0:
            return "error", "no events: not a fake agent stream"
        fired = tuple(self._fired)
        found = decided(self._activation, None, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target.id)  # fmt: skip
        if found is not None:
            return found
        if not self._ended:
            return "error", "the stream has no end event"
        if exit_code not in (None, 0):
            return "error", f"fake-agent exited with code {exit_code}"
        return "not_activated", f"the run ended without a load of {self.target.id!r}"
