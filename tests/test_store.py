"""The response cache on disk: hits, expiry, damage, concurrent writers, info, clear."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from activation.store import (
    DATABASE,
    CacheInfo,
    TrialStore,
    cache_folder,
    cache_info,
    clear_cache,
)

ENTRY = {"activated": True, "evidence": "chose billing:refunds", "transcript": None}
KEY = "ab" + "0" * 62


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_an_entry_is_a_hit_until_it_expires(tmp_path: Path) -> None:
    clock = Clock()
    store = TrialStore(tmp_path, ttl=3600, clock=clock)
    assert store.get(KEY) is None
    store.put(KEY, ENTRY)
    clock.now += 3600
    assert store.get(KEY) == ENTRY
    clock.now += 1
    assert store.get(KEY) is None
    store.close()
    rows = sqlite3.connect(tmp_path / DATABASE).execute("SELECT * FROM entries").fetchall()
    assert rows == [(KEY, 1_000_000.0, b'{"activated":true,"evidence":"chose billing:refunds",'
                     b'"transcript":null}')]  # fmt: skip


@pytest.mark.parametrize(
    "damage",
    [b"", b"SQLite format 3\x00" + b"\xff" * 200, b"\x00\xff" * 600, b"not a database at all"],
    ids=["empty", "torn-header", "binary", "text"],
)
def test_a_damaged_database_is_set_aside_and_a_new_one_made(tmp_path: Path, damage: bytes) -> None:
    (tmp_path / DATABASE).write_bytes(damage)
    store = TrialStore(tmp_path, ttl=3600, clock=Clock())
    assert store.get(KEY) is None
    store.put(KEY, ENTRY)
    assert store.get(KEY) == ENTRY
    assert store.write_errors == 0
    if damage:
        (aside,) = tmp_path.glob(f"{DATABASE}.damaged-*")
        assert aside.read_bytes() == damage


def test_an_entry_that_is_not_an_answer_is_a_miss(tmp_path: Path) -> None:
    store = TrialStore(tmp_path, ttl=3600, clock=Clock())
    store.put(KEY, ENTRY)
    database = sqlite3.connect(tmp_path / DATABASE)
    for trial in (b"{torn", b"[1, 2]", b"\xff\xfe"):
        with database:
            database.execute("UPDATE entries SET trial = ? WHERE key = ?", (trial, KEY))
        assert store.get(KEY) is None
    store.put(KEY, ENTRY)
    assert store.get(KEY) == ENTRY


def test_a_gone_transcript_is_marked(tmp_path: Path) -> None:
    store = TrialStore(tmp_path, ttl=3600, clock=Clock())
    kept = tmp_path / "kept.jsonl"
    kept.write_text("{}\n")
    store.put(KEY, {**ENTRY, "transcript": str(kept)})
    assert store.get(KEY) == {**ENTRY, "transcript": str(kept)}
    kept.unlink()
    assert store.get(KEY) == {**ENTRY, "transcript": str(kept), "transcript_missing": True}


def test_an_unusable_folder_counts_a_write_error_and_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = TrialStore(blocker, ttl=3600, clock=Clock())
    store.put(KEY, ENTRY)
    store.put(KEY, ENTRY)
    assert store.write_errors == 2
    assert store.get(KEY) is None


def test_a_locked_database_is_left_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock held too long is not damage: nothing is set aside, the run goes on without
    the cache, and the other run's entries are still there once it lets go."""
    monkeypatch.setattr("activation.store.BUSY_TIMEOUT", 0.1)
    other = sqlite3.connect(tmp_path / DATABASE, isolation_level=None)
    other.execute("CREATE TABLE kept (x)")
    other.execute("BEGIN EXCLUSIVE")
    store = TrialStore(tmp_path, ttl=3600, clock=Clock())
    assert store.get(KEY) is None
    store.put(KEY, ENTRY)
    assert store.write_errors == 1
    assert list(tmp_path.glob(f"{DATABASE}.damaged-*")) == []
    other.execute("COMMIT")
    assert other.execute("SELECT name FROM sqlite_master").fetchall() == [("kept",)]
    other.close()


def _writer(folder: str, worker: int, rounds: int) -> None:
    store = TrialStore(Path(folder), ttl=3600)
    for round_ in range(rounds):
        for key in range(20):
            store.put(f"{key:064x}", {"activated": True, "evidence": f"{worker}-{round_}"})
        store.put(f"f{worker:x}{round_:062x}", {"activated": False, "evidence": "own"})
    assert store.write_errors == 0
    store.close()


def test_concurrent_writers_leave_whole_entries(tmp_path: Path) -> None:
    """Four processes write the same 20 keys 50 times each, and 50 keys of their own: every
    entry reads back whole, and none is lost."""
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(tmp_path), n, 50)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    store = TrialStore(tmp_path, ttl=3600)
    found = [store.get(f"{key:064x}") for key in range(20)]
    assert all(entry is not None and entry["activated"] is True for entry in found)
    assert {entry["evidence"] for entry in found if entry} <= {f"{n}-49" for n in range(4)}
    assert cache_info(tmp_path).entries == 20 + 4 * 50


def test_info_and_clear_older_than(tmp_path: Path) -> None:
    clock = Clock()
    store = TrialStore(tmp_path, ttl=10**9, clock=clock)
    store.put("aa" + "1" * 62, ENTRY)
    clock.now += 40 * 86400
    store.put("bb" + "2" * 62, ENTRY)
    store.close()
    info = cache_info(tmp_path)
    assert (info.folder, info.entries) == (tmp_path, 2)
    assert info.size >= (tmp_path / DATABASE).stat().st_size > 0
    assert clear_cache(tmp_path, older_than=30 * 86400, clock=clock) == 1
    assert TrialStore(tmp_path, ttl=10**9, clock=clock).get("bb" + "2" * 62) == ENTRY
    assert clear_cache(tmp_path) == 1
    assert cache_info(tmp_path).entries == 0
    nowhere = tmp_path / "nowhere"
    assert cache_info(nowhere) == CacheInfo(nowhere, 0, 0)
    assert clear_cache(nowhere) == 0
    assert not nowhere.exists()


def test_the_folder_comes_from_the_flag_the_environment_or_the_user_cache(tmp_path: Path) -> None:
    env = {"ACTIVATION_CACHE_DIR": str(tmp_path / "env")}
    assert cache_folder(tmp_path / "flag", env) == tmp_path / "flag"
    assert cache_folder(None, env) == tmp_path / "env"
    default = cache_folder(None, {})
    assert default.name == "activation"
    assert default.is_absolute()
