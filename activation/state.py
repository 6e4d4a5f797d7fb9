"""The small state folder in the target repo: `.activation/`.

Stage B's default selection needs what the latest Stage A run on the same two descriptions
flagged; Stage B keeps its transcripts there too. The folder ignores itself for git.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import orjson

from activation._config import STATE_DIR
from activation._files import write_atomically
from activation._models import Inputs


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
    data = {
        "schema": "activation-state/1",
        "flagged": merge_flagged(last_flagged(repo, key) or [], ran, flagged),
        "model": model,
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_atomically(path, orjson.dumps(data, option=orjson.OPT_INDENT_2))
    return path


def last_flagged(repo: Path, key: str) -> list[str] | None:
    """The ids the latest Stage A run on this pair flagged; None when there was none."""
    path = _flag_file(repo, key)
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    flagged = data.get("flagged") if isinstance(data, dict) else None
    return [str(item) for item in flagged] if isinstance(flagged, list) else None


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
        data = orjson.loads(_batch_file(repo, key).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return []
    ids = data.get("batches") if isinstance(data, dict) else None
    return [str(item) for item in ids] if isinstance(ids, list) else []


def record_batch(repo: Path, key: str, batch_id: str) -> None:
    """Written the moment a batch exists, before any wait: an interrupted run can resume."""
    state_dir(repo)
    path = _batch_file(repo, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = [*recorded_batches(repo, key), batch_id]
    data = {"schema": "activation-batches/1", "batches": ids}
    write_atomically(path, orjson.dumps(data, option=orjson.OPT_INDENT_2))


def forget_batches(repo: Path, key: str) -> None:
    """A run that saw all its batches to the end leaves nothing to resume."""
    _batch_file(repo, key).unlink(missing_ok=True)
