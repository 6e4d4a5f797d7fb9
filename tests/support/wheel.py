"""Building the project's wheel, as a user's `pip` would, for the packaging test (the
`wheel` fixture, which marks a test slow)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.npm_cli import REPO

SOURCES = (
    "activation", "cases.json", "distractors", "calibration", "examples", "pyproject.toml",
    "README.md",
)  # fmt: skip


def build_wheel(tmp_path: Path) -> Path:
    """Build from a copy of the sources (links kept as links), offline, with this venv's
    setuptools, so the working tree gets no build folders."""
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(
                path, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(path, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path / "dist"), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("skill_activation-*.whl")
    return wheel
