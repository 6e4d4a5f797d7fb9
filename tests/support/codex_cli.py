"""Find, or install, the pinned Codex CLI that the Codex fidelity test drives.

The test runs the real CLI (not a stand-in for it) against the local fake Responses API. It
installs from the npm registry into `<repo>/.agent-clis/codex` on first use, as
`claude_cli` does for Claude Code. The version is pinned: the listing's rules are those of
0.171.0 (`activation/trials/listing/codex-0.171.0.toml`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CODEX_VERSION = "0.171.0"
CODEX_PACKAGE = f"@openai/codex@{CODEX_VERSION}"
REPO = Path(__file__).resolve().parents[2]
INSTALL_DIR = REPO / ".agent-clis" / "codex"
CODEX_BIN = INSTALL_DIR / "node_modules" / ".bin" / "codex"
INSTALL_TIMEOUT = 600.0


def installed_version(codex: Path) -> str | None:
    """`codex --version`'s last word ("0.171.0" of "codex-cli 0.171.0"), or None."""
    try:
        completed = subprocess.run(
            [str(codex), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = completed.stdout.split()
    return words[-1] if completed.returncode == 0 and words else None


def locate_codex() -> tuple[Path | None, str]:
    """The pinned CLI, installing it when needed; else None and why it is unavailable."""
    if CODEX_BIN.exists() and installed_version(CODEX_BIN) == CODEX_VERSION:
        return CODEX_BIN, ""
    npm = shutil.which("npm")
    if npm is None:
        return None, f"npm is not on PATH, so {CODEX_PACKAGE} cannot be installed"
    command = [
        npm,
        "install",
        "--prefix",
        str(INSTALL_DIR),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        CODEX_PACKAGE,
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
        return None, f"`npm install {CODEX_PACKAGE}` failed: {error}"
    if completed.returncode != 0:
        tail = " ".join(completed.stderr.split())[-400:]
        return None, f"`npm install {CODEX_PACKAGE}` exited {completed.returncode}: {tail}"
    version = installed_version(CODEX_BIN)
    if version != CODEX_VERSION:
        return None, f"installed {CODEX_PACKAGE} but `codex --version` says {version!r}"
    return CODEX_BIN, ""
