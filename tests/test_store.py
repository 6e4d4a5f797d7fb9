"""The response cache on disk: hits, expiry, torn entries, concurrent writers, info, clear."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import orjson
import pytest

from activation.store import (
    SCHEMA,
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
    assert store.path(KEY) == tmp_path / "trials" / "ab" / f"{KEY}.json"
    saved = orjson.loads(store.path(KEY).read_bytes())
    assert saved == {"schema": SCHEMA, "created": 1_000_000.0, "trial": ENTRY}
    clock.now += 3600
    assert store.get(KEY) == ENTRY
    clock.now += 1
    assert store.get(KEY) is None
    assert list(store.path(KEY).parent.iterdir()) == [store.path(KEY)]  # no temp file left


@pytest.mark.parametrize(
    "damage",
    [b"", b'{"schema": "activation-cache/1", "created": 10', b"\x00\xff", b"[]", b'{"a": 1}'],
    ids=["empty", "torn", "binary", "list", "other"],
)
def test_a_torn_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path: Path, damage: bytes) -> None:
    store = TrialStore(tmp_path, ttl=3600, clock=Clock())
    store.path(KEY).parent.mkdir(parents=True)
    store.path(KEY).write_bytes(damage)
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


def test_an_unwritable_folder_counts_a_write_error_and_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = TrialStore(blocker, ttl=3600, clock=Clock())
    store.put(KEY, ENTRY)
    assert store.write_errors == 1
    assert store.get(KEY) is None


def _writer(folder: str, worker: int, rounds: int) -> None:
    store = TrialStore(Path(folder), ttl=3600)
    for round_ in range(rounds):
        for key in range(20):
            store.put(f"{key:064x}", {"activated": True, "evidence": f"{worker}-{round_}"})


def test_concurrent_writers_leave_whole_entries(tmp_path: Path) -> None:
    """Four processes write the same 20 keys 50 times each: every entry reads back whole."""
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
    assert not list(tmp_path.rglob("*.tmp"))
    assert cache_info(tmp_path).entries == 20


def test_info_and_clear_older_than(tmp_path: Path) -> None:
    clock = Clock()
    store = TrialStore(tmp_path, ttl=10**9, clock=clock)
    store.put("aa" + "1" * 62, ENTRY)
    clock.now += 40 * 86400
    store.put("bb" + "2" * 62, ENTRY)
    (tmp_path / "trials" / "cc").mkdir()
    (tmp_path / "trials" / "cc" / ("cc" + "3" * 62 + ".json")).write_bytes(b"{torn")
    info = cache_info(tmp_path)
    assert (info.folder, info.entries) == (tmp_path, 3)
    assert info.size == sum(p.stat().st_size for p in (tmp_path / "trials").rglob("*.json"))
    assert clear_cache(tmp_path, older_than=30 * 86400, clock=clock) == 2  # old + torn
    assert store.get("bb" + "2" * 62) == ENTRY
    assert clear_cache(tmp_path) == 1
    assert cache_info(tmp_path).entries == 0
    assert cache_info(tmp_path / "nowhere").entries == 0


def test_the_folder_comes_from_the_flag_the_environment_or_the_user_cache(tmp_path: Path) -> None:
    env = {"ACTIVATION_CACHE_DIR": str(tmp_path / "env")}
    assert cache_folder(tmp_path / "flag", env) == tmp_path / "flag"
    assert cache_folder(None, env) == tmp_path / "env"
    default = cache_folder(None, {})
    assert default.name == "activation"
    assert default.is_absolute()
