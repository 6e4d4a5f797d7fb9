"""Find, or install, the pinned Claude Code CLI that the end-to-end tests drive.

The Stage B tests run the real CLI (not a stand-in for it) against the local fake Messages
API. It installs from the npm registry into `<repo>/.claude-cli` (git-ignored). The version
is pinned: on Node 20 an unpinned install silently picks an older release whose event
shapes differ.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CLAUDE_VERSION = "2.1.332"
CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"
REPO = Path(__file__).resolve().parents[2]
INSTALL_DIR = REPO / ".claude-cli"
CLAUDE_BIN = INSTALL_DIR / "node_modules" / ".bin" / "claude"
INSTALL_TIMEOUT = 600.0


def installed_version(claude: Path) -> str | None:
    """`claude --version`'s first word ("2.1.332"), or None when it does not answer."""
    try:
        completed = subprocess.run(
            [str(claude), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = completed.stdout.split()
    return words[0] if completed.returncode == 0 and words else None


def locate_claude() -> tuple[Path | None, str]:
    """The pinned CLI, installing it when needed; else None and why it is unavailable."""
    if CLAUDE_BIN.exists() and installed_version(CLAUDE_BIN) == CLAUDE_VERSION:
        return CLAUDE_BIN, ""
    npm = shutil.which("npm")
    if npm is None:
        return None, f"npm is not on PATH, so {CLAUDE_PACKAGE} cannot be installed"
    command = [
        npm,
        "install",
        "--prefix",
        str(INSTALL_DIR),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        CLAUDE_PACKAGE,
    ]
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
        return None, f"`npm install {CLAUDE_PACKAGE}` failed: {error}"
    if completed.returncode != 0:
        tail = " ".join(completed.stderr.split())[-400:]
        return None, f"`npm install {CLAUDE_PACKAGE}` exited {completed.returncode}: {tail}"
    version = installed_version(CLAUDE_BIN)
    if version != CLAUDE_VERSION:
        return None, f"installed {CLAUDE_PACKAGE} but `claude --version` says {version!r}"
    return CLAUDE_BIN, ""


def find_or_install_claude() -> Path | None:
    """The pinned CLI's path, or None when it cannot be had here."""
    return locate_claude()[0]


def processes_mentioning(marker: str) -> list[int]:
    """Live processes whose command line contains `marker` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry.name))
    return found
