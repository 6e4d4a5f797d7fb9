"""Files the tool writes for its user are whole or untouched, never half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._files import NEW_FILE_MODE, write_atomically


def test_a_new_file_holds_the_bytes_with_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomically(target, b'{"a": 1}\n')
    assert target.read_bytes() == b'{"a": 1}\n'
    assert target.stat().st_mode & 0o7777 == NEW_FILE_MODE
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "SKILL.md"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_atomically(target, b"new")
    assert (target.read_bytes(), target.stat().st_mode & 0o7777) == (b"new", 0o600)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "SKILL.md"
    target.write_bytes(b"the description a user wrote")

    def full_disk(self: Path, other: Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, b"half")
    assert target.read_bytes() == b"the description a user wrote"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["SKILL.md"]


def test_a_device_is_written_to_never_replaced() -> None:
    """/dev/full stays the device (a run as root must never swap it for a file): the write
    fails as the device makes it fail."""
    full = Path("/dev/full")
    with pytest.raises(OSError, match="No space left"):
        write_atomically(full, b"report")
    assert full.is_char_device()
