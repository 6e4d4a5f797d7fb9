"""The one policy for a test whose program is missing from the machine (a pinned CLI that
cannot be installed, Chromium, ripgrep): outside CI it is skipped with the reason; in CI it
fails, since `.ci/run` installs everything the tests need (tests/support/machine.py)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(need: str, problem: str) -> NoReturn:
    """Skip (or, in CI, fail) the test: it needs `need` ("the real OpenCode CLI
    (opencode-ai@1.18.33)") and cannot have it because of `problem`."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must have {need}: {problem}")
    pytest.skip(f"{need} is not available: {problem}")
