"""The response cache on disk: one small JSON file per trial, under the user cache folder.

This is an edge, beside the state folder: it is the only code that reads and writes the
cache's files, so the backend wrapper that uses it (trials/cache.py) stays free of I/O.
Entries are written atomically (a temporary file in the same folder, then `os.replace`), so
two runs writing at once (two CI jobs on one runner) each leave a whole entry, and a torn or
unreadable entry (a crash mid-write, a full disk) reads as a miss, never as a crash. Entries
hold an answer and its evidence, never a secret: the key is a digest of the request, and a
request holds no credentials.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from activation._config import CACHE_APP, CACHE_ENV

SCHEMA = "activation-cache/1"
ENTRIES = "trials"
"""The subfolder of the cache folder that holds the entries (two-character shards)."""
Clock = Callable[[], float]


def cache_folder(flag: Path | None, env: Mapping[str, str]) -> Path:
    """`--cache-dir`, else ACTIVATION_CACHE_DIR, else the user cache directory."""
    if flag is not None:
        return flag
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir(CACHE_APP, appauthor=False))


class TrialStore:
    """Entries younger than `ttl` seconds are hits; older, torn or missing ones are misses."""

    def __init__(self, folder: Path, ttl: float, clock: Clock = time.time) -> None:
        self.folder = folder
        self.ttl = ttl
        self.clock = clock
        self.write_errors = 0
        """Entries that could not be written (the run goes on: the cache only saves money)."""

    def path(self, key: str) -> Path:
        return self.folder / ENTRIES / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored trial of `key`, or None. A Stage B transcript that is gone is marked,
        so the trial can say so instead of pointing at nothing."""
        try:
            entry = orjson.loads(self.path(key).read_bytes())
            if entry["schema"] != SCHEMA or self.clock() - float(entry["created"]) > self.ttl:
                return None
            trial = dict(entry["trial"])
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
        transcript = trial.get("transcript")
        if isinstance(transcript, str) and not Path(transcript).is_file():
            trial["transcript_missing"] = True
        return trial

    def put(self, key: str, trial: Mapping[str, Any]) -> None:
        path = self.path(key)
        data = orjson.dumps({"schema": SCHEMA, "created": self.clock(), "trial": trial})
        temporary: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            Path(temporary).replace(path)
        except OSError:
            self.write_errors += 1
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


@dataclass(frozen=True)
class CacheInfo:
    folder: Path
    entries: int
    size: int
    """Bytes of the entry files."""


def _entry_files(folder: Path) -> list[Path]:
    root = folder / ENTRIES
    return sorted(root.glob("*/*.json")) if root.is_dir() else []


def cache_info(folder: Path) -> CacheInfo:
    files = _entry_files(folder)
    size = 0
    for path in files:
        try:
            size += path.stat().st_size
        except OSError:
            continue
    return CacheInfo(folder, len(files), size)


def clear_cache(folder: Path, older_than: float | None = None, clock: Clock = time.time) -> int:
    """Remove every entry, or those older than `older_than` seconds (a torn entry, whose age
    cannot be read, goes too); how many were removed."""
    removed = 0
    now = clock()
    for path in _entry_files(folder):
        if older_than is not None:
            try:
                created = float(orjson.loads(path.read_bytes())["created"])
            except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                created = None
            if created is not None and now - created <= older_than:
                continue
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed += 1
    return removed
