"""The small state folder in the target repo: `.activation/`.

Stage B's default selection needs what the latest Stage A run on the same two descriptions
flagged; Stage B keeps its transcripts there too. The folder ignores itself for git.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import orjson

from activation._config import STATE_DIR
from activation._documents import document_json, document_of
from activation._files import write_atomically
from activation._models import Inputs


@dataclass(frozen=True, kw_only=True)
class Flagged:
    """What the latest Stage A run on a pair of descriptions flagged (`activation-state/1`):
    a Stage B run on the same pair runs these cases by default."""

    schema: Literal["activation-state/1"] = "activation-state/1"
    flagged: tuple[str, ...]
    model: str | None
    recorded_at: str
    """When, in ISO 8601 (UTC, to the second)."""


@dataclass(frozen=True, kw_only=True)
class Batches:
    """The Message Batches a run submitted and did not see to the end
    (`activation-batches/1`), for `--batch --resume`."""

    schema: Literal["activation-batches/1"] = "activation-batches/1"
    batches: tuple[str, ...]


def state_dir(repo: Path) -> Path:
    folder = repo / STATE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        write_atomically(ignore, b"# written by activation: nothing here belongs in git\n*\n")
    return folder


def pair_key(inputs: Inputs) -> str:
    """Names the pair of variants (what each lists), so a Stage A result is reused only for
    the same pair."""
    parts = [inputs.target.skill_id, inputs.baseline.listed, inputs.candidate.listed]
    return hashlib.sha256(orjson.dumps(parts)).hexdigest()[:20]


def _flag_file(repo: Path, key: str) -> Path:
    return repo / STATE_DIR / "stage-a" / f"{key}.json"


def merge_flagged(previous: list[str], ran: list[str], flagged: list[str]) -> list[str]:
    """A run on some cases (`--only`) updates what it ran and keeps the earlier flags."""
    kept = [case_id for case_id in previous if case_id not in set(ran)]
    return kept + [case_id for case_id in flagged if case_id not in kept]


def record_flagged(
    repo: Path, key: str, ran: list[str], flagged: list[str], model: str | None
) -> Path:
    state_dir(repo)
    path = _flag_file(repo, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = Flagged(
        flagged=tuple(merge_flagged(last_flagged(repo, key) or [], ran, flagged)),
        model=model,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_atomically(path, document_json(record))
    return path


def last_flagged(repo: Path, key: str) -> list[str] | None:
    """The ids the latest Stage A run on this pair flagged; None when there was none."""
    try:
        return list(document_of(_flag_file(repo, key).read_bytes(), Flagged).flagged)
    except (OSError, ValueError):
        return None


def new_run_dir(repo: Path, stage: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    folder = state_dir(repo) / "runs" / f"{stamp}-stage-{stage.lower()}"
    folder.mkdir(parents=True)
    return folder


# --- Message Batches of a run, for `--batch --resume` ---------------------------------------


def _batch_file(repo: Path, key: str) -> Path:
    return repo / STATE_DIR / "batches" / f"{key}.json"


def recorded_batches(repo: Path, key: str) -> list[str]:
    """The batch ids a run on these inputs submitted and did not see to the end."""
    try:
        return list(document_of(_batch_file(repo, key).read_bytes(), Batches).batches)
    except (OSError, ValueError):
        return []


def record_batch(repo: Path, key: str, batch_id: str) -> None:
    """Written the moment a batch exists, before any wait: an interrupted run can resume."""
    state_dir(repo)
    path = _batch_file(repo, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, document_json(Batches(batches=(*recorded_batches(repo, key), batch_id))))


def forget_batches(repo: Path, key: str) -> None:
    """A run that saw all its batches to the end leaves nothing to resume."""
    _batch_file(repo, key).unlink(missing_ok=True)
