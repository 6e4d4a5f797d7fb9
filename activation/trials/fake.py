"""An in-memory backend: answers scripted per case and variant, with no network and no clock.

Tests of everything above the backends, and the gate-validity simulations, run on it. An
answer is True (activated), False (not) or None (an error trial).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Self, TypeVar

import anyio

from activation._models import Trial, TrialKey, Usage, VariantName

Answer = bool | None
Script = Callable[[TrialKey], Answer]
CaseKey = str | tuple[str, VariantName]
"""A case id (both variants) or a (case id, variant) pair; the pair wins."""
T = TypeVar("T")


def _lookup(table: Mapping[CaseKey, T], key: TrialKey, default: T) -> T:
    pair = (key.case.id, key.variant)
    if pair in table:
        return table[pair]
    return table.get(key.case.id, default)


def scripted(table: Mapping[CaseKey, Sequence[Answer]], default: Answer = False) -> Script:
    """Answers by trial index, repeating the sequence when the trials outrun it."""

    def answer(key: TrialKey) -> Answer:
        answers = _lookup(table, key, (default,))
        return answers[key.index % len(answers)]

    return answer


def at_rates(rates: Mapping[CaseKey, float], default: float = 0.0, seed: int = 0) -> Script:
    """Activated with the given probability, drawn from the trial's own seeded stream, so
    an answer never depends on the order trials happen to run in."""

    def answer(key: TrialKey) -> Answer:
        name = f"{seed}\x00{key.case.id}\x00{key.variant}\x00{key.index}".encode()
        draw = int.from_bytes(hashlib.blake2b(name, digest_size=8).digest()) / 2**64
        return draw < _lookup(rates, key, default)

    return answer


class FakeBackend:
    def __init__(self, script: Script, latency: float = 0.0, cost: float = 0.0) -> None:
        self.script = script
        self.latency = latency
        self.cost = cost
        """US dollars each answered trial costs (an error trial costs nothing)."""
        self.calls = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def run(self, key: TrialKey) -> Trial:
        self.calls += 1
        if self.latency:
            await anyio.sleep(self.latency)
        answer = self.script(key)
        usage = Usage(requests=1)
        if answer is None:
            return Trial(key, None, error="scripted error", usage=usage)
        evidence = "scripted: activated" if answer else "scripted: not activated"
        return Trial(key, answer, evidence=evidence, usage=Usage(requests=1, cost_usd=self.cost))
