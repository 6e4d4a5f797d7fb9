"""A pinned agent CLI from the npm registry, installed on first use into the repository (its
folder git-ignored), and the one policy the tests that drive it share: skipped outside CI,
with the reason, only when it cannot be had; failed in CI (tests/support/needs.py).

The versions are pinned because what the tests check is a version's own behaviour (its
listing, its event stream): an unpinned install silently picks another release.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.support.needs import unavailable

REPO = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 600.0


@dataclass(frozen=True)
class PinnedCli:
    """`package@version`, installed with npm under `folder` (about `megabytes` on disk), run
    as `command`; `--version` prints the version as its `version_word`-th word."""

    title: str
    package: str
    version: str
    folder: Path
    command: str
    megabytes: int
    version_word: int = 0

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    @property
    def binary(self) -> Path:
        return self.folder / "node_modules" / ".bin" / self.command

    def is_installed(self) -> bool:
        """Whether npm has put this version under `folder` (its package.json, no process)."""
        manifest = self.folder / "node_modules" / self.package / "package.json"
        try:
            installed = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            return False
        return bool(installed == self.version and self.binary.exists())

    def installed_version(self, binary: Path | None = None) -> str | None:
        """What `--version` says, or None when the binary does not answer."""
        try:
            completed = subprocess.run(
                [str(binary or self.binary), "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        words = completed.stdout.split()
        # A version word may end a sentence ("GitHub Copilot CLI 1.0.102.").
        return words[self.version_word].rstrip(".") if completed.returncode == 0 and words else None

    def locate(self) -> tuple[Path | None, str]:
        """The pinned CLI, installing it when needed; else None and why it is unavailable."""
        if self.binary.exists() and self.installed_version() == self.version:
            return self.binary, ""
        npm = shutil.which("npm")
        if npm is None:
            return None, f"npm is not on PATH, so {self.spec} cannot be installed"
        command = [npm, "install", "--prefix", str(self.folder), "--no-audit", "--no-fund",
                   "--save-exact", self.spec]  # fmt: skip
        try:
            completed = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                stdin=subprocess.DEVNULL,
                check=False,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return None, f"`npm install {self.spec}` failed: {error}"
        if completed.returncode != 0:
            tail = " ".join(completed.stderr.split())[-400:]
            return None, f"`npm install {self.spec}` exited {completed.returncode}: {tail}"
        version = self.installed_version()
        if version != self.version:
            return None, f"installed {self.spec} but `{self.command} --version` says {version!r}"
        return self.binary, ""

    def required(self) -> Path:
        """The CLI for a test: skipped outside CI when it cannot be had, failed in CI."""
        path, problem = self.locate()
        if path is None:
            unavailable(f"the real {self.title} ({self.spec})", problem)
        return path


def shown(folder: Path) -> Path:
    """`folder` from the repository's root when it lies inside it."""
    return folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder


def install_notice(clis: Iterable[PinnedCli]) -> str | None:
    """The line a test run prints before it installs the pinned CLIs it is about to use, or
    None when they are all installed already."""
    missing = [cli for cli in clis if not cli.is_installed()]
    if not missing:
        return None
    listed = ", ".join(f"{cli.spec} (~{cli.megabytes} MB, into {shown(cli.folder)}/)"
                       for cli in missing)  # fmt: skip
    total = sum(cli.megabytes for cli in missing)
    return (
        f"activation tests: installing {len(missing)} pinned agent CLI"
        f"{'s' if len(missing) > 1 else ''} with npm on first use, ~{total} MB: {listed}"
    )


def processes_using(folder: str) -> list[int]:
    """Live processes whose command line or environment names `folder` (a run's HOME, cwd
    or TMPDIR lies under it), so whatever a run started and left behind; zombies have
    neither."""
    needle = folder.encode()
    found = []
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        try:
            named = (process / "cmdline").read_bytes() + (process / "environ").read_bytes()
        except OSError:
            continue
        if needle in named:
            found.append(int(process.name))
    return found
