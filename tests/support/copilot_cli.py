"""The pinned GitHub Copilot CLI that the Copilot tests drive (tests/support/npm_cli.py).

The tests run the real CLI (not a stand-in for it) in its offline provider mode against the
local Messages API stand-in, installed from the npm registry into
`<repo>/.agent-clis/copilot` on first use. Its native binary unpacks its runtime (~235 MB)
on first run into `PACKAGE_CACHE`, git-ignored beside it, shared by every test's run. The
listing's rules are this version's (`activation/trials/agents/copilot/copilot-1.0.102.toml`).
"""

from __future__ import annotations

from tests.support.npm_cli import REPO, PinnedCli

FOLDER = REPO / ".agent-clis" / "copilot"
COPILOT = PinnedCli("GitHub Copilot CLI", "@github/copilot", "1.0.102", FOLDER, "copilot",
                    megabytes=430, version_word=3)  # fmt: skip
"""`copilot --version` prints "GitHub Copilot CLI 1.0.102." (the word's final dot is not
part of the version)."""
PACKAGE_CACHE = FOLDER / "pkg-cache"
"""`COPILOT_PKG_CACHE_HOME` of every test run."""
