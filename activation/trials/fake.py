"""An in-memory backend: answers scripted per case and variant, with no network and no clock.

Tests of everything above the backends, and the gate-validity simulations, run on it. An
answer is True (activated), False (not) or None (an error trial).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Self, TypeVar

import anyio

from activation._models import Arm, ErrorClass, Trial, TrialKey, Usage
from activation.trials.backend import Round, request_digest

Answer = bool | None
Script = Callable[[TrialKey], Answer]
CaseKey = str | tuple[str, Arm]
"""A case id (both variants) or a (case id, variant) pair; the pair wins."""
Request = Callable[[TrialKey], Mapping[str, object]]
"""What a trial asks, for the cache key (a fake model that reads the description)."""
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


def draw(seed: int, key: TrialKey) -> float:
    """A number in [0, 1) from the trial's own seeded stream, so an answer never depends on
    the order trials happen to run in."""
    name = f"{seed}\x00{key.case.id}\x00{key.variant}\x00{key.index}".encode()
    return int.from_bytes(hashlib.blake2b(name, digest_size=8).digest()) / 2**64


def at_rates(rates: Mapping[CaseKey, float], default: float = 0.0, seed: int = 0) -> Script:
    """Activated with the given probability, drawn from the trial's own seeded stream."""

    def answer(key: TrialKey) -> Answer:
        return draw(seed, key) < _lookup(rates, key, default)

    return answer


def fake_trial(
    key: TrialKey, answer: Answer, cost: float = 0.0, target: str | None = None
) -> Trial:
    """The trial an answer makes; with the `target` id, one that says what fired (the target
    alone, or nothing), as a real backend's does."""
    if answer is None:
        return key.failed("scripted error", Usage(requests=1), kind=ErrorClass.MODEL)
    evidence = "scripted: activated" if answer else "scripted: not activated"
    usage = Usage(requests=1, cost_usd=cost)
    if target is None:
        return key.answer(answer, evidence, usage)
    return key.fired((target,) if answer else (), target, evidence, usage)


@dataclass(eq=False)
class FakeBackend:
    """`request`, when given, names what each trial asks, so its answers are cached like a
    real backend's (a test then sees a second run served from the cache); `target`, when
    given, is the measured skill's id, so its trials record what fired."""

    script: Script
    latency: float = 0.0
    cost: float = 0.0
    """US dollars each answered trial costs (an error trial costs nothing)."""
    request: Request | None = None
    target: str | None = None
    calls: int = field(default=0, init=False)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def cache_key(self, key: TrialKey) -> str | None:
        return None if self.request is None else request_digest("fake", self.request(key), key)

    async def run_round(self, round: Round) -> None:
        await round.each(self.run)

    async def run(self, key: TrialKey) -> Trial:
        self.calls += 1
        if self.latency:
            await anyio.sleep(self.latency)
        return fake_trial(key, self.script(key), self.cost, self.target)
