"""Shards planned from recorded durations (`--shard I/N --durations report.json`).

Hash shards (inputs/identity.py) give each shard the same number of cases, not the same
work: where one case's trials take ten times another's, the slowest shard holds the CI
matrix up. Planned shards put the longest case first onto the least-loaded shard, and so on
down (longest-processing-time first, within 4/3 of the best split, and close to it when the
cases are many). A case the durations do not know weighs the median of those they do.
Every tie is broken by the order given, so every machine of a CI matrix plans the same
shards from the same report.
"""

from __future__ import annotations

import hashlib
import heapq
import statistics
from collections.abc import Mapping, Sequence

import orjson


def pair_key(case_id: str, cell: str, several: bool) -> str:
    """What a plan weighs: a case, or in a run of several cells a (case, cell) pair, keyed
    as `identity.pair_shard` hashes it (each pair spreads over the shards on its own)."""
    return f"{cell}\n{case_id}" if several else case_id


def planned_shards(
    keys: Sequence[str], durations: Mapping[str, float], count: int
) -> dict[str, int]:
    """Each key (a case, or a matrix's (case, cell) pair) -> its shard, 1 to `count`: the
    longest first, each onto the least-loaded shard (among equals the one holding fewest
    keys, then the lowest-numbered); a key without a duration weighs the median of the
    known ones (1 when none is known)."""
    known = [durations[key] for key in keys if key in durations]
    fill = statistics.median(known) if known else 1.0
    weights = {key: durations.get(key, fill) for key in keys}
    order = sorted(range(len(keys)), key=lambda at: (-weights[keys[at]], at))
    loads = [(0.0, 0, index) for index in range(1, count + 1)]
    plan: dict[str, int] = {}
    for at in order:
        load, held, index = heapq.heappop(loads)
        plan[keys[at]] = index
        heapq.heappush(loads, (load + weights[keys[at]], held + 1, index))
    return {key: plan[key] for key in keys}


def shard_loads(plan: Mapping[str, int], weights: Mapping[str, float], count: int) -> list[float]:
    """The work each shard holds under `plan` (shard 1 first)."""
    loads = [0.0] * count
    for key, index in plan.items():
        loads[index - 1] += weights[key]
    return loads


def plan_digest(plan: Mapping[str, int]) -> str:
    """The plan's identity: only shards of one plan merge (two plans from different
    reports can put a case in two shards, or in none)."""
    return hashlib.sha256(orjson.dumps(sorted(plan.items()))).hexdigest()[:16]
