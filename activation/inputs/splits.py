"""The three splits `suggest` keeps apart: proposals are written from the failures of
**train** only, each is gated on **select**, and the chosen one is scored once on
**holdback**, which no step has seen. A split that leaks into another makes the score a
measure of memory, not of the description.

The rule (what stays stable):

- Every case has a hash: sha256 of `<seed>:<id>`, its first 8 bytes read as a number in
  [0, 1). Its *band* is the split whose share interval holds the hash, the shares laid end to
  end (train [0, 0.4), select [0.4, 0.7), holdback [0.7, 1) by default). A case's band
  depends on nothing but its id, the seed and the shares.
- Cases are stratified by expected skill (`Case.expected`) x group (`Case.group`). A stratum
  of `SUGGEST_STRATUM` (3) cases or more whose bands leave a split empty gets one case moved
  into each empty split (in the order train, select, holdback): the case nearest that band
  (smallest distance from its hash to the band; the lower hash on a tie) among the cases of
  splits that hold more than one. Every other case stays in its band (`Splits.moved` lists
  the moved ones).

So adding (or removing) a case never moves a case of another stratum, nor any case of a
stratum whose every split already holds a case by its band: that stratum's assignment is its
bands and stays so as it grows. Only in a small stratum with an empty band may a case move
when the stratum changes: a moved case goes back to its band once another case fills the
split, or a case nearer the band (or newly able to give one up) takes its place.
"""

from __future__ import annotations

import argparse
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from activation import _config
from activation._errors import InputError
from activation._models import Case

Split = Literal["train", "select", "holdback"]
SPLITS: tuple[Split, Split, Split] = ("train", "select", "holdback")
Shares = tuple[float, float, float]


@dataclass(frozen=True)
class SplitIds:
    """Which case is in which split: ids in the suite's order (what a suggestion records)."""

    train: tuple[str, ...]
    select: tuple[str, ...]
    holdback: tuple[str, ...]

    def ids(self, split: Split) -> tuple[str, ...]:
        return {"train": self.train, "select": self.select, "holdback": self.holdback}[split]

    def of(self, case_id: str) -> Split:
        """The split of a case (KeyError for an id that was not split)."""
        for split in SPLITS:
            if case_id in self.ids(split):
                return split
        raise KeyError(case_id)


@dataclass(frozen=True)
class Splits(SplitIds):
    """The splits, and what made them so."""

    seed: int
    shares: Shares
    moved: tuple[str, ...] = ()
    """Cases moved out of their band so that their stratum has a case in every split."""


def case_hash(case_id: str, seed: int) -> float:
    """A case's place in [0, 1): a function of its id and the seed alone, so it never moves
    when other cases come or go."""
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _bands(shares: Shares) -> dict[Split, tuple[float, float]]:
    total = sum(shares)
    low = 0.0
    bands: dict[Split, tuple[float, float]] = {}
    for split, share in zip(SPLITS, shares, strict=True):
        high = low + share / total
        bands[split] = (low, high)
        low = high
    bands["holdback"] = (bands["holdback"][0], 1.0)  # no case falls past the end by rounding
    return bands


def _band_of(place: float, bands: dict[Split, tuple[float, float]]) -> Split:
    return next((split for split in SPLITS if place < bands[split][1]), "holdback")


def _distance(place: float, band: tuple[float, float]) -> float:
    low, high = band
    return low - place if place < low else max(0.0, place - high)


def assign_splits(
    cases: Sequence[Case],
    target: str,
    seed: int = _config.SEED,
    shares: Shares = _config.SUGGEST_SHARES,
) -> Splits:
    """Deal the cases into train, select and holdback by the rule of the module docstring;
    `shares` are positive (they are scaled to add up to 1)."""
    if len(shares) != len(SPLITS) or any(not share > 0 for share in shares):
        raise ValueError(f"shares must be three positive numbers, got {shares!r}")
    bands = _bands(shares)
    place = {case.id: case_hash(case.id, seed) for case in cases}
    split_of: dict[str, Split] = {case.id: _band_of(place[case.id], bands) for case in cases}
    strata: dict[tuple[str, str], list[str]] = {}
    for case in cases:
        strata.setdefault((case.expected(target), case.group), []).append(case.id)
    moved: list[str] = []
    for members in strata.values():
        if len(members) < _config.SUGGEST_STRATUM:
            continue
        for split in SPLITS:
            count = {name: sum(split_of[m] == name for m in members) for name in SPLITS}
            if count[split]:
                continue
            donors = [m for m in members if count[split_of[m]] > 1]
            chosen = min(donors, key=lambda m: (_distance(place[m], bands[split]), place[m]))
            split_of[chosen] = split
            moved.append(chosen)
    ids = {split: tuple(c.id for c in cases if split_of[c.id] == split) for split in SPLITS}
    order = {case.id: i for i, case in enumerate(cases)}
    return Splits(
        ids["train"],
        ids["select"],
        ids["holdback"],
        seed,
        (shares[0], shares[1], shares[2]),
        tuple(sorted(moved, key=order.__getitem__)),
    )


def parse_shares(value: str) -> Shares:
    """`--splits 40/30/30`: three positive percentages adding up to 100 (or fractions
    adding up to 1), train/select/holdback."""
    usage = "must be three shares train/select/holdback adding up to 100, like 40/30/30"
    parts = value.split("/")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{usage}; got {value!r}") from None
    if len(numbers) != len(SPLITS) or not all(math.isfinite(n) for n in numbers):
        raise argparse.ArgumentTypeError(f"{usage}; got {value!r}")
    if any(number <= 0 for number in numbers):
        raise argparse.ArgumentTypeError(f"every split needs a share above 0; got {value!r}")
    total = sum(numbers)
    scale = 100.0 if math.isclose(total, 100.0) else 1.0 if math.isclose(total, 1.0) else None
    if scale is None:
        raise argparse.ArgumentTypeError(f"{usage}; {value!r} adds up to {total:g}")
    return (numbers[0] / scale, numbers[1] / scale, numbers[2] / scale)


def cases_needed(shares: Shares = _config.SUGGEST_SHARES) -> int:
    """About how many cases a suite needs for its splits to reach their minimums at these
    shares: the smallest multiple of 10 at which every split's expected size, less 1.5
    standard deviations (the hashes deal unevenly), reaches its minimum."""
    total = sum(shares)
    size = 10
    while any(
        size * p - 1.5 * math.sqrt(size * p * (1 - p)) < least
        for least, p in zip(_config.SUGGEST_MIN_CASES, (s / total for s in shares), strict=True)
    ):
        size += 10
    return size


def check_splits(splits: Splits, cases: Sequence[Case], target: str) -> None:
    """Refuse splits too small to judge a proposal by, in one line: each split's minimum
    (`SUGGEST_MIN_CASES`), and in select and holdback a case that should load the target
    and one that should not (a gate or a score on one side only cannot see a trade-off)."""
    by_id = {case.id: case for case in cases}
    short: list[str] = []
    sided: list[str] = []
    for split, least in zip(SPLITS, _config.SUGGEST_MIN_CASES, strict=True):
        members = [by_id[case_id] for case_id in splits.ids(split) if case_id in by_id]
        if len(members) < least:
            short.append(f"the {split} split has {len(members)} (needs {least})")
        if split == "train":
            continue
        positives = sum(case.expects(target, target) for case in members)
        if not positives:
            sided.append(f"the {split} split has no case that should load {target}")
        if positives == len(members):
            sided.append(f"the {split} split has no case that should not load {target}")
    if not short and not sided:
        return
    if short:
        advice = f"suggest needs about {cases_needed(splits.shares)} cases"
    else:
        advice = "add such cases, or try another --seed"
    raise InputError(f"the suite has {len(cases)} cases: {', '.join(short + sided)}: {advice}")
