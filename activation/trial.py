"""One trial of one case under one variant: the unit both stages schedule and report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from activation.cases import Case

VariantName = Literal["baseline", "candidate"]
VARIANTS: tuple[VariantName, VariantName] = ("baseline", "candidate")


@dataclass(frozen=True)
class TrialKey:
    case: Case
    variant: VariantName
    index: int


@dataclass(frozen=True)
class Usage:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.requests + other.requests,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class Trial:
    """`activated` is None exactly when the trial is an error: an error is never a vote."""

    key: TrialKey
    activated: bool | None
    error: str | None = None
    evidence: str = ""
    transcript: str | None = None
    usage: Usage = Usage()

    @property
    def is_error(self) -> bool:
        return self.activated is None
