"""Which run this is, and which shard a case (or a matrix's (case, cell) pair) falls in: the
rules shards and resumes rely on, side by side so they cannot drift apart.

A run's identity is a digest of everything that makes two runs the same run: the skill,
what both variants list (the skill's fields and its siblings'), every case as written, the
menu's other skills, and the settings the trials and verdicts depend on. Shards of one run
carry it (`merge` joins only those), the report shows it, and `--batch --resume` finds an
interrupted run's batches by it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import orjson

from activation._models import AnyInputs, RunSpec


def run_identity(spec: RunSpec, inputs: AnyInputs) -> str:
    """orjson writes each case and skill as `dataclasses.asdict` would, 100 times faster
    (3,000 cases: 1 ms, not 0.1 s): the digest a report, a shard and a resume share. A
    case counts as its report entry, whatever its stage."""
    material = {
        "skill": inputs.target.skill_id,
        "baseline": inputs.baseline.listed,
        "candidate": inputs.candidate.listed,
        "cases": [case.reported for case in inputs.cases],
        "menu": (*inputs.distractors, *inputs.catalog),
        "settings": [
            spec.stage,
            spec.coding_agent,
            spec.model,
            spec.trials,
            spec.max_trials,
            spec.alpha,
            spec.seed,
        ],
        "agent": None if spec.agent is None else [spec.agent.max_turns, spec.agent.timeout],
    }
    return hashlib.sha256(orjson.dumps(material)).hexdigest()[:32]


def shard_of(case_id: str, count: int) -> int:
    """The shard (1 to `count`) a case falls in: a stable hash of its id, the same on every
    machine and every run, so a case's trials always stay together."""
    digest = hashlib.sha256(case_id.encode()).digest()
    return int.from_bytes(digest[:8]) % count + 1


def matrix_identity(specs: Sequence[RunSpec], inputs: AnyInputs) -> str:
    """A run's identity over its cells: a one-cell run's is its cell's, a run of several
    that of its cells' identities, in order."""
    return combined([run_identity(spec, inputs) for spec in specs])


def combined(identities: Sequence[str]) -> str:
    """The identity of a run of cells whose identities these are (one cell: its own)."""
    if len(identities) == 1:
        return identities[0]
    return hashlib.sha256(orjson.dumps(list(identities))).hexdigest()[:32]


def pair_shard(case_id: str, cell: str, count: int) -> int:
    """The shard a (case, cell) pair of a matrix falls in: the cells of one case spread
    over the shards as the cases do."""
    return shard_of(f"{cell}\n{case_id}", count)
