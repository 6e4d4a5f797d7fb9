"""The pinned Claude Code CLI that the end-to-end tests drive (tests/support/npm_cli.py).

The Stage B tests run the real CLI (not a stand-in for it) against the local fake Messages
API. It installs from the npm registry into `<repo>/.claude-cli` (git-ignored). On Node 20
an unpinned install silently picks an older release whose event shapes differ.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.npm_cli import REPO, PinnedCli

CLAUDE = PinnedCli("Claude Code CLI", "@anthropic-ai/claude-code", "2.1.332", REPO / ".claude-cli",
                   "claude", megabytes=380)  # fmt: skip
CLAUDE_VERSION = CLAUDE.version


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
