"""Every file the tool writes for its user is written whole or not at all: the bytes go to a
temporary file beside the target, which then replaces it in one step, so a crash, a full
disk or Ctrl-C never leaves a half-written report or SKILL.md behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path

NEW_FILE_MODE = 0o644
"""A new file's permissions (a replaced file keeps its own)."""


def write_atomically(path: Path, data: bytes) -> None:
    """`path` holds `data` afterwards, or (OSError) is as it was. What is not a regular file
    (a device such as /dev/stdout, a pipe) is written to as it is, never replaced."""
    if path.exists() and not path.is_file():
        path.write_bytes(data)
        return
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        temporary.chmod(path.stat().st_mode & 0o7777 if path.exists() else NEW_FILE_MODE)
        temporary.replace(path)
    except BaseException:
        with suppress(OSError):
            temporary.unlink()
        raise
