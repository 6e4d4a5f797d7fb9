"""The response cache on disk: one SQLite database under the user cache folder.

This is an edge, beside the state folder: it is the only code that reads and writes the
cache, so the backend wrapper that uses it (trials/cache.py) stays free of I/O. SQLite (the
standard library's) makes every entry a transaction: two runs writing at once (two CI jobs on
one runner) each leave whole entries, and a crash mid-write leaves none, not a torn one. In
WAL mode a write costs a few microseconds, where a file per entry cost a file creation each,
the largest share of a large run's client CPU. A database that cannot be read (a damaged
file, a full disk) is set aside or skipped: the cache only saves money, it never stops a
run. Entries hold an answer and its evidence, never a secret: the key is a digest of the
request, and a request holds no credentials.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from activation._config import CACHE_APP, CACHE_ENV

DATABASE = "trials.sqlite3"
BUSY_TIMEOUT = 30.0
"""Seconds a writer waits for another process's write to finish."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    created REAL NOT NULL,
    trial BLOB NOT NULL
) WITHOUT ROWID
"""
Clock = Callable[[], float]


def cache_folder(flag: Path | None, env: Mapping[str, str]) -> Path:
    """`--cache-dir`, else ACTIVATION_CACHE_DIR, else the user cache directory."""
    if flag is not None:
        return flag
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir(CACHE_APP, appauthor=False))


def open_database(path: Path) -> sqlite3.Connection:
    database = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    try:
        database.execute("PRAGMA journal_mode=WAL")
        database.execute("PRAGMA synchronous=NORMAL")
        database.execute(SCHEMA)
    except sqlite3.Error:
        database.close()
        raise
    return database


def connect(folder: Path) -> sqlite3.Connection:
    """The cache's database, made if need be; a file that is not a database is set aside."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DATABASE
    try:
        return open_database(path)
    except sqlite3.OperationalError:
        raise  # locked by another run, or not openable: not damaged, so not set aside
    except sqlite3.DatabaseError:
        path.replace(path.with_name(f"{DATABASE}.damaged-{time.time_ns()}"))
        return open_database(path)


class TrialStore:
    """Entries younger than `ttl` seconds are hits; older or unreadable ones are misses."""

    def __init__(self, folder: Path, ttl: float, clock: Clock = time.time) -> None:
        self.folder = folder
        self.ttl = ttl
        self.clock = clock
        self.write_errors = 0
        """Entries that could not be written (the run goes on: the cache only saves money)."""
        self._database: sqlite3.Connection | None = None
        self._broken = False

    def _open(self) -> sqlite3.Connection | None:
        if self._database is None and not self._broken:
            try:
                self._database = connect(self.folder)
            except (OSError, sqlite3.Error):
                self._broken = True
        return self._database

    def close(self) -> None:
        if self._database is not None:
            self._database.close()
            self._database = None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored trial of `key`, or None. A Stage B transcript that is gone is marked,
        so the trial can say so instead of pointing at nothing."""
        database = self._open()
        if database is None:
            return None
        try:
            row = database.execute(
                "SELECT created, trial FROM entries WHERE key = ?", (key,)
            ).fetchone()
            if row is None or self.clock() - float(row[0]) > self.ttl:
                return None
            trial = orjson.loads(row[1])
        except (sqlite3.Error, orjson.JSONDecodeError, TypeError, ValueError):
            return None
        if not isinstance(trial, dict):
            return None
        transcript = trial.get("transcript")
        if isinstance(transcript, str) and not Path(transcript).is_file():
            trial["transcript_missing"] = True
        return trial

    def put(self, key: str, trial: Mapping[str, Any]) -> None:
        database = self._open()
        try:
            if database is None:
                raise sqlite3.OperationalError("the cache cannot be opened")
            database.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?)",
                (key, self.clock(), orjson.dumps(trial)),
            )
        except (sqlite3.Error, TypeError):
            self.write_errors += 1


@dataclass(frozen=True)
class CacheInfo:
    folder: Path
    entries: int
    size: int
    """Bytes of the database and its write-ahead log."""


def cache_info(folder: Path) -> CacheInfo:
    path = folder / DATABASE
    if not path.is_file():
        return CacheInfo(folder, 0, 0)
    with closing(connect(folder)) as database:
        (entries,) = database.execute("SELECT count(*) FROM entries").fetchone()
    size = 0
    for file in (path, path.with_name(f"{DATABASE}-wal")):
        with suppress(OSError):
            size += file.stat().st_size
    return CacheInfo(folder, int(entries), size)


def clear_cache(folder: Path, older_than: float | None = None, clock: Clock = time.time) -> int:
    """Remove every entry, or those older than `older_than` seconds; how many went."""
    if not (folder / DATABASE).is_file():
        return 0
    with closing(connect(folder)) as database:
        if older_than is None:
            removed = database.execute("DELETE FROM entries").rowcount
        else:
            cutoff = clock() - older_than
            removed = database.execute("DELETE FROM entries WHERE created < ?", (cutoff,)).rowcount
        database.execute("VACUUM")
    return int(removed)
