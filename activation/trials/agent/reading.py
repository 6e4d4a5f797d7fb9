"""What one agent run shows about the target skill (`Reading`), and the line handling every
agent's event-stream reader shares (`JsonLines`).

Every agent CLI Stage B runs writes one JSON object per line, so the readers agree on what a
line is: a blank line, or one that does not even start like a JSON object, is noise (a
warning some runtime printed to stdout), skipped and counted, because it cannot have been an
event; a line that starts with `{` but does not parse is a corrupt *event*, which may have
been the very one that decides the trial, so the reading is an error unless a successful
load was already seen (positive evidence stays valid). Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import orjson

Outcome = Literal["activated", "not_activated", "error"]

MAX_EVIDENCE = 40
"""Evidence lines kept per reading: enough to explain any verdict, bounded for reports."""

SNIPPET = 200
"""Characters of a tool result or result text kept in one evidence line."""


@dataclass(frozen=True)
class Reading:
    """What one agent run shows about the target skill.

    `outcome` is the verdict; `reason` is one line a person can act on; `evidence` lists the
    events that led there (line numbers are 1-based positions in the stream).
    """

    outcome: Outcome
    reason: str
    evidence: tuple[str, ...]
    cost_usd: float | None
    """The CLI's own figure for the whole run, when it gave one (None: price the tokens)."""
    num_turns: int | None
    input_tokens: int
    output_tokens: int
    saw_init: bool
    saw_result: bool
    events: int
    skipped_lines: int
    auth_status: int | None = None
    model_calls: int = 0
    """Distinct model responses in the stream (the CLI repeats one per content block)."""
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    model: str | None = None
    """The model that answered (the last response's), for pricing a run stopped early."""
    throttled: int = 0
    """API retries after a 429 or 529 (too many requests, overloaded)."""
    fired: tuple[str, ...] = ()
    """Every skill a successful load loaded, first first (the target by its full id)."""
    tokens_known: bool = True
    """False when the stream stopped before the CLI said what the run used (Codex reports
    its tokens only when a turn ends): the tokens are then unknown, not zero."""

    @property
    def activated(self) -> bool | None:
        """The trial's vote: None for an error, which is never a vote."""
        if self.outcome == "error":
            return None
        return self.outcome == "activated"

    def to_dict(self) -> dict[str, object]:
        return {
            "reading": self.outcome,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "cost_usd": self.cost_usd,
            "num_turns": self.num_turns,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "events": self.events,
            "skipped_lines": self.skipped_lines,
            "auth_status": self.auth_status,
            "model_calls": self.model_calls,
            "fired": list(self.fired),
        }


def decided(
    activation: str | None,
    auth_status: int | None,
    corrupt: str | None,
    fired: tuple[str, ...],
    settles: bool,
    target: str,
) -> tuple[Outcome, str] | None:
    """What decides a run the same way for every agent, in this order: a load of the
    target, refused credentials, output that cannot be read, another skill that settles
    the case (`settles`); None when the agent's own ending has to say."""
    if activation is not None:
        return "activated", activation
    if auth_status is not None:
        return "error", f"the API refused the credentials (HTTP {auth_status})"
    if corrupt is not None:
        return "error", corrupt
    if fired and settles:
        return "not_activated", (
            f"{', '.join(fired)} fired, which settles the case, and not {target!r}"
        )
    return None


def short(text: object, limit: int = SNIPPET) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JsonLines:
    """The line handling of an event-stream reader: `feed` parses each line and hands every
    JSON object to `event`; the evidence notes are numbered by line and bounded."""

    def __init__(self) -> None:
        self._line = 0
        self._events = 0
        self._skipped = 0
        self._corrupt: str | None = None
        self._evidence: list[str] = []
        self._dropped_evidence = 0

    def event(self, event: dict[str, Any]) -> None:
        """One parsed event (a subclass reads it)."""
        raise NotImplementedError

    def feed(self, line: str | bytes) -> None:
        """Take one line of stdout (with or without its newline)."""
        self._line += 1
        stripped = line.strip()
        if not stripped:
            return
        if stripped[:1] not in (b"{", "{"):
            self._skipped += 1
            return
        try:
            event = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            if self._corrupt is None:
                text = (
                    stripped.decode("utf-8", "replace") if isinstance(stripped, bytes) else stripped
                )
                self._corrupt = f"line {self._line} is not valid JSON: {short(text, 80)}"
            return
        if not isinstance(event, dict):
            self._skipped += 1
            return
        self._events += 1
        self.event(event)

    def _note(self, text: str) -> None:
        if len(self._evidence) < MAX_EVIDENCE:
            self._evidence.append(f"line {self._line}: {text}")
        else:
            self._dropped_evidence += 1

    def _evidence_lines(self) -> tuple[str, ...]:
        """The notes, then how many were left out and how many lines were noise."""
        evidence = list(self._evidence)
        if self._dropped_evidence:
            evidence.append(f"(+{self._dropped_evidence} more events)")
        if self._skipped:
            evidence.append(f"{self._skipped} non-JSON line(s) skipped")
        return tuple(evidence)
